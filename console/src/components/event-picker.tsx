import { EVENT_TYPES } from '../../../src/contract/event-types.js';
import type { EventType } from '../types.js';

/** The catalogue grouped as the guide presents it: what the store's clients do, then the operator's events. */
const GROUPS: { legend: string; prefixes: string[] }[] = [
  { legend: 'Store', prefixes: ['category.', 'pet.', 'order.'] },
  { legend: 'API keys', prefixes: ['key.'] },
  { legend: 'Domains', prefixes: ['domain.'] },
  { legend: 'Webhooks', prefixes: ['webhook.'] },
];

const inGroup = (prefixes: string[]) =>
  EVENT_TYPES.filter((type) => prefixes.some((prefix) => type.startsWith(prefix)));

/**
 * Which event types an endpoint receives: a check box for each type of the catalogue, in its groups, with
 * the type's own name (what the receiver sees in `type`).
 */
export function EventPicker({
  selected,
  onChange,
}: {
  selected: EventType[];
  onChange: (events: EventType[]) => void;
}) {
  const toggle = (type: EventType, on: boolean) =>
    onChange(EVENT_TYPES.filter((name) => (name === type ? on : selected.includes(name))));
  return (
    <fieldset class="event-picker">
      <legend>Events to send</legend>
      {GROUPS.map(({ legend, prefixes }) => (
        <fieldset key={legend}>
          <legend>{legend}</legend>
          {inGroup(prefixes).map((type) => (
            <label key={type} class="check-label">
              <input
                type="checkbox"
                checked={selected.includes(type)}
                onChange={(event) => toggle(type, event.currentTarget.checked)}
              />{' '}
              <code>{type}</code>
            </label>
          ))}
        </fieldset>
      ))}
    </fieldset>
  );
}
