import { useEffect, useState } from 'preact/hooks';
import { type AuditFilter, api } from '../api.js';
import { AuditTable } from '../components/audit-table.js';
import { LoadError, Loading } from '../components/status.js';
import { fromDateTimeInput, toDateTimeInput } from '../format.js';
import { useTitle } from '../hooks.js';
import { BASE, location, navigate } from '../router.js';
import type { AuditEvent } from '../types.js';

const PAGE = 50;
const FILTERS = ['target', 'actor', 'from', 'to'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

/** The filters are in the URL's query, so a filtered view is a link that can be shared and reloaded. */
function filtersOf(search: string): Filters {
  const params = new URLSearchParams(search);
  const filters: Filters = {};
  for (const name of FILTERS) {
    const value = params.get(name);
    if (value) filters[name] = value;
  }
  return filters;
}

/**
 * The filters as the URL has them: a new URL (Filter, Clear, back, forward) makes a new form (its `key`), and
 * until then the fields are the reader's, so a page arriving while they type leaves their text alone.
 */
function FilterForm({ filters }: { filters: Filters }) {
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const params = new URLSearchParams();
    for (const name of FILTERS) {
      const raw = String(form.get(name) ?? '').trim();
      const value = name === 'from' || name === 'to' ? fromDateTimeInput(raw) : raw;
      if (value) params.set(name, value);
    }
    const query = params.toString();
    navigate(`${BASE}/audit${query ? `?${query}` : ''}`);
  };
  return (
    <form class="panel filters" onSubmit={submit} aria-label="Filter events">
      <div>
        <label for="filter-target">Target</label>
        <input
          id="filter-target"
          name="target"
          placeholder="key_… or a token id"
          defaultValue={filters.target ?? ''}
        />
      </div>
      <div>
        <label for="filter-actor">Actor</label>
        <input
          id="filter-actor"
          name="actor"
          placeholder="a token id or cli"
          defaultValue={filters.actor ?? ''}
        />
      </div>
      <div>
        <label for="filter-from">From (UTC)</label>
        <input
          id="filter-from"
          name="from"
          type="datetime-local"
          defaultValue={toDateTimeInput(filters.from)}
        />
      </div>
      <div>
        <label for="filter-to">To (UTC)</label>
        <input id="filter-to" name="to" type="datetime-local" defaultValue={toDateTimeInput(filters.to)} />
      </div>
      <div class="actions">
        <button type="submit" class="button-primary">
          Filter
        </button>
        <a href={`${BASE}/audit`}>Clear</a>
      </div>
    </form>
  );
}

/** Audit: every change, newest first, filtered by target, actor and time, paged with Older. */
export function AuditPage() {
  useTitle('Audit log');
  const search = location.value.search;
  const [events, setEvents] = useState<AuditEvent[] | undefined>();
  const [more, setMore] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const filters = filtersOf(search);

  const load = async (before?: number) => {
    const query: AuditFilter = {
      ...filtersOf(search),
      limit: PAGE,
      ...(before === undefined ? {} : { before }),
    };
    try {
      const page = await api.audit(query);
      setEvents((shown) => (before === undefined ? page : [...(shown ?? []), ...page]));
      setMore(page.length === PAGE);
      setError(undefined);
    } catch (failure) {
      setError(failure as Error);
    }
  };

  useEffect(() => {
    setEvents(undefined);
    void load();
  }, [search]);

  return (
    <>
      <h1 tabIndex={-1}>Audit log</h1>
      <p class="muted">Every change to keys, domains and admin tokens: who, what and when. Newest first.</p>
      <FilterForm key={search} filters={filters} />
      {error && <LoadError error={error} />}
      {!events && !error && <Loading what="events" />}
      {events && <AuditTable events={events} caption="Audit events, newest first" />}
      {more && events && (
        <button type="button" onClick={() => load(events.at(-1)?.id)}>
          Older
        </button>
      )}
    </>
  );
}
