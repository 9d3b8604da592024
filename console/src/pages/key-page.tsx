import { useState } from 'preact/hooks';
import { Badge } from '../../../kit/components/badge.js';
import { RotateKeyForm } from '../../../kit/components/rotate-key-form.js';
import { LoadError, Loading } from '../../../kit/components/status.js';
import { ApiError } from '../../../kit/fetch-json.js';
import { formatNumber, formatTime } from '../../../kit/format.js';
import { useFocusReturn, useServerData } from '../../../kit/hooks.js';
import { api } from '../api.js';
import { AuditTable } from '../components/audit-table.js';
import { IssuedSecret } from '../components/issued-secret.js';
import { type KeyFields, KeyForm } from '../components/key-form.js';
import { KeyRotation } from '../components/key-rotation.js';
import { RevokeKeyDialog } from '../components/revoke-key-dialog.js';
import { KeyStateBadge } from '../components/state-badges.js';
import { UsageCharts } from '../components/usage-charts.js';
import { issuedSecret, notice } from '../notice.js';
import { href, navigate, requestsHref } from '../router.js';
import { may } from '../session.js';
import { useTitle } from '../title.js';
import type { ApiKey, ApiKeyChange } from '../types.js';
import { NotFound } from './not-found.js';

/** The fields that differ from the key as it is: a rotated key refuses a plan or limits even if unchanged. */
function changeOf(key: ApiKey, fields: KeyFields): ApiKeyChange {
  const change: ApiKeyChange = {};
  if (fields.name.trim() !== key.name && fields.name.trim() !== '') change.name = fields.name.trim();
  if (fields.plan !== key.plan) change.plan = fields.plan;
  if (fields.plan === 'enterprise' && fields.perMinute !== null && fields.perDay !== null) {
    if (fields.perMinute !== key.limits?.perMinute) change.perMinute = fields.perMinute;
    if (fields.perDay !== key.limits?.perDay) change.perDay = fields.perDay;
  }
  if (fields.scopes.join() !== key.scopes.join()) change.scopes = fields.scopes;
  if (fields.expiresAt !== key.expiresAt) change.expiresAt = fields.expiresAt;
  return change;
}

const fieldsOf = (key: ApiKey): KeyFields => ({
  name: key.name,
  plan: key.plan,
  scopes: key.scopes,
  expiresAt: key.expiresAt,
  perMinute: key.limits?.perMinute ?? null,
  perDay: key.limits?.perDay ?? null,
});

function KeyFacts({ apiKey }: { apiKey: ApiKey }) {
  return (
    <dl class="facts">
      <dt>ID</dt>
      <dd>
        <code>{apiKey.id}</code>
      </dd>
      <dt>Starts with</dt>
      <dd>
        <code>{apiKey.prefix}…</code>
      </dd>
      <dt>Plan</dt>
      <dd>{apiKey.plan}</dd>
      <dt>Limits</dt>
      <dd>
        {formatNumber(apiKey.effectiveLimits.perMinute)} a minute,{' '}
        {formatNumber(apiKey.effectiveLimits.perDay)} a day
      </dd>
      <dt>Scopes</dt>
      <dd>{apiKey.scopes.join(', ')}</dd>
      <dt>Environment</dt>
      <dd>{apiKey.env}</dd>
      <dt>Created</dt>
      <dd>{formatTime(apiKey.createdAt)}</dd>
      <dt>Expires</dt>
      <dd>{formatTime(apiKey.expiresAt, 'Never')}</dd>
      <dt>Last used</dt>
      <dd>{formatTime(apiKey.lastUsedAt, 'Never')}</dd>
      {apiKey.revokedAt && (
        <>
          <dt>Revoked</dt>
          <dd>{formatTime(apiKey.revokedAt)}</dd>
        </>
      )}
      {apiKey.bannedUntil && (
        <>
          <dt>Banned until</dt>
          <dd>{formatTime(apiKey.bannedUntil)}</dd>
        </>
      )}
      {apiKey.replacedBy && (
        <>
          <dt>Rotation</dt>
          <dd>
            <KeyRotation apiKey={apiKey} />
          </dd>
        </>
      )}
    </dl>
  );
}

/**
 * What the page of a key made by a rotation says about the key it replaces: until when that one still works
 * (the end of its grace period, or its own expiry if that came first), when the old key could be read again.
 */
function rotationNotice(oldId: string, old: ApiKey | null): string {
  if (old === null) return `This key replaces ${oldId}.`;
  const end = old.expiresAt === null ? null : Date.parse(old.expiresAt);
  const works =
    end !== null && end > Date.now()
      ? `keeps working until ${formatTime(old.expiresAt)}, so that you can deploy this one`
      : 'stopped working at once';
  return `This key replaces ${oldId}, which ${works}.`;
}

/**
 * One key: its details, edit, Rotate, Revoke, Unban, its usage charts and its audit history. Rotate leads to
 * the new key's page, which shows the new key once.
 */
export function KeyPage({ id }: { id: string }) {
  const key = useServerData(() => api.getKey(id), [id]);
  const history = useServerData(() => api.audit({ target: id, limit: 50 }), [id]);
  const [mode, setMode] = useState<'view' | 'edit' | 'rotate' | 'revoke'>('view');
  const [actionError, setActionError] = useState<string | null>(null);
  // Focus goes back to the button that opened a form when it closes without a change of page.
  const editButton = useFocusReturn<HTMLButtonElement>();
  const rotateButton = useFocusReturn<HTMLButtonElement>();
  const title = useFocusReturn<HTMLHeadingElement>();
  useTitle(key.data?.name ?? id);

  if (key.error instanceof ApiError && (key.error.status === 404 || key.error.status === 400))
    return <NotFound what={`The key ${id}`} />;
  if (key.error) return <LoadError error={key.error} />;
  if (!key.data) return <Loading what="the key" />;
  const apiKey = key.data;
  const changed = async () => {
    setMode('view');
    await Promise.all([key.reload(), history.reload()]);
  };
  const unban = async () => {
    setActionError(null);
    try {
      await api.unbanKey(apiKey.id);
      await changed();
    } catch (failure) {
      setActionError((failure as Error).message);
    }
  };
  const rotate = async (seconds: number) => {
    const made = await api.rotateKey(apiKey.id, seconds);
    // The old key as the rotation left it: its expiry is now the end of its grace period.
    const old = await api.getKey(apiKey.id).catch(() => null);
    const to = href('keys', made.id);
    issuedSecret.value = { secret: made.key, pathname: to };
    notice.value = { text: rotationNotice(apiKey.id, old), pathname: to };
    navigate(to);
  };
  const usable = apiKey.state !== 'revoked';

  return (
    <>
      <p class="breadcrumb">
        <a href={href('keys')}>API keys</a>
      </p>
      <div class="title-row">
        <h1 tabIndex={-1} class="break" ref={title.ref}>
          {apiKey.name}
        </h1>
        <KeyStateBadge state={apiKey.state} />
        {apiKey.bannedUntil && <Badge tone="bad">Banned</Badge>}
      </div>
      <IssuedSecret heading="The new key" onDone={title.returnHere} />
      {(mode === 'view' || mode === 'revoke') && (
        <div class="actions">
          {usable && may('updateApiKey') && (
            <button type="button" ref={editButton.ref} onClick={() => setMode('edit')}>
              Edit
            </button>
          )}
          {usable && !apiKey.replacedBy && may('rotateApiKey') && (
            <button type="button" ref={rotateButton.ref} onClick={() => setMode('rotate')}>
              Rotate
            </button>
          )}
          {apiKey.state === 'banned' && may('unbanApiKey') && (
            <button type="button" onClick={unban}>
              Unban
            </button>
          )}
          {usable && may('revokeApiKey') && (
            <button type="button" class="button-danger" onClick={() => setMode('revoke')}>
              Revoke
            </button>
          )}
        </div>
      )}
      {actionError && (
        <p class="error" role="alert">
          {actionError}
        </p>
      )}
      {mode === 'edit' && (
        <section class="panel" aria-labelledby="edit-heading">
          <h2 id="edit-heading">Edit the key</h2>
          <KeyForm
            initial={fieldsOf(apiKey)}
            submitLabel="Save"
            onSubmit={async (fields) => {
              const change = changeOf(apiKey, fields);
              if (Object.keys(change).length > 0) await api.updateKey(apiKey.id, change);
              editButton.returnHere();
              await changed();
            }}
            onCancel={() => {
              setMode('view');
              editButton.returnHere();
            }}
          />
        </section>
      )}
      {mode === 'rotate' && (
        <RotateKeyForm
          units={['minutes', 'hours']}
          guided={false}
          onRotate={rotate}
          onCancel={() => {
            setMode('view');
            rotateButton.returnHere();
          }}
        />
      )}
      {mode === 'revoke' && (
        <RevokeKeyDialog apiKey={apiKey} onRevoked={changed} onClose={() => setMode('view')} />
      )}

      <section aria-labelledby="details-heading">
        <h2 id="details-heading">Details</h2>
        <KeyFacts apiKey={apiKey} />
      </section>
      <section aria-labelledby="usage-heading">
        <h2 id="usage-heading">Usage</h2>
        <p>
          <a href={requestsHref({ key: apiKey.id })}>Its requests</a>, one by one, in the request log.
        </p>
        <UsageCharts keyId={apiKey.id} />
      </section>
      <section aria-labelledby="history-heading">
        <h2 id="history-heading">History</h2>
        {history.error && <LoadError error={history.error} />}
        {history.data && <AuditTable events={history.data} caption={`Audit events of ${apiKey.id}`} />}
      </section>
    </>
  );
}
