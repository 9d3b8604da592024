import { useEffect, useRef, useState } from 'preact/hooks';
import { inBackground } from '../../../kit/background.js';
import {
  FilterField,
  filtersIn,
  filtersOfForm,
  MethodField,
  TimeRangeAndActions,
} from '../../../kit/components/filters.js';
import { FindRequestForm } from '../../../kit/components/find-request-form.js';
import { RequestTable } from '../../../kit/components/request-table.js';
import { LoadError, Loading } from '../../../kit/components/status.js';
import { api, type RequestFilter } from '../api.js';
import { ExportButtons } from '../components/export-buttons.js';
import { RequestCaller } from '../components/request-caller.js';
import { BASE, href, location, navigate, requestsHref } from '../router.js';
import { useTitle } from '../title.js';
import type { AdminLoggedRequest } from '../types.js';

const PAGE = 50;
/** The most the live tail asks for at once; past it, the page starts afresh rather than leave a gap. */
const TAIL_LIMIT = 200;
/** How often the live tail asks for new rows. */
const TAIL_MS = 2000;
const FILTERS = ['key', 'status', 'code', 'route', 'method', 'client', 'from', 'to', 'api'] as const;
type PageFilter = Partial<Record<(typeof FILTERS)[number], string>>;

/**
 * Which requests the page lists, as its URL's `api` says: the API's by default, since a console's own calls
 * (this page's tail, every open page refreshing itself) would otherwise fill the list; the admin API's, or
 * both, when chosen.
 */
const APIS = [
  { value: '', label: 'The API (/v1)', api: 'v1' },
  { value: 'admin', label: 'The admin API (/admin/v1)', api: 'admin' },
  { value: 'all', label: 'Both', api: undefined },
] as const;

/** The admin API's filter of the page's: its `api` the API's own word for the choice, or none for both. */
function askedFilter(filters: PageFilter): RequestFilter {
  const { api: chosen, ...rest } = filters;
  const api = (APIS.find((choice) => choice.value === chosen) ?? APIS[0]).api;
  return api === undefined ? rest : { ...rest, api };
}

/** The choice of API: the URL's starts selected (`selected`: Preact sets no `defaultValue` on a select). */
function ApiField({ value = '' }: { value: string | undefined }) {
  return (
    <div>
      <label for="filter-api">API</label>
      <select id="filter-api" name="api" class="choice-words">
        {APIS.map((choice) => (
          <option key={choice.value} value={choice.value} selected={choice.value === value}>
            {choice.label}
          </option>
        ))}
      </select>
    </div>
  );
}

const rowKey = (row: AdminLoggedRequest) => `${row.at} ${row.requestId}`;

/** Pasting a request id (from a customer's Error body) and pressing Enter opens that request at once. */
function FindRequest() {
  return (
    <FindRequestForm
      label="Find a request by id"
      class="panel filters"
      fieldId="find-request"
      placeholder="Paste an X-Request-Id"
      onFind={(id) => {
        if (id) navigate(href('requests', id));
      }}
    />
  );
}

/**
 * The filters as the URL has them: a new URL (Filter, Clear, back, forward) makes a new form (its `key`), and
 * until then the fields are the reader's, so rows arriving while they type leave their text alone.
 */
function FilterForm({ filters }: { filters: PageFilter }) {
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    navigate(requestsHref(filtersOfForm(event.currentTarget as HTMLFormElement, FILTERS)));
  };
  return (
    <form class="panel filters" onSubmit={submit} aria-label="Filter requests">
      <ApiField value={filters.api} />
      <FilterField name="key" label="Key" value={filters.key} placeholder="key_…" />
      <FilterField name="status" label="Status" value={filters.status} placeholder="404, or a class: 4xx" />
      <FilterField name="code" label="Error code" value={filters.code} placeholder="rate_limited" />
      <FilterField name="route" label="Route" value={filters.route} placeholder="/v1/pets/{petId}" />
      <MethodField value={filters.method} />
      <FilterField name="client" label="Client address" value={filters.client} placeholder="203.0.113.7" />
      <TimeRangeAndActions from={filters.from} to={filters.to} clearHref={`${BASE}/requests`} />
    </form>
  );
}

/**
 * Requests: the request log, newest first, filtered as the URL says, paged with Load more, and a live tail
 * that asks for new rows every 2 seconds (as a background refresh) until the operator pauses it.
 */
export function RequestsPage() {
  useTitle('Requests');
  const search = location.value.search;
  const filters = filtersIn(search, FILTERS);
  const [rows, setRows] = useState<AdminLoggedRequest[] | undefined>();
  const [cursor, setCursor] = useState<string | undefined>();
  const [error, setError] = useState<Error | undefined>();
  // A filter that ends at a time has nothing new to follow.
  const [live, setLive] = useState(true);
  const tailable = filters.to === undefined;
  const shown = useRef<AdminLoggedRequest[]>([]);
  // The page's own reads of the log are rows of it too: the tail leaves them out, or it would show itself.
  const own = useRef(new Set<string>());
  const generation = useRef(0);

  const show = (next: AdminLoggedRequest[]) => {
    shown.current = next;
    setRows(next);
  };
  const remember = (requestId: string | null) => {
    if (requestId !== null) own.current.add(requestId);
  };

  const load = async (more = false) => {
    const mine = generation.current;
    try {
      const page = await api.requests(askedFilter(filtersIn(search, FILTERS)), {
        limit: PAGE,
        ...(more && cursor ? { cursor } : {}),
      });
      if (mine !== generation.current) return;
      remember(page.requestId);
      show(more ? [...shown.current, ...page.rows] : page.rows);
      setCursor(page.cursor);
      setError(undefined);
    } catch (failure) {
      if (mine === generation.current) setError(failure as Error);
    }
  };

  useEffect(() => {
    generation.current += 1;
    shown.current = [];
    setRows(undefined);
    setCursor(undefined);
    void load();
  }, [search]);

  useEffect(() => {
    if (!live || !tailable || rows === undefined) return undefined;
    let busy = false;
    const tick = async () => {
      if (busy || document.visibilityState !== 'visible') return;
      busy = true;
      const mine = generation.current;
      try {
        const newest = shown.current[0]?.at;
        const since = newest ?? filters.from;
        const page = await inBackground(() =>
          api.requests(
            { ...askedFilter(filtersIn(search, FILTERS)), ...(since ? { from: since } : {}) },
            { limit: TAIL_LIMIT },
          ),
        );
        if (mine !== generation.current) return;
        remember(page.requestId);
        if (page.rows.length >= TAIL_LIMIT) {
          // More arrived than one ask holds: start afresh rather than leave a gap below the new rows.
          await load();
          return;
        }
        const known = new Set(shown.current.map(rowKey));
        const arrived = page.rows.filter((row) => !known.has(rowKey(row)) && !own.current.has(row.requestId));
        if (arrived.length > 0) show([...arrived, ...shown.current]);
      } catch (failure) {
        if (mine === generation.current) setError(failure as Error);
      } finally {
        busy = false;
      }
    };
    const timer = setInterval(tick, TAIL_MS);
    document.addEventListener('visibilitychange', tick);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', tick);
    };
  }, [live, tailable, rows === undefined, search]);

  return (
    <>
      <h1 tabIndex={-1}>Requests</h1>
      <p class="muted">
        Every answered request of the API (<code>/v1</code>), newest first, as the request log keeps it (7
        days by default); choose the admin API (<code>/admin/v1</code>) for its calls, the consoles’ own among
        them. Times are UTC.
      </p>
      <FindRequest />
      <FilterForm key={search} filters={filters} />
      <div class="actions tail">
        {tailable ? (
          <>
            <button type="button" onClick={() => setLive(!live)}>
              {live ? 'Pause' : 'Resume'}
            </button>
            <span role="status">
              {live ? 'Live: new requests appear at the top.' : 'Paused: new requests wait until you resume.'}
            </span>
          </>
        ) : (
          <span class="muted">This filter ends at a time, so there is nothing new to follow.</span>
        )}
      </div>
      <ExportButtons name="requests" load={(format) => api.exportRequests(askedFilter(filters), format)} />
      {error && <LoadError error={error} />}
      {!rows && !error && <Loading what="requests" />}
      {rows &&
        (rows.length === 0 ? (
          <p class="muted">No requests.</p>
        ) : (
          <RequestTable
            rows={rows}
            caption="Requests, newest first"
            detail={(row) => href('requests', row.requestId)}
            caller={(row) => <RequestCaller request={row} />}
          />
        ))}
      {cursor && rows && (
        <button type="button" onClick={() => load(true)}>
          Load more
        </button>
      )}
    </>
  );
}
