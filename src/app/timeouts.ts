/**
 * HTTP timeouts, in milliseconds. Node checks headers and request deadlines every `checkInterval`, so a
 * client that trickles its headers is cut off within `headers + checkInterval` (11 s) and one that trickles
 * its body within `request + checkInterval` (14 s, leaving a second's headroom under the 15 s promise). Keep-alive outlives a load balancer's usual 60 s idle
 * timeout, so the balancer, not us, closes idle connections (BENCHMARKS.md item 8).
 */
export const HTTP_TIMEOUTS = {
  headers: 10_000,
  request: 13_000,
  checkInterval: 1_000,
  keepAlive: 65_000,
  /** How long SIGTERM waits for in-flight requests before the process exits anyway. */
  drain: 9_000,
} as const;
