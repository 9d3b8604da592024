import type { ComponentChildren } from 'preact';
import { CardTable } from '../../../kit/components/card-table.js';
import { Time } from '../../../kit/components/time.js';
import { formatNumber } from '../../../kit/format.js';
import { href } from '../router.js';
import type { AuditEvent } from '../types.js';

/**
 * A target as a link to its page when the console has one (keys, domains, webhook endpoints); admin token ids
 * stay text. An endpoint's target leads to its page in the console, never to its URL: the URL as the API
 * shows it has its credentials masked (`***`), which is no address to open, and the real one may carry
 * credentials or a capability token that a link would put in the browser's history.
 */
function Target({ event }: { event: AuditEvent }) {
  if (event.action.startsWith('key.')) return <a href={href('keys', event.target)}>{event.target}</a>;
  if (event.action.startsWith('domain.')) return <a href={href('domains', event.target)}>{event.target}</a>;
  if (event.action.startsWith('webhook.')) return <a href={href('webhooks', event.target)}>{event.target}</a>;
  return <code>{event.target}</code>;
}

/** The actors that are not admin tokens, in words. */
const SYSTEM_ACTORS: Record<string, string> = {
  cli: 'Command line',
  config: 'Config file',
  checker: 'Domain checker',
};

/** Who did it: the token's name (or what the actor is), with the id the filters take. */
function Actor({ event }: { event: AuditEvent }) {
  // A key that rotated or revoked itself (`/v1/key/rotate`, `/v1/key/revoke`) acts as its own id.
  const ownKey = event.actor.startsWith('key_') ? 'The key itself' : undefined;
  const name = event.actorName ?? SYSTEM_ACTORS[event.actor] ?? ownKey;
  if (name === undefined) return <code>{event.actor}</code>;
  return (
    <>
      <span class="break">{name}</span> <code class="muted">{event.actor}</code>
    </>
  );
}

/** `2 hours`, `90 minutes`, `45 seconds`: a grace period as the rotate form asked for it. */
function duration(seconds: number): string {
  const [amount, unit] =
    seconds % 3600 === 0
      ? [seconds / 3600, 'hour']
      : seconds % 60 === 0
        ? [seconds / 60, 'minute']
        : [seconds, 'second'];
  return `${formatNumber(amount)} ${unit}${amount === 1 ? '' : 's'}`;
}

const isLimits = (value: unknown): value is { perMinute: number; perDay: number } =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { perMinute?: unknown }).perMinute === 'number' &&
  typeof (value as { perDay?: unknown }).perDay === 'number';

/**
 * The words of the details fields the API records, by name; a field not listed keeps its own name. Each
 * knows what its null means: limits of null are the plan's, an expiry of null is never.
 */
const FIELDS: Record<string, { label: string; show?: (value: unknown) => ComponentChildren }> = {
  name: { label: 'name' },
  plan: { label: 'plan' },
  limits: {
    label: 'limits',
    show: (value) =>
      isLimits(value)
        ? `${formatNumber(value.perMinute)} a minute, ${formatNumber(value.perDay)} a day`
        : value === null
          ? 'the plan’s'
          : undefined,
  },
  scopes: { label: 'scopes' },
  expiresAt: {
    label: 'expires',
    show: (value) =>
      value === null ? 'never' : typeof value === 'string' ? <Time iso={value} /> : undefined,
  },
  first: { label: 'first key' },
  successor: {
    label: 'new key',
    show: (value) => (typeof value === 'string' ? <a href={href('keys', value)}>{value}</a> : undefined),
  },
  gracePeriodSeconds: {
    label: 'grace period',
    show: (value) =>
      value === 0
        ? 'none: the old key stopped at once'
        : typeof value === 'number'
          ? duration(value)
          : undefined,
  },
  oldKeyEndsAt: {
    label: 'old key works until',
    show: (value) => (typeof value === 'string' ? <Time iso={value} /> : undefined),
  },
  previousSecretUntil: {
    label: 'previous secret signs until',
    show: (value) => (typeof value === 'string' ? <Time iso={value} /> : undefined),
  },
  primary: { label: 'primary' },
  redirectTo: {
    label: 'redirects to',
    show: (value) => (value === null ? 'nowhere (serves the reference)' : undefined),
  },
  redirectStatus: { label: 'redirect status' },
  from: { label: 'from' },
  to: { label: 'to' },
  reason: { label: 'why' },
};

/** An RFC 3339 time as the API writes one, such as `2026-11-26T10:23:45.120Z`. */
const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/;

/**
 * Any value in words: a time as the console shows times, text as it is, lists joined, yes or no, numbers
 * grouped; null is `none`.
 */
function plainValue(value: unknown): ComponentChildren {
  if (typeof value === 'string') return INSTANT.test(value) ? <Time iso={value} /> : value;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return formatNumber(value);
  if (value === null) return 'none';
  if (Array.isArray(value) && value.every((item) => typeof item === 'string'))
    return value.length === 0 ? 'none' : value.join(', ');
  return JSON.stringify(value);
}

/**
 * What changed, as `name: value` in words; values are shown as text, never as markup. A domain's redirect
 * status is left out when it has no redirect: it says nothing the redirect does not.
 */
function Details({ details }: { details: Record<string, unknown> }) {
  const entries = Object.entries(details).filter(
    ([name, value]) => !(name === 'redirectStatus' && value === null),
  );
  if (entries.length === 0) return <span class="muted">—</span>;
  return (
    <dl class="details">
      {entries.map(([name, value]) => {
        const field = FIELDS[name];
        return (
          <div key={name}>
            <dt>{field?.label ?? name}</dt>
            <dd>{field?.show?.(value) ?? plainValue(value)}</dd>
          </div>
        );
      })}
    </dl>
  );
}

/** Audit events, newest first, as the API lists them; on a phone each is a card. */
export function AuditTable({ events, caption }: { events: AuditEvent[]; caption: string }) {
  if (events.length === 0) return <p class="muted">No events.</p>;
  return (
    <CardTable
      caption={caption}
      class="wide"
      rows={events}
      rowKey={(event) => event.id}
      name={{ header: 'Action', cell: (event) => <code>{event.action}</code> }}
      columns={[
        { header: 'Target', cell: (event) => <Target event={event} /> },
        { header: 'When', cell: (event) => <Time iso={event.at} /> },
        { header: 'Actor', cell: (event) => <Actor event={event} /> },
        { header: 'Details', class: 'stacked', cell: (event) => <Details details={event.details} /> },
      ]}
    />
  );
}
