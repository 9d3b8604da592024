import type { TSchema } from '@sinclair/typebox';
import { TOKEN_OPERATIONS, TOKEN_PARAMETERS, TOKEN_SCHEMAS } from './admin-tokens.js';
import { KEY_OPERATIONS, KEY_PARAMETERS, KEY_SCHEMAS } from './api-keys.js';
import { AUDIT_OPERATIONS, AUDIT_PARAMETERS, AUDIT_SCHEMAS } from './audit.js';
import { DOMAIN_OPERATIONS, DOMAIN_PARAMETERS, DOMAIN_SCHEMAS } from './domains.js';
import { PEOPLE_OPERATIONS, PEOPLE_PARAMETERS, PEOPLE_SCHEMAS } from './people.js';
import { REQUEST_OPERATIONS, REQUEST_PARAMETERS, REQUEST_SCHEMAS } from './requests.js';
import { ErrorSchema, NoQuery } from './schemas.js';
import { SESSION_OPERATIONS, SESSION_PARAMETERS, SESSION_SCHEMAS } from './sessions.js';
import { USAGE_OPERATIONS, USAGE_PARAMETERS, USAGE_SCHEMAS } from './usage.js';
import { WEBHOOK_OPERATIONS, WEBHOOK_PARAMETERS, WEBHOOK_SCHEMAS } from './webhooks.js';

/** The admin API's base path: outside `/v1`, versioned on its own. */
export const ADMIN_PREFIX = '/admin/v1';

/**
 * The admin API, assembled from each resource's module (its schemas and its slice of the operations), in the
 * order the document lists them: one table drives its routes, 405s, roles, scopes and the inventory tests.
 */
export const ADMIN_SCHEMAS = {
  ...PEOPLE_SCHEMAS,
  ...TOKEN_SCHEMAS,
  ...KEY_SCHEMAS,
  ...AUDIT_SCHEMAS,
  ...SESSION_SCHEMAS,
  ...USAGE_SCHEMAS,
  ...DOMAIN_SCHEMAS,
  ...REQUEST_SCHEMAS,
  ...WEBHOOK_SCHEMAS,
  Error: ErrorSchema,
} satisfies Record<string, TSchema>;
export type AdminSchemaName = keyof typeof ADMIN_SCHEMAS;

export const ADMIN_PARAMETER_SCHEMAS = {
  ...KEY_PARAMETERS,
  ...TOKEN_PARAMETERS,
  ...PEOPLE_PARAMETERS,
  ...DOMAIN_PARAMETERS,
  ...AUDIT_PARAMETERS,
  ...REQUEST_PARAMETERS,
  ...USAGE_PARAMETERS,
  ...WEBHOOK_PARAMETERS,
  ...SESSION_PARAMETERS,
  NoQuery,
} satisfies Record<string, TSchema>;
export type AdminParameterName = keyof typeof ADMIN_PARAMETER_SCHEMAS;

export const ADMIN_OPERATIONS = [
  ...KEY_OPERATIONS,
  ...TOKEN_OPERATIONS,
  ...PEOPLE_OPERATIONS,
  ...AUDIT_OPERATIONS,
  ...REQUEST_OPERATIONS,
  ...SESSION_OPERATIONS,
  ...USAGE_OPERATIONS,
  ...DOMAIN_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
] as const;

export type AdminOperationId = (typeof ADMIN_OPERATIONS)[number]['operationId'];
