import { ADMIN_OPERATIONS, ADMIN_PARAMETER_SCHEMAS, ADMIN_PREFIX, ADMIN_SCHEMAS } from './admin.js';
import type { ApiDescription } from './document.js';
import { OPERATIONS } from './operations.js';
import { PARAMETER_SCHEMAS, SCHEMAS } from './schemas.js';

/** The path prefix that carries the major version (spec section 9). */
export const API_PREFIX = '/v1';

/** The pet store API. */
export const V1_API: ApiDescription = {
  prefix: API_PREFIX,
  operations: OPERATIONS,
  schemas: SCHEMAS,
  parameters: PARAMETER_SCHEMAS,
};

/** The admin API, for software that manages keys. */
export const ADMIN_API: ApiDescription = {
  prefix: ADMIN_PREFIX,
  operations: ADMIN_OPERATIONS,
  schemas: ADMIN_SCHEMAS,
  parameters: ADMIN_PARAMETER_SCHEMAS,
};
