import { Badge, type Tone } from '../../../kit/components/badge.js';
import type { ApiKey, DeliveryState, DomainState, Webhook } from '../types.js';

const DOMAIN_STATES: Record<DomainState, { tone: Tone; label: string }> = {
  pending: { tone: 'info', label: 'Pending' },
  verified: { tone: 'good', label: 'Verified' },
  active: { tone: 'good', label: 'Active' },
  misconfigured: { tone: 'bad', label: 'Misconfigured' },
  certificate_failed: { tone: 'bad', label: 'Certificate failed' },
};

export function DomainStateBadge({ state }: { state: DomainState }) {
  const { tone, label } = DOMAIN_STATES[state];
  return <Badge tone={tone}>{label}</Badge>;
}

const KEY_STATES: Record<ApiKey['state'], { tone: Tone; label: string }> = {
  active: { tone: 'good', label: 'Active' },
  expired: { tone: 'neutral', label: 'Expired' },
  revoked: { tone: 'neutral', label: 'Revoked' },
  banned: { tone: 'bad', label: 'Banned' },
};

export function KeyStateBadge({ state }: { state: ApiKey['state'] }) {
  const { tone, label } = KEY_STATES[state];
  return <Badge tone={tone}>{label}</Badge>;
}

/** Why an endpoint stopped, in words. */
const DISABLED: Record<NonNullable<Webhook['disabledReason']>, string> = {
  manual: 'Disabled',
  gone: 'Disabled: answered 410 Gone',
  failing: 'Disabled: kept failing',
};

/** An endpoint's health: disabled (and why), failing since its last success, or healthy. */
export function WebhookHealthBadge({ webhook }: { webhook: Webhook }) {
  if (!webhook.enabled) {
    const reason = webhook.disabledReason ?? 'manual';
    return <Badge tone={reason === 'manual' ? 'neutral' : 'bad'}>{DISABLED[reason]}</Badge>;
  }
  return webhook.failingSince === null ? (
    <Badge tone="good">Healthy</Badge>
  ) : (
    <Badge tone="warn">Failing</Badge>
  );
}

const DELIVERY_STATES: Record<DeliveryState, { tone: Tone; label: string }> = {
  pending: { tone: 'info', label: 'Pending' },
  delivered: { tone: 'good', label: 'Delivered' },
  failed: { tone: 'bad', label: 'Failed' },
};

/** A delivery's state; a pending one that has been tried is retrying. */
export function DeliveryStateBadge({ state, attempts }: { state: DeliveryState; attempts: number }) {
  const { tone, label } = DELIVERY_STATES[state];
  return (
    <Badge tone={state === 'pending' && attempts > 0 ? 'warn' : tone}>
      {state === 'pending' && attempts > 0 ? 'Retrying' : label}
    </Badge>
  );
}
