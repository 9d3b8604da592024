import { useState } from 'preact/hooks';
import { Badge } from '../../../kit/components/badge.js';
import { CardTable } from '../../../kit/components/card-table.js';
import { LoadedList } from '../../../kit/components/loaded-list.js';
import { formatTime } from '../../../kit/format.js';
import { POLL_MS, useServerData } from '../../../kit/hooks.js';
import { api } from '../api.js';
import { AddDomainForm } from '../components/add-domain-form.js';
import { Menu } from '../components/menu.js';
import { MissingTarget } from '../components/missing-target.js';
import { RemoveDomain, removalMessage } from '../components/remove-domain.js';
import { DomainStateBadge } from '../components/state-badges.js';
import { notice } from '../notice.js';
import { href, location, navigate } from '../router.js';
import { may } from '../session.js';
import { useTitle } from '../title.js';
import type { Domain } from '../types.js';

/** `docs.example.com → www.example.com (301)`. */
export const redirectText = (domain: Domain) =>
  domain.redirect ? `${domain.name} → ${domain.redirect.to} (${domain.redirect.status})` : '';

/** Project settings → Domains: every custom domain with its state, and Add domain. */
export function DomainList() {
  useTitle('Domains');
  const domains = useServerData(api.listDomains, [], POLL_MS);
  // Set at start and fixed until a restart: asked once.
  const settings = useServerData(api.domainSettings, []);
  const [removing, setRemoving] = useState<string | null>(null);

  return (
    <>
      <p class="breadcrumb">Project settings</p>
      <h1 tabIndex={-1}>Domains</h1>
      <p class="muted">
        Serve the published reference on your own domain. Add it here, add its DNS records at your DNS
        provider, then verify.
      </p>
      {settings.data?.target === null && <MissingTarget />}
      {may('addDomain') && <AddDomainForm onAdded={(domain) => navigate(href('domains', domain.name))} />}
      <h2>Your domains</h2>
      <LoadedList list={domains} what="domains" empty={<p class="muted">No custom domains yet.</p>}>
        {(rows) => (
          <CardTable
            caption="Custom domains"
            rows={rows}
            rowKey={(domain) => domain.name}
            name={{
              header: 'Domain',
              cell: (domain) => (
                <>
                  <a href={href('domains', domain.name)}>{domain.name}</a>
                  {domain.primary && <Badge tone="info">Primary</Badge>}
                </>
              ),
            }}
            columns={[
              { header: 'State', cell: (domain) => <DomainStateBadge state={domain.state} /> },
              {
                header: 'Redirect',
                cell: (domain) => redirectText(domain) || <span class="muted">—</span>,
              },
              {
                header: 'Last check',
                class: 'nowrap',
                cell: (domain) => formatTime(domain.checkedAt, 'Not yet'),
              },
              {
                header: 'Actions',
                hidden: true,
                cell: (domain) =>
                  may('removeDomain') && (
                    <Menu
                      label={`Actions for ${domain.name}`}
                      items={[{ label: 'Remove', danger: true, onSelect: () => setRemoving(domain.name) }]}
                    />
                  ),
              },
            ]}
          />
        )}
      </LoadedList>
      {removing && (
        <RemoveDomain
          name={removing}
          onRemoved={(removal) => {
            notice.value = { text: removalMessage(removal), pathname: location.value.pathname };
            void domains.reload();
          }}
          onClose={() => setRemoving(null)}
        />
      )}
    </>
  );
}
