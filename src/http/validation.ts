import { Ajv, type ErrorObject } from 'ajv';
import type { FastifyInstance } from 'fastify';

/**
 * Two validators: bodies are checked exactly as sent (no type coercion, unknown fields refused rather than
 * silently removed), while path and query parameters, which arrive as strings, are coerced to their types.
 */
export function registerValidators(app: FastifyInstance): void {
  const common = {
    allErrors: false,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    formats: { int32: true, int64: true },
  } as const;
  const bodies = new Ajv({ ...common, coerceTypes: false });
  const parameters = new Ajv({ ...common, coerceTypes: true });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodies : parameters).compile(schema),
  );
}

const PART_NAMES: Record<string, string> = {
  body: 'request body',
  querystring: 'query string',
  params: 'path',
  headers: 'headers',
};

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/**
 * Turns the first validation error into a message that names the field at fault, for example
 * `name must be at most 100 characters long` or `unknown field 'id' in request body`.
 */
export function describeValidationError(error: ErrorObject, part: string): string {
  const where = PART_NAMES[part] ?? part;
  const path = error.instancePath.split('/').slice(1).join('.');
  const field = path === '' ? where : path;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${path === '' ? '' : `${path}.`}${String(params.missingProperty)} is required`;
    case 'additionalProperties':
      return `unknown field '${String(params.additionalProperty)}' in ${path === '' ? where : path}`;
    case 'type':
      return path === '' && part === 'body'
        ? 'Request body must be a JSON object'
        : `${field} must be ${article(String(params.type))}`;
    case 'minLength':
      return `${field} must be at least ${String(params.limit)} characters long`;
    case 'maxLength':
      return `${field} must be at most ${String(params.limit)} characters long`;
    case 'pattern':
      return params.pattern === '\\S'
        ? `${field} must contain a character other than whitespace`
        : `${field} has an invalid format`;
    case 'enum':
      return `${field} must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'minimum':
    case 'maximum':
      return `${field} must be ${error.keyword === 'minimum' ? '>=' : '<='} ${String(params.limit)}`;
    default:
      return `${field} ${error.message ?? 'is invalid'}`;
  }
}
