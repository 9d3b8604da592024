// The event catalogue on its own, without the schemas: the console lists it in its picker and bundles
// nothing else of the contract at run time.

/**
 * The events a webhook endpoint can subscribe to (DESIGN.md section 12): a closed list, in the order the
 * guide's catalogue presents them. The resource events first, then the operators'.
 */
export const EVENT_TYPES = [
  'category.created',
  'pet.created',
  'order.placed',
  'key.created',
  'key.rotated',
  'key.revoked',
  'key.expiring',
  'key.banned',
  'key.usage_threshold',
  'domain.verified',
  'domain.misconfigured',
  'domain.certificate_failed',
  'domain.removed',
  'webhook.endpoint_disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
