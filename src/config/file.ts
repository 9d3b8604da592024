import { readFileSync } from 'node:fs';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
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
    ban: Type.Optional(
      Type.Object(
        {
          after: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
          durationSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 * 86_400 })),
        },
        { additionalProperties: false },
      ),
    ),
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
