import type { DeprecationPolicy } from './policy.js';

/**
 * The headers of every answer of a deprecated operation: `Deprecation: @<unix seconds>` (RFC 9745),
 * `Sunset: <IMF-fixdate>` (RFC 8594) and `Link: <notice>; rel="deprecation"` (RFC 9745 section 3).
 */
export function deprecationHeaders(deprecation: DeprecationPolicy): Record<string, string> {
  return {
    deprecation: `@${Math.floor(deprecation.deprecatedAt.getTime() / 1000)}`,
    sunset: deprecation.sunsetAt.toUTCString(),
    link: `<${deprecation.link}>; rel="deprecation"`,
  };
}

/** From the sunset date on, the operation is gone. */
export function isPastSunset(deprecation: DeprecationPolicy, now: number): boolean {
  return now >= deprecation.sunsetAt.getTime();
}
