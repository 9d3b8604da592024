import { LoadError, Loading } from '../../../kit/components/status.js';
import { formatTime } from '../../../kit/format.js';
import { POLL_MS, useServerData } from '../../../kit/hooks.js';
import { api } from '../api.js';
import { WebhookHealthBadge } from '../components/state-badges.js';
import { NEW_WEBHOOK, WebhookForm } from '../components/webhook-form.js';
import { issuedSecret } from '../notice.js';
import { href, navigate } from '../router.js';
import { may } from '../session.js';
import { useTitle } from '../title.js';

/** Project settings → Webhooks: every endpoint with its health, and Add endpoint. */
export function WebhookList() {
  useTitle('Webhooks');
  const webhooks = useServerData(api.listWebhooks, [], POLL_MS);

  return (
    <>
      <p class="breadcrumb">Project settings</p>
      <h1 tabIndex={-1}>Webhooks</h1>
      <p class="muted">
        Hear about orders, keys and domains as they happen: each event is POSTed to your endpoints, signed per
        the Standard Webhooks specification, and retried for three days until it is answered with a 2xx.
      </p>
      {may('createWebhook') && (
        <WebhookForm
          heading="Add endpoint"
          initial={NEW_WEBHOOK}
          submitLabel="Add endpoint"
          onSubmit={async ({ url, description, events }) => {
            const created = await api.createWebhook({ url, events, ...(description ? { description } : {}) });
            const to = href('webhooks', created.id);
            issuedSecret.value = { secret: created.secret, pathname: to };
            navigate(to);
          }}
        />
      )}
      <h2>Your endpoints</h2>
      {webhooks.error && <LoadError error={webhooks.error} />}
      {!webhooks.data && !webhooks.error && <Loading what="endpoints" />}
      {webhooks.data?.length === 0 && <p class="muted">No endpoints yet.</p>}
      {webhooks.data && webhooks.data.length > 0 && (
        <div class="table-scroll cards">
          <table>
            <caption class="visually-hidden">Webhook endpoints</caption>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Health</th>
                <th scope="col">Events</th>
                <th scope="col">Failing since</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.data.map((webhook) => (
                <tr key={webhook.id}>
                  <th scope="row">
                    <a class="break" href={href('webhooks', webhook.id)}>
                      {webhook.url}
                    </a>
                    {webhook.description && <div class="muted">{webhook.description}</div>}
                  </th>
                  <td data-label="Health">
                    <WebhookHealthBadge webhook={webhook} />
                  </td>
                  <td data-label="Events">
                    {webhook.events.length === 1 ? (
                      <code>{webhook.events[0]}</code>
                    ) : (
                      `${webhook.events.length} types`
                    )}
                  </td>
                  <td data-label="Failing since" class="nowrap">
                    {formatTime(webhook.failingSince)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
