import { formatTime } from '../format.js';
import { href } from '../router.js';
import type { AuditEvent } from '../types.js';

/** A target as a link to its page when the console has one (keys, domains); admin token ids stay text. */
function Target({ event }: { event: AuditEvent }) {
  if (event.action.startsWith('key.')) return <a href={href('keys', event.target)}>{event.target}</a>;
  if (event.action.startsWith('domain.')) return <a href={href('domains', event.target)}>{event.target}</a>;
  return <code>{event.target}</code>;
}

/** A detail's value: strings as they are, lists joined, anything else as JSON. */
const valueText = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : Array.isArray(value) && value.every((item) => typeof item === 'string')
      ? value.join(', ')
      : JSON.stringify(value);

/** What changed, as `name: value` pairs; values are shown as JSON text, never as markup. */
function Details({ details }: { details: Record<string, unknown> }) {
  const entries = Object.entries(details);
  if (entries.length === 0) return <span class="muted">—</span>;
  return (
    <dl class="details">
      {entries.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{valueText(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Audit events, newest first, as the API lists them. */
export function AuditTable({ events, caption }: { events: AuditEvent[]; caption: string }) {
  if (events.length === 0) return <p class="muted">No events.</p>;
  return (
    <div class="table-scroll">
      <table class="wide">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Actor</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <tr key={event.id}>
              <td class="nowrap">{formatTime(event.at)}</td>
              <td>
                <code>{event.actor}</code>
              </td>
              <td>
                <code>{event.action}</code>
              </td>
              <td>
                <Target event={event} />
              </td>
              <td>
                <Details details={event.details} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
