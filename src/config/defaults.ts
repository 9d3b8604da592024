import type { RateLimitPolicy } from '../ratelimit/index.js';

/** The spec's plan table (section 8) and DESIGN.md section 4's ban and anonymous defaults. */
export const DEFAULT_RATE_LIMIT_POLICY: RateLimitPolicy = {
  plans: {
    free: { perMinute: 60, perDay: 1_000 },
    pro: { perMinute: 300, perDay: 10_000 },
    business: { perMinute: 1_000, perDay: 100_000 },
  },
  anonymous: { perMinute: 60, perDay: 1_000 },
  // Each admin token: enough for a dashboard and a signup flow, not for a runaway script.
  admin: { perMinute: 600, perDay: 50_000 },
  // Each key's reads of its own request log (`GET /v1/key/requests`): each reads up to 200 rows, and writes
  // one, so a script that polls it cannot load the log's store; a person and the key page need far fewer.
  requestLogReads: { perMinute: 30, perDay: 2_000 },
  ban: { after: 60, durationMs: 15 * 60_000 },
};

/** DESIGN.md section 5: `GET /pets/{petId}` deprecated on 2026-11-01, sunset on 2027-06-30. */
export const DEFAULT_DEPRECATION = { deprecatedAt: '2026-11-01', sunsetAt: '2027-06-30' };
