import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { type Static, Type } from '@sinclair/typebox';
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import type { RateLimitPolicy } from '../ratelimit/index.js';
import type { DeprecationPolicy } from '../versioning/index.js';
import { DEFAULT_DEPRECATION, DEFAULT_RATE_LIMIT_POLICY } from './defaults.js';

const LimitsSchema = Type.Object(
  {
    perMinute: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
    perDay: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
  },
  { additionalProperties: false },
);

/**
 * The `domains` block, as written: its shape is checked here, its values (host names, statuses, chains) by
 * the domains capability, whose messages name the field at fault.
 */
const DomainsSchema = Type.Object(
  {
    primary: Type.String(),
    redirects: Type.Optional(
      Type.Array(
        Type.Object(
          { from: Type.String(), to: Type.String(), status: Type.Integer() },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

/** The optional JSON file named by `PETSTORE_CONFIG`. Unknown keys are refused, so typos do not pass silently. */
const FileSchema = Type.Object(
  {
    plans: Type.Optional(
      Type.Object(
        {
          free: Type.Optional(LimitsSchema),
          pro: Type.Optional(LimitsSchema),
          business: Type.Optional(LimitsSchema),
        },
        { additionalProperties: false },
      ),
    ),
    anonymous: Type.Optional(LimitsSchema),
    admin: Type.Optional(LimitsSchema),
    requestLogReads: Type.Optional(LimitsSchema),
    deprecation: Type.Optional(
      Type.Object(
        {
          deprecatedAt: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}' })),
          sunsetAt: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}' })),
          // An absolute http(s) URL, or a path on the service's own origin.
          link: Type.Optional(Type.String({ pattern: '^(https?://|/)\\S*$' })),
        },
        { additionalProperties: false },
      ),
    ),
    ban: Type.Optional(
      Type.Object(
        {
          after: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
          durationSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 * 86_400 })),
        },
        { additionalProperties: false },
      ),
    ),
    domains: Type.Optional(DomainsSchema),
  },
  { additionalProperties: false },
);

export type ConfigFile = Static<typeof FileSchema>;

/** Reads and checks the config file; returns the problems found, each naming the file and the field. */
export function readConfigFile(file: string): { value: ConfigFile; problems: string[] } {
  let parsed: unknown;
  try {
    const bytes = readFileSync(file);
    // Read as UTF-8, other bytes would become U+FFFD in names and links without a word.
    if (!isUtf8(bytes)) throw new Error('the file is not UTF-8 text');
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return {
      value: {},
      problems: [`PETSTORE_CONFIG ${file} cannot be read as JSON: ${(error as Error).message}`],
    };
  }
  // One problem a field: TypeBox reports a missing field once as missing and again as not a number.
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const error of Value.Errors(FileSchema, parsed)) {
    const field = fieldOf(error.path);
    if (seen.has(field)) continue;
    seen.add(field);
    problems.push(`PETSTORE_CONFIG ${file}: ${describeFileError(error, field)}`);
  }
  if (problems.length === 0) problems.push(...limitProblems(file, parsed as ConfigFile));
  return { value: problems.length === 0 ? (parsed as ConfigFile) : {}, problems };
}

/** A JSON pointer as the docs name fields: `/plans/prro` is `plans.prro`. */
function fieldOf(pointer: string): string {
  return pointer.replace(/^\//, '').replaceAll('/', '.') || 'the file';
}

/**
 * One problem of the file in words: the field, what it must be and what it is. An unknown field lists the
 * fields that are known there, so that `plans.prro` says which plans there are.
 */
function describeFileError(error: ValueError, field: string): string {
  const schema = error.schema as { properties?: Record<string, unknown>; minimum?: number; maximum?: number };
  const got = JSON.stringify(error.value);
  switch (error.type) {
    case ValueErrorType.ObjectAdditionalProperties: {
      const parent = field.includes('.') ? field.slice(0, field.lastIndexOf('.')) : 'the file';
      const known = Object.keys(schema.properties ?? {});
      const plans = parent === 'plans' ? ' (enterprise limits are set per key)' : '';
      return `${field} is not a setting: ${parent} takes ${known.join(', ')}${plans}`;
    }
    case ValueErrorType.ObjectRequiredProperty:
      return `${field} is required`;
    case ValueErrorType.Integer:
      return `${field} must be a whole number (got ${got})`;
    case ValueErrorType.IntegerMinimum:
      return `${field} must be at least ${schema.minimum} (got ${got})`;
    case ValueErrorType.IntegerMaximum:
      return `${field} must be at most ${schema.maximum} (got ${got})`;
    case ValueErrorType.Object:
      return `${field} must be an object (got ${got})`;
    case ValueErrorType.String:
      return `${field} must be a string (got ${got})`;
    case ValueErrorType.StringPattern:
      return `${field} has an invalid format (got ${got})`;
    case ValueErrorType.Array:
      return `${field} must be a list (got ${got})`;
    default:
      return `${field}: ${error.message} (got ${got})`;
  }
}

/** A day holds every minute of it: a day limit below the minute limit is a typo, not a policy. */
function limitProblems(file: string, config: ConfigFile): string[] {
  const entries: [string, { perMinute: number; perDay: number } | undefined][] = [
    ['plans.free', config.plans?.free],
    ['plans.pro', config.plans?.pro],
    ['plans.business', config.plans?.business],
    ['anonymous', config.anonymous],
    ['admin', config.admin],
    ['requestLogReads', config.requestLogReads],
  ];
  return entries
    .filter(([, limits]) => limits !== undefined && limits.perDay < limits.perMinute)
    .map(
      ([field, limits]) =>
        `PETSTORE_CONFIG ${file}: ${field}.perDay (${limits?.perDay}) must be at least ${field}.perMinute (${limits?.perMinute})`,
    );
}

/** The rate-limit policy: DESIGN.md's defaults, overridden by the config file where it says so. */
export function rateLimitPolicy(file: ConfigFile): RateLimitPolicy {
  return {
    plans: {
      free: file.plans?.free ?? DEFAULT_RATE_LIMIT_POLICY.plans.free,
      pro: file.plans?.pro ?? DEFAULT_RATE_LIMIT_POLICY.plans.pro,
      business: file.plans?.business ?? DEFAULT_RATE_LIMIT_POLICY.plans.business,
    },
    anonymous: file.anonymous ?? DEFAULT_RATE_LIMIT_POLICY.anonymous,
    admin: file.admin ?? DEFAULT_RATE_LIMIT_POLICY.admin,
    requestLogReads: file.requestLogReads ?? DEFAULT_RATE_LIMIT_POLICY.requestLogReads,
    ban: {
      after: file.ban?.after ?? DEFAULT_RATE_LIMIT_POLICY.ban.after,
      durationMs: (file.ban?.durationSeconds ?? DEFAULT_RATE_LIMIT_POLICY.ban.durationMs / 1000) * 1000,
    },
  };
}

/**
 * Where the deprecation notice is, beside the API's public base URL (`https://host/prefix/v1` gives
 * `https://host/prefix/docs#deprecations`). Without one, a reference relative to the request's own origin,
 * which a client resolves against the URL it called (RFC 8288 section 3.1): never a host the service is not at.
 */
function noticeUrl(publicUrl: string | undefined): string {
  return publicUrl === undefined
    ? '/docs#deprecations'
    : `${publicUrl.slice(0, -'/v1'.length)}/docs#deprecations`;
}

/**
 * The dates of the deprecated endpoint. Both must be valid dates, and the sunset may not come before the
 * deprecation (RFC 8594 section 3).
 */
export function deprecationOf(
  file: ConfigFile,
  publicUrl: string | undefined,
): { value: DeprecationPolicy; problems: string[] } {
  const deprecatedAt = new Date(file.deprecation?.deprecatedAt ?? DEFAULT_DEPRECATION.deprecatedAt);
  const sunsetAt = new Date(file.deprecation?.sunsetAt ?? DEFAULT_DEPRECATION.sunsetAt);
  const link = file.deprecation?.link ?? noticeUrl(publicUrl);
  const problems: string[] = [];
  if (Number.isNaN(deprecatedAt.getTime()))
    problems.push('PETSTORE_CONFIG deprecation.deprecatedAt is not a date');
  if (Number.isNaN(sunsetAt.getTime())) problems.push('PETSTORE_CONFIG deprecation.sunsetAt is not a date');
  if (problems.length === 0 && sunsetAt < deprecatedAt) {
    problems.push('PETSTORE_CONFIG deprecation.sunsetAt must not be earlier than deprecation.deprecatedAt');
  }
  return { value: { deprecatedAt, sunsetAt, link }, problems };
}
