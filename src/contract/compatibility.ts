/**
 * The versioning policy's gate (docs/api.md, "Versioning policy"): which changes between a released document and
 * the one the code serves are breaking, and whether the policy allows each.
 *
 * Written here rather than taken from a contract-diff package: the maintained one on the npm registry
 * (api-smart-diff 1.0) reads OpenAPI 3.0, and on our 3.1 documents it reported 960 "breaking" changes
 * between 1.0.0 and now, nearly all of them an enum written as `anyOf` of `const` becoming `enum` (the same
 * values). The rules below are the policy's own list, over both documents with their `$ref`s resolved.
 */

type Json = Record<string, unknown>;

/** One breaking change, where it is, and whether the policy allows it (and why). */
export interface BreakingChange {
  /** `GET /pets` and the like, or `components` for what no operation names. */
  operation: string;
  where: string;
  change: string;
  /** Why the policy allows it, when it does: the operation is experimental, or deprecated long enough. */
  allowedBecause: string | undefined;
}

/** Days of notice before a breaking change, by stability (experimental: none). */
export const NOTICE_DAYS = { stable: 180, beta: 30 } as const;

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'];
const DAY_MS = 86_400_000;

/** Resolves local `$ref`s (`#/components/...`) throughout a value. */
function resolver(document: Json): (value: unknown) => unknown {
  const seen = new Map<string, unknown>();
  const lookup = (ref: string): unknown =>
    ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], document);
  const resolve = (value: unknown, depth = 0): unknown => {
    if (depth > 40 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item) => resolve(item, depth + 1));
    const ref = (value as Json).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/')) {
      if (!seen.has(ref)) {
        seen.set(ref, {});
        seen.set(ref, resolve(lookup(ref), depth + 1));
      }
      return seen.get(ref);
    }
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolve(item, depth + 1)]));
  };
  return resolve;
}

/** The values a schema allows when it is an enumeration (`enum`, or `anyOf`/`oneOf` of `const`s). */
function enumValues(schema: Json | undefined): unknown[] | undefined {
  if (schema === undefined) return undefined;
  if (Array.isArray(schema.enum)) return schema.enum;
  if ('const' in schema) return [schema.const];
  const options = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (!Array.isArray(options)) return undefined;
  const values = options.map((option) => enumValues(option));
  return values.every((value) => value !== undefined) ? values.flat() : undefined;
}

/** The JSON type of a schema; an `anyOf` of `const`s has its options' type (`string` for a string enum). */
function typeOf(schema: Json | undefined): unknown {
  if (schema === undefined) return undefined;
  if (schema.type !== undefined) return schema.type;
  const options = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  const types = new Set(Array.isArray(options) ? options.map((option) => typeOf(option)) : []);
  return types.size === 1 ? [...types][0] : undefined;
}

/** Says where a breaking change is, and what it is. */
type Report = (where: string, change: string) => void;

/** What breaks a schema whichever way it travels: its type changed, or an enumeration lost values. */
function narrowedEither(before: Json, after: Json, where: string, out: Report) {
  if (typeOf(before) !== typeOf(after) && typeOf(before) !== undefined) {
    out(where, `type ${String(typeOf(before))} became ${String(typeOf(after))}`);
  }
  const wasValues = enumValues(before);
  const nowValues = enumValues(after);
  if (wasValues !== undefined && nowValues !== undefined) {
    for (const value of wasValues)
      if (!nowValues.includes(value)) out(where, `value ${JSON.stringify(value)} removed`);
  }
}

/**
 * What narrows in a schema that clients send (a request body, a parameter), beside its fields: a bound
 * that tightened, a pattern, a field that became required.
 */
function narrowedInput(before: Json, after: Json, where: string, out: Report) {
  const tighter: [string, (a: number, b: number) => boolean][] = [
    ['maxLength', (a, b) => b < a],
    ['maximum', (a, b) => b < a],
    ['maxItems', (a, b) => b < a],
    ['minLength', (a, b) => b > a],
    ['minimum', (a, b) => b > a],
    ['minItems', (a, b) => b > a],
  ];
  for (const [bound, isTighter] of tighter) {
    const was = before[bound];
    const now = after[bound];
    if (typeof now === 'number' && (typeof was !== 'number' || isTighter(was, now))) {
      out(where, `${bound} ${was === undefined ? 'added' : `${String(was)} ->`} ${now}`);
    }
  }
  if (after.pattern !== undefined && after.pattern !== before.pattern)
    out(where, `pattern ${String(after.pattern)}`);
  const wasRequired = new Set((before.required ?? []) as string[]);
  for (const name of (after.required ?? []) as string[]) {
    if (!wasRequired.has(name)) out(`${where}.${name}`, 'became required');
  }
}

/** What a client that reads an answer loses, beside its fields' own changes: a field no longer always there. */
function narrowedOutput(before: Json, after: Json, where: string, out: Report) {
  const nowProperties = (after.properties ?? {}) as Record<string, Json>;
  const nowRequired = new Set((after.required ?? []) as string[]);
  for (const name of (before.required ?? []) as string[]) {
    if (!nowRequired.has(name))
      out(`${where}.${name}`, name in nowProperties ? 'no longer always present' : 'removed');
  }
}

/**
 * What narrows in a schema, its fields and its items, by the way it travels. One that clients send (a
 * request body, a parameter) narrows with a type that changed, a bound that tightened, an enumeration that
 * lost values, a field that became required or disappeared (a client that sends it gets a 400: unknown
 * fields are refused). One that clients read (an answer) narrows with a field that disappeared or stopped
 * being always there, a type that changed, an enumeration value removed (the policy lists every removed
 * value as breaking). A new field or a new enumeration value in an answer is not: the policy asks clients
 * to ignore fields and tolerate values they do not know, as GitHub's and Stripe's do.
 */
function narrowed(
  travels: 'sent' | 'read',
  before: Json | undefined,
  after: Json | undefined,
  where: string,
  out: Report,
) {
  if (before === undefined || after === undefined) return;
  narrowedEither(before, after, where, out);
  if (travels === 'sent') narrowedInput(before, after, where, out);
  else narrowedOutput(before, after, where, out);
  const wasProperties = (before.properties ?? {}) as Record<string, Json>;
  const nowProperties = (after.properties ?? {}) as Record<string, Json>;
  for (const [name, property] of Object.entries(wasProperties)) {
    if (name in nowProperties) narrowed(travels, property, nowProperties[name], `${where}.${name}`, out);
    // An answer's field removed is told only when it was required (narrowedOutput): an optional one was never promised.
    else if (travels === 'sent') out(`${where}.${name}`, 'removed');
  }
  if (before.items !== undefined)
    narrowed(travels, before.items as Json, after.items as Json, `${where}[]`, out);
}

function operationsOf(document: Json): Map<string, Json> {
  const operations = new Map<string, Json>();
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (operation !== undefined) operations.set(`${method.toUpperCase()} ${path}`, operation);
    }
  }
  return operations;
}

function parametersOf(operation: Json): Map<string, Json> {
  return new Map(
    ((operation.parameters ?? []) as Json[]).map((parameter) => [
      `${String(parameter.in)} ${String(parameter.name)}`,
      parameter,
    ]),
  );
}

const bodySchema = (node: Json | undefined) =>
  ((node?.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema as Json | undefined;

/**
 * Why the policy allows a breaking change to an operation at `now`, if it does: it is experimental (in the
 * release, or now), or it is deprecated with a sunset at least its notice period away (marked now, or, for
 * an operation removed, in the release).
 */
function allowance(released: Json, current: Json | undefined, now: number): string | undefined {
  const marked = [current, released].filter((operation): operation is Json => operation !== undefined);
  if (marked.some((operation) => operation['x-stability'] === 'experimental')) {
    return 'the operation is experimental';
  }
  const notice = (current ?? released) as Json;
  const sunset = notice['x-sunset'];
  if (notice.deprecated === true && typeof sunset === 'string') {
    const days = notice['x-stability'] === 'beta' ? NOTICE_DAYS.beta : NOTICE_DAYS.stable;
    if (Date.parse(sunset) >= now + days * DAY_MS) {
      return `deprecated, with its sunset (${sunset}) at least ${days} days away`;
    }
  }
  return undefined;
}

/**
 * Every breaking change from `released` to `current`, by the policy's list: an operation, a response
 * status, a parameter or a field removed; a request narrowed (type, bounds, pattern, enum values, a field
 * or parameter made required); an answer narrowed (a field removed or no longer always present, a type
 * changed). Additions (operations, optional fields and parameters, statuses, error codes) are not listed.
 */
export function breakingChanges(released: Json, current: Json, now: number): BreakingChange[] {
  const before = resolver(released);
  const after = resolver(current);
  const changes: BreakingChange[] = [];
  const nowOperations = operationsOf(current);
  for (const [name, was] of operationsOf(released)) {
    const operation = nowOperations.get(name);
    const allowedBecause = allowance(was, operation, now);
    const out = (where: string, change: string) =>
      changes.push({ operation: name, where, change, allowedBecause });
    if (operation === undefined) {
      out('operation', 'removed');
      continue;
    }
    const wasParameters = parametersOf(was);
    const nowParameters = parametersOf(operation);
    for (const [key, parameter] of wasParameters) {
      const kept = nowParameters.get(key);
      if (kept === undefined) out(`parameter ${key}`, 'removed');
      else
        narrowed(
          'sent',
          before(parameter.schema) as Json,
          after(kept.schema) as Json,
          `parameter ${key}`,
          out,
        );
    }
    for (const [key, parameter] of nowParameters) {
      if (parameter.required === true && wasParameters.get(key)?.required !== true)
        out(`parameter ${key}`, 'became required');
    }
    const wasBody = bodySchema(before(was.requestBody) as Json | undefined);
    const nowBody = bodySchema(after(operation.requestBody) as Json | undefined);
    if (wasBody !== undefined && nowBody === undefined) out('request body', 'removed');
    narrowed('sent', before(wasBody) as Json, after(nowBody) as Json, 'request body', out);
    const wasResponses = (was.responses ?? {}) as Record<string, Json>;
    const nowResponses = (operation.responses ?? {}) as Record<string, Json>;
    for (const [status, response] of Object.entries(wasResponses)) {
      if (!(status in nowResponses)) {
        out(`response ${status}`, 'removed');
        continue;
      }
      narrowed(
        'read',
        bodySchema(before(response) as Json),
        bodySchema(after(nowResponses[status]) as Json),
        `response ${status}`,
        out,
      );
    }
  }
  return changes;
}
