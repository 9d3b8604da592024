import { useEffect, useState } from 'preact/hooks';
import { FilterField, filtersOfForm, MethodField } from '../../../kit/components/filters.js';
import { RequestTable } from '../../../kit/components/request-table.js';
import { LoadError, Loading } from '../../../kit/components/status.js';
import { type LoggedRequest, listOwnRequests, type RequestFilter } from './api.js';

const FILTERS = ['status', 'code', 'method'] as const;

/**
 * "Recent requests": the key's own calls as `GET /v1/key/requests` answers them (reading it spends no quota),
 * newest first, filtered by status, error code and method, with each request id ready to copy and quote to
 * the API's operator. Rows land in the log within a second of their answer; Refresh asks again.
 */
export function KeyRequests({ apiKey }: { apiKey: string }) {
  const [filter, setFilter] = useState<RequestFilter>({});
  const [asked, setAsked] = useState(0);
  const [rows, setRows] = useState<LoggedRequest[] | undefined>();
  const [cursor, setCursor] = useState<string | undefined>();
  const [error, setError] = useState<Error | undefined>();

  useEffect(() => {
    let current = true;
    setError(undefined);
    listOwnRequests(apiKey, filter, undefined).then(
      (page) => {
        if (!current) return;
        setRows(page.rows);
        setCursor(page.cursor);
      },
      (failure: Error) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [apiKey, filter, asked]);

  const older = async () => {
    try {
      const page = await listOwnRequests(apiKey, filter, cursor);
      setRows([...(rows ?? []), ...page.rows]);
      setCursor(page.cursor);
    } catch (failure) {
      setError(failure as Error);
    }
  };
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    setFilter(filtersOfForm(event.currentTarget as HTMLFormElement, FILTERS));
  };
  const clear = (event: Event) => {
    (event.currentTarget as HTMLButtonElement).form?.reset();
    setFilter({});
  };

  return (
    <section class="panel" aria-labelledby="key-requests">
      <div class="title-row">
        <h2 id="key-requests">Recent requests</h2>
        <button type="button" onClick={() => setAsked(asked + 1)}>
          Refresh
        </button>
      </div>
      <p class="hint">
        Your calls as the service logged them, newest first, from <code>GET /v1/key/requests</code>. Quote a
        request id to the API's operator and they find the call at once.
      </p>
      <form class="filters" onSubmit={submit} aria-label="Filter your requests">
        <FilterField name="status" label="Status" value={filter.status} placeholder="404, or a class: 4xx" />
        <FilterField name="code" label="Error code" value={filter.code} placeholder="rate_limited" />
        <MethodField value={filter.method} />
        <div class="actions">
          <button type="submit" class="button-primary">
            Filter
          </button>
          <button type="button" onClick={clear}>
            Clear
          </button>
        </div>
      </form>
      {error ? (
        <LoadError error={error} />
      ) : rows === undefined ? (
        <Loading what="your requests" />
      ) : rows.length === 0 ? (
        <p class="muted">
          No requests {Object.values(filter).some(Boolean) ? 'match these filters' : 'yet'}.
        </p>
      ) : (
        <RequestTable rows={rows} caption="Your recent requests, newest first" />
      )}
      {cursor !== undefined && !error && (
        <button type="button" onClick={older}>
          Older requests
        </button>
      )}
    </section>
  );
}
