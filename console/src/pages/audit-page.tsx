import { useEffect, useState } from 'preact/hooks';
import {
  ChoiceField,
  FilterField,
  filtersIn,
  filtersOfForm,
  TimeRangeAndActions,
} from '../../../kit/components/filters.js';
import { LoadError, Loading } from '../../../kit/components/status.js';
import { ACTOR_KINDS } from '../../../src/contract/roles.js';
import { type AuditFilter, api } from '../api.js';
import { AuditTable } from '../components/audit-table.js';
import { ExportButtons } from '../components/export-buttons.js';
import { BASE, location, navigate } from '../router.js';
import { useTitle } from '../title.js';
import type { AuditEvent } from '../types.js';

const PAGE = 50;
const FILTERS = ['target', 'actor', 'actorKind', 'from', 'to'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

/**
 * The filters as the URL has them: a new URL (Filter, Clear, back, forward) makes a new form (its `key`), and
 * until then the fields are the reader's, so a page arriving while they type leaves their text alone.
 */
function FilterForm({ filters }: { filters: Filters }) {
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const query = new URLSearchParams(
      filtersOfForm(event.currentTarget as HTMLFormElement, FILTERS) as Record<string, string>,
    ).toString();
    navigate(`${BASE}/audit${query ? `?${query}` : ''}`);
  };
  return (
    <form class="panel filters" onSubmit={submit} aria-label="Filter events">
      <FilterField name="target" label="Target" value={filters.target} placeholder="key_… or a token id" />
      <FilterField name="actor" label="Actor" value={filters.actor} placeholder="a token id or cli" />
      <ChoiceField name="actorKind" label="Kind of actor" value={filters.actorKind} choices={ACTOR_KINDS} />
      <TimeRangeAndActions from={filters.from} to={filters.to} clearHref={`${BASE}/audit`} />
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
  const filters = filtersIn(search, FILTERS);

  const load = async (before?: number) => {
    const query: AuditFilter = {
      ...filtersIn(search, FILTERS),
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
      <p class="muted">
        Every change to keys, domains, webhooks and admin tokens, and every request refused for its role: who,
        what and when. Newest first.
      </p>
      <FilterForm key={search} filters={filters} />
      <ExportButtons name="audit" load={(format) => api.exportAudit(filters, format)} />
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
