import { useState } from 'preact/hooks';
import { Badge } from '../../../kit/components/badge.js';
import { CardTable } from '../../../kit/components/card-table.js';
import { CopyButton } from '../../../kit/components/copy-button.js';
import { LoadError, Loading } from '../../../kit/components/status.js';
import { formatTime } from '../../../kit/format.js';
import { POLL_MS, useServerData } from '../../../kit/hooks.js';
import { api } from '../api.js';
import { Menu } from '../components/menu.js';
import { MissingTarget } from '../components/missing-target.js';
import { RemoveDomain, removalMessage } from '../components/remove-domain.js';
import { DomainStateBadge } from '../components/state-badges.js';
import { notice } from '../notice.js';
import { href, navigate } from '../router.js';
import { may } from '../session.js';
import { useTitle } from '../title.js';
import type { Domain } from '../types.js';
import { redirectText } from './domain-list.js';
import { NotFound } from './not-found.js';

/** The TTL the specification asks for on every record (an hour: short enough to fix a mistake the same day). */
const TTL = 3600;

function DnsRecords({ domain, noTarget }: { domain: Domain; noTarget: boolean }) {
  const apex = domain.name.split('.').length === 2;
  return (
    <section aria-labelledby="dns-heading">
      <h2 id="dns-heading">DNS records</h2>
      {noTarget && <MissingTarget />}
      <p class="muted">
        Add these records at your DNS provider.
        {apex &&
          ' At an apex, add the CNAME as an ALIAS or ANAME record, which your provider resolves for you.'}
      </p>
      <CardTable
        caption="DNS records to add"
        rows={domain.dns}
        rowKey={(record) => `${record.type} ${record.name}`}
        name={{
          header: 'Type',
          cell: (record) => (apex && record.type === 'CNAME' ? 'ALIAS or ANAME' : record.type),
        }}
        columns={[
          {
            header: 'Name',
            cell: (record) => (
              <>
                <code class="break">{record.name}</code>{' '}
                <CopyButton value={record.name} what={`the ${record.type} name`} />
              </>
            ),
          },
          {
            header: 'Value',
            cell: (record) => (
              <>
                <code class="break">{record.value}</code>{' '}
                <CopyButton value={record.value} what={`the ${record.type} value`} />
              </>
            ),
          },
          { header: 'TTL', cell: () => TTL },
          {
            header: 'Purpose',
            cell: (record) =>
              `${record.type === 'TXT' ? 'Proves you own the domain' : 'Points the domain here'}${record.required ? '' : ' (optional)'}`,
          },
        ]}
      />
    </section>
  );
}

/** The outcome of the last check, in words: why the domain is in its state, and what to change. */
function CheckResult({ domain }: { domain: Domain }) {
  return (
    <div class="check" role="status">
      <p>
        <strong>Status:</strong> {domain.reason}
      </p>
      {domain.fix && (
        <p>
          <strong>How to fix:</strong> {domain.fix}
        </p>
      )}
      <p class="muted">
        Last checked {formatTime(domain.checkedAt, 'never')}; next check {formatTime(domain.nextCheckAt)}.
      </p>
    </div>
  );
}

/** One domain: its state, the records to add, Verify, its certificate, and Remove. */
export function DomainPage({ name }: { name: string }) {
  useTitle(name);
  const domain = useServerData(() => api.getDomain(name), [name], POLL_MS);
  const settings = useServerData(api.domainSettings, []);
  const [checking, setChecking] = useState(false);
  const [checkError, setCheckError] = useState<string | null>(null);
  const [removing, setRemoving] = useState(false);

  if (domain.error && 'status' in domain.error && domain.error.status === 404)
    return <NotFound what={`The domain ${name}`} />;
  if (domain.error) return <LoadError error={domain.error} />;
  if (!domain.data) return <Loading what={name} />;
  const current = domain.data;

  const verify = async () => {
    setChecking(true);
    setCheckError(null);
    try {
      await api.verifyDomain(name);
      await domain.reload();
    } catch (failure) {
      setCheckError((failure as Error).message);
    } finally {
      setChecking(false);
    }
  };

  return (
    <>
      <p class="breadcrumb">
        <a href={href('domains')}>Domains</a>
      </p>
      <div class="title-row">
        <h1 tabIndex={-1} class="break">
          {current.name}
        </h1>
        <DomainStateBadge state={current.state} />
        {current.primary && <Badge tone="info">Primary</Badge>}
        {may('removeDomain') && (
          <Menu
            label={`Actions for ${current.name}`}
            items={[{ label: 'Remove', danger: true, onSelect: () => setRemoving(true) }]}
          />
        )}
      </div>
      {current.redirect && <p>Redirects: {redirectText(current)}</p>}
      {current.source === 'file' && (
        <p class="muted">Declared in the config file: change or remove it there.</p>
      )}

      <section class="panel" aria-labelledby="check-heading">
        <h2 id="check-heading">Verification</h2>
        <CheckResult domain={current} />
        {may('verifyDomain') && (
          <button
            type="button"
            class="button-primary"
            onClick={verify}
            disabled={checking}
            aria-busy={checking}
          >
            {checking ? 'Checking…' : current.lastCheck === null ? 'Verify' : 'Re-verify'}
          </button>
        )}
        {checkError && (
          <p class="error" role="alert">
            {checkError}
          </p>
        )}
      </section>

      <DnsRecords domain={current} noTarget={settings.data?.target === null} />

      <section aria-labelledby="certificate-heading">
        <h2 id="certificate-heading">Certificate</h2>
        {current.certificate ? (
          <dl class="facts">
            <dt>Issuer</dt>
            <dd>{current.certificate.issuer}</dd>
            <dt>Expires</dt>
            <dd>{formatTime(current.certificate.expiresAt)}</dd>
          </dl>
        ) : (
          <p class="muted">None yet: a certificate is issued once the domain is verified.</p>
        )}
      </section>

      {removing && (
        <RemoveDomain
          name={current.name}
          onRemoved={(removal) => {
            const to = href('domains');
            notice.value = { text: removalMessage(removal), pathname: to };
            navigate(to);
          }}
          onClose={() => setRemoving(false)}
        />
      )}
    </>
  );
}
