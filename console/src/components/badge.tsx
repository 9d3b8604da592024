import type { ComponentChildren } from 'preact';
import type { ApiKey, DomainState } from '../types.js';

export type Tone = 'good' | 'warn' | 'bad' | 'neutral' | 'info';

/** A short label with a tone; the words carry the meaning, the colour only repeats it. */
export function Badge({ tone, children }: { tone: Tone; children: ComponentChildren }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}

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
