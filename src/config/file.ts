import { readFileSync } from 'node:fs';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { DomainsFileSchema } from '../domains/index.js';
import { DEFAULT_POLICY, type RateLimitPolicy } from '../ratelimit/policy.js';

const LimitsSchema = Type.Object(
  {
    perMinute: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
    perDay: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
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
    deprecation: Type.Optional(
      Type.Object(
        {
          deprecatedAt: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}' })),
          sunsetAt: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}' })),
          link: Type.Optional(Type.String({ pattern: '^https?://\\S+$' })),
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
    domains: Type.Optional(DomainsFileSchema),
  },
  { additionalProperties: false },
);

export type ConfigFile = Static<typeof FileSchema>;

/** Reads and checks the config file; returns the problems found, each naming the file and the field. */
export function readConfigFile(file: string): { value: ConfigFile; problems: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return {
      value: {},
      problems: [`PETSTORE_CONFIG ${file} cannot be read as JSON: ${(error as Error).message}`],
    };
  }
  const problems = [...Value.Errors(FileSchema, parsed)].map(
    (error) => `PETSTORE_CONFIG ${file}: ${error.path || '/'} ${error.message}`,
  );
  return { value: problems.length === 0 ? (parsed as ConfigFile) : {}, problems };
}

/** The rate-limit policy: DESIGN.md's defaults, overridden by the config file where it says so. */
export function rateLimitPolicy(file: ConfigFile): RateLimitPolicy {
  return {
    plans: {
      free: file.plans?.free ?? DEFAULT_POLICY.plans.free,
      pro: file.plans?.pro ?? DEFAULT_POLICY.plans.pro,
      business: file.plans?.business ?? DEFAULT_POLICY.plans.business,
    },
    anonymous: file.anonymous ?? DEFAULT_POLICY.anonymous,
    ban: {
      after: file.ban?.after ?? DEFAULT_POLICY.ban.after,
      durationMs: (file.ban?.durationSeconds ?? DEFAULT_POLICY.ban.durationMs / 1000) * 1000,
    },
  };
}

/** DESIGN.md section 5: `GET /pets/{petId}` deprecated on 2026-11-01, sunset on 2027-06-30. */
const DEFAULT_DEPRECATION = { deprecatedAt: '2026-11-01', sunsetAt: '2027-06-30' };

export interface Deprecation {
  deprecatedAt: Date;
  sunsetAt: Date;
  /** Where the deprecation notice is, for the `Link` header. */
  link: string;
}

/**
 * The dates of the deprecated endpoint. Both must be valid dates, and the sunset may not come before the
 * deprecation (RFC 8594 section 3).
 */
export function deprecationOf(
  file: ConfigFile,
  productionUrl: string,
): { value: Deprecation; problems: string[] } {
  const deprecatedAt = new Date(file.deprecation?.deprecatedAt ?? DEFAULT_DEPRECATION.deprecatedAt);
  const sunsetAt = new Date(file.deprecation?.sunsetAt ?? DEFAULT_DEPRECATION.sunsetAt);
  const link = file.deprecation?.link ?? `${new URL(productionUrl).origin}/docs#deprecations`;
  const problems: string[] = [];
  if (Number.isNaN(deprecatedAt.getTime()))
    problems.push('PETSTORE_CONFIG deprecation.deprecatedAt is not a date');
  if (Number.isNaN(sunsetAt.getTime())) problems.push('PETSTORE_CONFIG deprecation.sunsetAt is not a date');
  if (problems.length === 0 && sunsetAt < deprecatedAt) {
    problems.push('PETSTORE_CONFIG deprecation.sunsetAt must not be earlier than deprecation.deprecatedAt');
  }
  return { value: { deprecatedAt, sunsetAt, link }, problems };
}
