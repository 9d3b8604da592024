import { CardTable } from '../../../kit/components/card-table.js';
import { LoadedList } from '../../../kit/components/loaded-list.js';
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
      <LoadedList list={webhooks} what="endpoints" empty={<p class="muted">No endpoints yet.</p>}>
        {(rows) => (
          <CardTable
            caption="Webhook endpoints"
            rows={rows}
            rowKey={(webhook) => webhook.id}
            name={{
              header: 'Endpoint',
              cell: (webhook) => (
                <>
                  <a class="break" href={href('webhooks', webhook.id)}>
                    {webhook.url}
                  </a>
                  {webhook.description && <div class="muted">{webhook.description}</div>}
                </>
              ),
            }}
            columns={[
              { header: 'Health', cell: (webhook) => <WebhookHealthBadge webhook={webhook} /> },
              {
                header: 'Events',
                cell: (webhook) =>
                  webhook.events.length === 1 ? (
                    <code>{webhook.events[0]}</code>
                  ) : (
                    `${webhook.events.length} types`
                  ),
              },
              {
                header: 'Failing since',
                class: 'nowrap',
                cell: (webhook) => formatTime(webhook.failingSince),
              },
            ]}
          />
        )}
      </LoadedList>
    </>
  );
}
