import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../../../kit/components/confirm-dialog.js';
import { LoadError, Loading } from '../../../kit/components/status.js';
import { ApiError } from '../../../kit/fetch-json.js';
import { formatTime } from '../../../kit/format.js';
import { POLL_MS, useFocusReturn, useServerData } from '../../../kit/hooks.js';
import { api } from '../api.js';
import { DeliveryLog } from '../components/delivery-log.js';
import { IssuedSecret } from '../components/issued-secret.js';
import { Menu } from '../components/menu.js';
import { WebhookHealthBadge } from '../components/state-badges.js';
import { WebhookForm } from '../components/webhook-form.js';
import { issuedSecret, notice } from '../notice.js';
import { href, location, navigate } from '../router.js';
import { may } from '../session.js';
import { useTitle } from '../title.js';
import type { EventType, Webhook } from '../types.js';
import { NotFound } from './not-found.js';

/** Why a disabled endpoint stopped, and what brings it back. */
const STOPPED: Record<NonNullable<Webhook['disabledReason']>, string> = {
  manual: 'Disabled by an operator: its events wait, and go once it is enabled again.',
  gone: 'Disabled because its receiver answered 410 Gone. Its events wait: enable it once the receiver is back.',
  failing:
    'Disabled after failing every attempt for days (WEBHOOKS_DISABLE_AFTER_DAYS, 5 by default). Its events wait: fix the receiver, then enable it.',
};

/** Send test event: one event of a type the endpoint receives, kept and sent at once like any other. */
function SendTest({ webhook, onSent }: { webhook: Webhook; onSent: () => void }) {
  const [type, setType] = useState<EventType>(webhook.events[0] as EventType);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ text: string; failed: boolean } | null>(null);
  const send = async (event: SubmitEvent) => {
    event.preventDefault();
    setBusy(true);
    setOutcome(null);
    try {
      const sent = await api.testWebhook(webhook.id, type);
      setOutcome({ text: `Test event ${sent.eventId} (${sent.type}) is on its way.`, failed: false });
      onSent();
    } catch (failure) {
      setOutcome({ text: (failure as Error).message, failed: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="panel" onSubmit={send} aria-labelledby="test-heading">
      <h2 id="test-heading">Send a test event</h2>
      <label for="test-type">Event type</label>
      <div class="inline">
        <select
          id="test-type"
          value={type}
          onChange={(event) => setType(event.currentTarget.value as EventType)}
        >
          {webhook.events.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <button type="submit" class="button-primary" disabled={busy || !webhook.enabled}>
          {busy ? 'Sending…' : 'Send test event'}
        </button>
      </div>
      <p class={outcome?.failed ? 'error' : 'hint'} role="status">
        {outcome?.text ?? (webhook.enabled ? '' : 'Enable the endpoint to send it a test event.')}
      </p>
    </form>
  );
}

/** One endpoint: its health, details, Edit, Send test, Rotate secret, Enable or Disable, Remove, and its deliveries. */
export function WebhookPage({ id }: { id: string }) {
  // Asked again while visible: a 410 or failing too long disables it in the background.
  const webhook = useServerData(() => api.getWebhook(id), [id], POLL_MS);
  const [mode, setMode] = useState<'view' | 'edit' | 'rotate' | 'remove'>('view');
  const [actionError, setActionError] = useState<string | null>(null);
  const [testsSent, setTestsSent] = useState(0);
  const title = useFocusReturn<HTMLHeadingElement>();
  useTitle(webhook.data?.url ?? id);
  const { pathname } = location.value;

  if (webhook.error instanceof ApiError && (webhook.error.status === 404 || webhook.error.status === 400))
    return <NotFound what={`The webhook endpoint ${id}`} />;
  if (webhook.error) return <LoadError error={webhook.error} />;
  if (!webhook.data) return <Loading what="the endpoint" />;
  const current = webhook.data;

  const setEnabled = async (enabled: boolean) => {
    setActionError(null);
    try {
      await api.updateWebhook(current.id, { enabled });
      await webhook.reload();
    } catch (failure) {
      setActionError((failure as Error).message);
    }
  };
  const rotate = async () => {
    const rotated = await api.rotateWebhookSecret(current.id);
    issuedSecret.value = { secret: rotated.secret, pathname };
    await webhook.reload();
  };
  const remove = async () => {
    await api.removeWebhook(current.id);
    const to = href('webhooks');
    notice.value = { text: `The endpoint ${current.url} is removed; its deliveries stop.`, pathname: to };
    navigate(to);
  };
  // What the role allows, and nothing else (the API refuses the rest anyway).
  const actions = [
    ...(may('updateWebhook')
      ? [
          { label: 'Edit', onSelect: () => setMode('edit') },
          current.enabled
            ? { label: 'Disable', onSelect: () => void setEnabled(false) }
            : { label: 'Enable', onSelect: () => void setEnabled(true) },
        ]
      : []),
    ...(may('rotateWebhookSecret') ? [{ label: 'Rotate secret', onSelect: () => setMode('rotate') }] : []),
    ...(may('deleteWebhook') ? [{ label: 'Remove', danger: true, onSelect: () => setMode('remove') }] : []),
  ];

  return (
    <>
      <p class="breadcrumb">
        <a href={href('webhooks')}>Webhooks</a>
      </p>
      <div class="title-row">
        <h1 tabIndex={-1} class="break" ref={title.ref}>
          {current.url}
        </h1>
        <WebhookHealthBadge webhook={current} />
        {actions.length > 0 && <Menu label={`Actions for ${current.url}`} items={actions} />}
      </div>
      {current.description && <p>{current.description}</p>}
      {!current.enabled && (
        <p class="notice" role="status">
          {STOPPED[current.disabledReason ?? 'manual']}
        </p>
      )}
      {actionError && (
        <p class="error" role="alert">
          {actionError}
        </p>
      )}
      <IssuedSecret heading="The signing secret" what="the signing secret" onDone={title.returnHere}>
        <p class="hint">
          Verify each event's <code>webhook-signature</code> with it and any Standard Webhooks library.
        </p>
      </IssuedSecret>
      {mode === 'edit' && (
        <WebhookForm
          heading="Edit the endpoint"
          initial={{ url: current.url, description: current.description, events: current.events }}
          submitLabel="Save"
          onSubmit={async ({ url, description, events }) => {
            // The URL is shown with its credentials masked: sent back unchanged, it would replace them.
            await api.updateWebhook(current.id, {
              ...(url === current.url ? {} : { url }),
              description,
              events,
            });
            setMode('view');
            title.returnHere();
            await webhook.reload();
          }}
          onCancel={() => {
            setMode('view');
            title.returnHere();
          }}
        />
      )}

      <section aria-labelledby="details-heading">
        <h2 id="details-heading">Details</h2>
        <dl class="facts">
          <dt>Events</dt>
          <dd>
            {current.events.map((type, index) => (
              <span key={type}>
                {index > 0 && ', '}
                <code>{type}</code>
              </span>
            ))}
          </dd>
          <dt>Added</dt>
          <dd>{formatTime(current.createdAt)}</dd>
          <dt>Failing since</dt>
          <dd>{current.failingSince ? formatTime(current.failingSince) : 'Not failing'}</dd>
          {current.previousSecretUntil && (
            <>
              <dt>Previous secret</dt>
              <dd>Signs beside the current one until {formatTime(current.previousSecretUntil)}</dd>
            </>
          )}
        </dl>
      </section>

      {/* Keyed by the event types: after an edit of them, its choice starts from the new ones. */}
      {may('testWebhook') && (
        <SendTest key={current.events.join()} webhook={current} onSent={() => setTestsSent(testsSent + 1)} />
      )}
      <DeliveryLog webhookId={current.id} enabled={current.enabled} sent={testsSent} />

      {mode === 'rotate' && (
        <ConfirmDialog
          title="Rotate the signing secret?"
          confirmLabel="Rotate secret"
          onConfirm={rotate}
          onClose={() => setMode('view')}
        >
          <p>
            A new secret is made and shown once. For a day, every event is signed with both, so that your
            receiver keeps verifying while you deploy the new one.
          </p>
        </ConfirmDialog>
      )}
      {mode === 'remove' && (
        <ConfirmDialog
          title={`Remove ${current.url}?`}
          confirmLabel="Remove"
          onConfirm={remove}
          onClose={() => setMode('view')}
        >
          <p>Its deliveries stop, pending ones included, and its delivery log goes with it.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
