import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { parseTimestamp } from '../clock/index.js';
import { ApiError } from '../errors/index.js';

/** A parameter written as a whole number in plain decimal digits: no sign, leading zero, exponent or fraction. */
const CANONICAL_INTEGER = /^(0|[1-9]\d*)$/;

/** The properties of an object schema, by name. */
type Properties = Record<string, { type?: unknown }>;

/**
 * Path and query parameters arrive as strings and are coerced to their schema's types, but Ajv's coercion
 * takes anything `Number()` takes: `1.0`, `1e0`, `+1` and ` 1` would all name pet 1. So before coercion
 * every integer parameter must be written canonically, and no parameter may be given twice (`?a=1&a=2`
 * arrives as an array, which no parameter of the contract is). Errors come in Ajv's shape, with keywords
 * of their own that `describeValidationError` words.
 */
function parameterValidator(validate: ValidateFunction, schema: { properties?: Properties }) {
  const properties = Object.entries(schema.properties ?? {});
  const check = (data: unknown): boolean => {
    const values = (data ?? {}) as Record<string, unknown>;
    for (const [name, property] of properties) {
      const value = values[name];
      const keyword = Array.isArray(value)
        ? 'repeated'
        : property.type === 'integer' && typeof value === 'string' && !CANONICAL_INTEGER.test(value)
          ? 'canonicalInteger'
          : undefined;
      if (keyword !== undefined) {
        check.errors = [{ keyword, instancePath: `/${name}`, schemaPath: '', params: {} }];
        return false;
      }
    }
    const valid = validate(data);
    check.errors = validate.errors ?? null;
    return valid;
  };
  check.errors = null as ErrorObject[] | null;
  return check;
}

/**
 * Two validators: bodies are checked exactly as sent (no type coercion, unknown fields refused rather than
 * silently removed), while path and query parameters, which arrive as strings, are coerced to their types
 * once they are written canonically.
 */
export function registerValidators(app: FastifyInstance): void {
  const common = {
    allErrors: false,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    // Formats are annotations: the contract checks what it needs with a pattern (dates) or a type.
    formats: { int32: true, int64: true, 'date-time': true },
    // Errors carry their schema, so a pattern's message can show the schema's example.
    verbose: true,
  } as const;
  const bodies = new Ajv({ ...common, coerceTypes: false });
  const parameters = new Ajv({ ...common, coerceTypes: true });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body'
      ? bodies.compile(schema)
      : parameterValidator(parameters.compile(schema), schema as { properties?: Properties }),
  );
}

const PART_NAMES: Record<string, string> = {
  body: 'request body',
  querystring: 'query string',
  params: 'path',
  headers: 'headers',
};

/** `1 character`, `100 characters`. */
const characters = (count: unknown) => `${String(count)} character${count === 1 ? '' : 's'}`;

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/**
 * The validation keywords the contract's schemas use, each worded by `describeValidationError`, plus the
 * two of `parameterValidator`. Annotations (`description`, `examples`, `default`, `format`) never fail.
 */
export const DESCRIBED_KEYWORDS = [
  'type',
  'required',
  'additionalProperties',
  'minLength',
  'maxLength',
  'pattern',
  'enum',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'anyOf',
  'canonicalInteger',
  'repeated',
] as const;

/** The first example the failing schema gives, if any. */
function exampleOf(error: ErrorObject): string | undefined {
  const examples = (error.parentSchema as { examples?: unknown[] } | undefined)?.examples;
  return typeof examples?.[0] === 'string' ? examples[0] : undefined;
}

/**
 * Turns the first validation error into a message that names the field at fault, in our words rather than
 * Ajv's: for example `name must be at most 100 characters long`, `unknown field 'id' in request body` or
 * `status must be one of available, pending, sold`.
 */
export function describeValidationError(error: ErrorObject, part: string): string {
  const where = PART_NAMES[part] ?? part;
  const path = error.instancePath.split('/').slice(1).join('.');
  const field = path === '' ? where : path;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword as (typeof DESCRIBED_KEYWORDS)[number]) {
    case 'required':
      return `${path === '' ? '' : `${path}.`}${String(params.missingProperty)} is required`;
    case 'additionalProperties': {
      // The name is the client's: a long one is not echoed whole.
      const name = String(params.additionalProperty);
      const shown = name.length > 100 ? `${name.slice(0, 100)}…` : name;
      return part === 'querystring' && path === ''
        ? `unknown query parameter '${shown}'`
        : `unknown field '${shown}' in ${path === '' ? where : path}`;
    }
    case 'type':
      return path === '' && part === 'body'
        ? 'Request body must be a JSON object'
        : `${field} must be ${article(String(params.type))}`;
    case 'minLength':
      return `${field} must be at least ${characters(params.limit)} long`;
    case 'maxLength':
      return `${field} must be at most ${characters(params.limit)} long`;
    case 'pattern':
      if (params.pattern === '\\S') return `${field} must contain a character other than whitespace`;
      return exampleOf(error) === undefined
        ? `${field} has an invalid format`
        : `${field} must look like ${exampleOf(error)}`;
    case 'enum':
      return `${field} must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'minimum':
      return `${field} must be at least ${String(params.limit)}`;
    case 'maximum':
      return `${field} must be at most ${String(params.limit)}`;
    case 'minItems':
      return `${field} must hold at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `${field} must hold at most ${String(params.limit)} item${params.limit === 1 ? '' : 's'}`;
    case 'uniqueItems':
      return `${field} must not name an item twice`;
    case 'minProperties':
      return path === '' && part === 'body'
        ? 'Request body must name at least one field'
        : `${field} must have at least ${String(params.limit)} fields`;
    case 'anyOf':
      // One of several shapes (a value or null): the first branch's own error says more, and comes first.
      return `${field} is not valid`;
    case 'canonicalInteger':
      return `${field} must be a whole number in plain decimal digits, such as 42 (no sign, leading zeros, exponent or fraction)`;
    case 'repeated':
      return `${field} must be given once`;
    default:
      // A keyword no schema of the contract uses today: never pass Ajv's own wording through.
      return `${field} is not valid`;
  }
}

/**
 * A time of a query (`from`, `to`) in milliseconds; undefined when not given. The schema let through only
 * RFC 3339's shape: a date that does not exist (February 30th) is 400 here, naming the field.
 */
export function queryTime(text: string | undefined, field: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseTimestamp(text);
  if (ms === undefined)
    throw new ApiError('validation_failed', `${field} is not a date and time that exists`);
  return ms;
}
