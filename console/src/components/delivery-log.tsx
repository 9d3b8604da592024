import { useEffect, useRef, useState } from 'preact/hooks';
import { CardTable } from '../../../kit/components/card-table.js';
import { LoadedList } from '../../../kit/components/loaded-list.js';
import { ActionError, LoadError, Loading } from '../../../kit/components/status.js';
import { formatDuration, formatTime, fromDateTimeInput } from '../../../kit/format.js';
import { POLL_MS, useAction, useServerData } from '../../../kit/hooks.js';
import { api } from '../api.js';
import { may } from '../session.js';
import type { DeliveryState, WebhookDelivery } from '../types.js';
import { RowButton } from './row-button.js';
import { DeliveryStateBadge } from './state-badges.js';

/** Deliveries shown at first, and added by each "Show older". */
const PAGE = 50;
/** The most one request lists: the admin API's `limit` maximum (`DELIVERY_PAGE.max` of its contract). */
const MOST = 500;

const STATES: { value: DeliveryState | ''; label: string }[] = [
  { value: '', label: 'All' },
  { value: 'failed', label: 'Failed' },
  { value: 'pending', label: 'Pending' },
  { value: 'delivered', label: 'Delivered' },
];

/** Every attempt of one delivery: when, the answer's status and first KiB, how long, and the next retry. */
function AttemptLog({ webhookId, delivery }: { webhookId: string; delivery: WebhookDelivery }) {
  // Asked again whenever the delivery changes (another attempt, a replay).
  const detail = useServerData(
    () => api.delivery(webhookId, delivery.id),
    [webhookId, delivery.id, delivery.updatedAt],
  );
  if (detail.error) return <LoadError error={detail.error} />;
  if (!detail.data) return <Loading what="its attempts" />;
  if (detail.data.log.length === 0)
    return <p class="muted">Not tried yet: due {formatTime(delivery.nextAttemptAt)}.</p>;
  return (
    // It may scroll sideways inside its row: focusable, so that a keyboard scrolls it too.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by Tab (WCAG 2.1.1)
    <section class="table-scroll" tabIndex={0} aria-label={`Attempts of ${delivery.eventId}`}>
      <table class="attempts">
        <caption class="visually-hidden">Attempts of delivery {delivery.id}</caption>
        <thead>
          <tr>
            <th scope="col">Attempt</th>
            <th scope="col">Sent</th>
            <th scope="col">Status</th>
            <th scope="col">Latency</th>
            <th scope="col">Response</th>
            <th scope="col">Next retry</th>
          </tr>
        </thead>
        <tbody>
          {detail.data.log.map((attempt) => (
            <tr key={attempt.attempt}>
              <th scope="row">{attempt.attempt}</th>
              <td data-label="Sent" class="nowrap">
                {formatTime(attempt.at)}
              </td>
              <td data-label="Status">{attempt.status ?? <span class="muted">No answer</span>}</td>
              <td data-label="Latency" class="nowrap">
                {formatDuration(attempt.latencyMs)}
              </td>
              <td data-label="Response">
                {attempt.error && <div class="error">{attempt.error}</div>}
                {attempt.response ? (
                  <pre class="excerpt">{attempt.response}</pre>
                ) : (
                  !attempt.error && <span class="muted">Empty</span>
                )}
              </td>
              <td data-label="Next retry" class="nowrap">
                {formatTime(attempt.nextAttemptAt)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** Replay failed since…: every failed delivery made at or after a time, sent again. */
function ReplayFailed({ webhookId, onReplayed }: { webhookId: string; onReplayed: (count: number) => void }) {
  const [since, setSince] = useState('');
  const { busy, error, run } = useAction();
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const at = fromDateTimeInput(since);
    if (at === undefined) return;
    await run(async () => onReplayed((await api.replayFailed(webhookId, at)).replayed));
  };
  return (
    <form class="filters" onSubmit={submit}>
      <div>
        <label for="replay-since">Replay failed deliveries made since (UTC)</label>
        <input
          id="replay-since"
          type="datetime-local"
          required
          value={since}
          onInput={(event) => setSince(event.currentTarget.value)}
        />
      </div>
      <div class="actions">
        <button type="submit" disabled={busy || since === ''}>
          {busy ? 'Replaying…' : 'Replay failed'}
        </button>
      </div>
      <ActionError error={error} />
    </form>
  );
}

/**
 * An endpoint's delivery log, newest first and refreshed while visible: each event's state, attempts and next
 * retry, its attempts one by one on request, Replay for one, and Replay failed since… for many.
 */
export function DeliveryLog({
  webhookId,
  enabled,
  sent,
}: {
  webhookId: string;
  /** Whether the endpoint takes deliveries: a disabled one's replays wait for it. */
  enabled: boolean;
  /** Changes when a test event is sent, to show it at once. */
  sent: number;
}) {
  const [state, setState] = useState<DeliveryState | ''>('');
  const [limit, setLimit] = useState(PAGE);
  const [open, setOpen] = useState<Set<number>>(new Set());
  const [message, setMessage] = useState('');
  const [error, setError] = useState<string | null>(null);
  // A new filter is a new list; more of the same list, or a test event in it, is asked for with the rows
  // still shown, so that the table does not blank and "Show older" keeps the focus.
  const deliveries = useServerData(
    () => api.deliveries(webhookId, { ...(state ? { state } : {}), limit }),
    [webhookId, state],
    POLL_MS,
  );
  const { reload } = deliveries;
  const asked = useRef({ limit, sent });
  useEffect(() => {
    if (asked.current.limit === limit && asked.current.sent === sent) return;
    asked.current = { limit, sent };
    void reload();
  }, [limit, sent, reload]);

  const toggle = (id: number) => {
    const next = new Set(open);
    if (!next.delete(id)) next.add(id);
    setOpen(next);
  };
  const replay = async (delivery: WebhookDelivery) => {
    setError(null);
    setMessage('');
    try {
      const replayed = await api.replayDelivery(webhookId, delivery.id);
      setMessage(
        replayed.nextAttemptAt === null
          ? `${delivery.eventType} ${delivery.eventId} is pending again: it goes, with the same webhook-id, once the endpoint is enabled.`
          : `${delivery.eventType} ${delivery.eventId} is due again, with the same webhook-id.`,
      );
      await deliveries.reload();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <div class="filters">
        <div>
          <label for="delivery-state">State</label>
          <select
            id="delivery-state"
            value={state}
            onChange={(event) => setState(event.currentTarget.value as DeliveryState | '')}
          >
            {STATES.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      {may('replayFailedWebhookDeliveries') && (
        <ReplayFailed
          webhookId={webhookId}
          onReplayed={(count) => {
            const what = count === 1 ? '1 failed delivery is' : `${count} failed deliveries are`;
            setMessage(
              enabled || count === 0
                ? `${what} due again.`
                : `${what} pending again: they go once the endpoint is enabled.`,
            );
            void deliveries.reload();
          }}
        />
      )}
      <p role="status" class="muted">
        {message}
      </p>
      <ActionError error={error} />
      <LoadedList
        list={deliveries}
        what="deliveries"
        empty={
          <p class="muted">
            {state
              ? `No ${state} deliveries.`
              : may('testWebhook')
                ? 'No deliveries yet: send a test event.'
                : 'No deliveries yet.'}
          </p>
        }
      >
        {(rows) => (
          <CardTable
            caption="Deliveries, newest first"
            class="deliveries"
            rows={rows}
            rowKey={(delivery) => delivery.id}
            name={{
              header: 'Event',
              cell: (delivery) => (
                <>
                  <code>{delivery.eventType}</code>
                  <div class="muted break">{delivery.eventId}</div>
                </>
              ),
            }}
            columns={[
              {
                header: 'State',
                cell: (delivery) => (
                  <DeliveryStateBadge state={delivery.state} attempts={delivery.attempts} />
                ),
              },
              { header: 'Attempts', cell: (delivery) => delivery.attempts },
              {
                header: 'Last status',
                cell: (delivery) => delivery.lastStatus ?? <span class="muted">—</span>,
              },
              {
                header: 'Next retry',
                class: 'nowrap',
                // A pending delivery with no next attempt waits for its endpoint to be enabled.
                cell: (delivery) =>
                  formatTime(delivery.nextAttemptAt, delivery.state === 'pending' ? 'When enabled' : '—'),
              },
              { header: 'Made', class: 'nowrap', cell: (delivery) => formatTime(delivery.createdAt) },
              {
                header: 'Actions',
                hidden: true,
                class: 'row-actions',
                cell: (delivery) => (
                  <>
                    <RowButton
                      name={`Attempts of ${delivery.eventId}`}
                      expanded={open.has(delivery.id)}
                      onClick={() => toggle(delivery.id)}
                    >
                      Attempts
                    </RowButton>
                    {may('replayWebhookDelivery') && (
                      <RowButton name={`Replay ${delivery.eventId}`} onClick={() => replay(delivery)}>
                        Replay
                      </RowButton>
                    )}
                  </>
                ),
              },
            ]}
            after={(delivery, span) =>
              open.has(delivery.id) && (
                <tr class="attempt-row">
                  <td colSpan={span}>
                    <AttemptLog webhookId={webhookId} delivery={delivery} />
                  </td>
                </tr>
              )
            }
          />
        )}
      </LoadedList>
      {deliveries.data?.length === limit && limit < MOST && (
        <button type="button" onClick={() => setLimit(Math.min(limit + PAGE, MOST))}>
          Show older
        </button>
      )}
    </section>
  );
}
