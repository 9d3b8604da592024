import { fromDateTimeInput, toDateTimeInput } from '../format.js';

/**
 * The pieces of a page's filter form (the audit's, the request log's): the filters live in the URL's query,
 * so a filtered view is a link that can be shared and reloaded.
 */

/** The filters `names` that the URL's query sets (an empty one counts as unset). */
export function filtersIn<N extends string>(search: string, names: readonly N[]): Partial<Record<N, string>> {
  const params = new URLSearchParams(search);
  const filters: Partial<Record<N, string>> = {};
  for (const name of names) {
    const value = params.get(name);
    if (value) filters[name] = value;
  }
  return filters;
}

/** The filters `names` a submitted form holds, its `from` and `to` read as UTC instants. */
export function filtersOfForm<N extends string>(
  form: HTMLFormElement,
  names: readonly N[],
): Partial<Record<N, string>> {
  const data = new FormData(form);
  const filters: Partial<Record<N, string>> = {};
  for (const name of names) {
    const raw = String(data.get(name) ?? '').trim();
    const value = name === 'from' || name === 'to' ? fromDateTimeInput(raw) : raw;
    if (value) filters[name] = value;
  }
  return filters;
}

/** One text filter, its label above it. */
export function FilterField({
  name,
  label,
  value,
  placeholder,
}: {
  name: string;
  label: string;
  value: string | undefined;
  placeholder: string;
}) {
  return (
    <div>
      <label for={`filter-${name}`}>{label}</label>
      <input id={`filter-${name}`} name={name} placeholder={placeholder} defaultValue={value ?? ''} />
    </div>
  );
}

/** A filter that is one of a few values, or any. */
export function ChoiceField({
  name,
  label,
  value,
  choices,
}: {
  name: string;
  label: string;
  value: string | undefined;
  choices: readonly string[];
}) {
  return (
    <div>
      <label for={`filter-${name}`}>{label}</label>
      {/* The choice the URL has starts selected (`selected`: Preact sets no `defaultValue` on a select). */}
      <select id={`filter-${name}`} name={name}>
        <option value="" selected={!value}>
          Any
        </option>
        {choices.map((choice) => (
          <option key={choice} value={choice} selected={choice === value}>
            {choice}
          </option>
        ))}
      </select>
    </div>
  );
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** The request log's method filter: any, or one of the API's methods. */
export function MethodField({ value }: { value: string | undefined }) {
  return <ChoiceField name="method" label="Method" value={value} choices={METHODS} />;
}

/** The time range of a filter, in UTC, and the form's Filter and Clear. */
export function TimeRangeAndActions({
  from,
  to,
  clearHref,
}: {
  from: string | undefined;
  to: string | undefined;
  clearHref: string;
}) {
  return (
    <>
      <div>
        <label for="filter-from">From (UTC)</label>
        <input id="filter-from" name="from" type="datetime-local" defaultValue={toDateTimeInput(from)} />
      </div>
      <div>
        <label for="filter-to">To (UTC)</label>
        <input id="filter-to" name="to" type="datetime-local" defaultValue={toDateTimeInput(to)} />
      </div>
      <div class="actions">
        <button type="submit" class="button-primary">
          Filter
        </button>
        <a href={clearHref}>Clear</a>
      </div>
    </>
  );
}
