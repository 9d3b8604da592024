import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Badge, KeyStateBadge } from '../components/badge.js';
import { type KeyFields, KeyForm } from '../components/key-form.js';
import { NewKey } from '../components/new-key.js';
import { LoadError, Loading } from '../components/status.js';
import { formatNumber, formatShare, formatTime } from '../format.js';
import { useServerData, useTitle } from '../hooks.js';
import { SCOPE_NAMES } from '../plans.js';
import { href } from '../router.js';
import type { ApiKey, KeyUsage, NewApiKey } from '../types.js';

/** The API's most: today's use of every key in one request. */
const ALL_KEYS = 1000;

const NEW_KEY: KeyFields = {
  name: '',
  plan: 'pro',
  scopes: SCOPE_NAMES,
  expiresAt: null,
  perMinute: null,
  perDay: null,
};

/** The body of Create: only the fields set, limits for enterprise only (other plans refuse them). */
function newKeyBody(fields: KeyFields): NewApiKey {
  return {
    plan: fields.plan,
    scopes: fields.scopes,
    ...(fields.name.trim() === '' ? {} : { name: fields.name.trim() }),
    ...(fields.expiresAt === null ? {} : { expiresAt: fields.expiresAt }),
    ...(fields.plan === 'enterprise' && fields.perMinute !== null && fields.perDay !== null
      ? { perMinute: fields.perMinute, perDay: fields.perDay }
      : {}),
  };
}

/** Today's use of the key's day window, as `120 / 1,000 (12%)`. */
function TodayUse({ usage, perDay }: { usage: KeyUsage | undefined; perDay: number }) {
  if (usage === undefined) return <span class="muted">0 / {formatNumber(perDay)}</span>;
  return (
    <span class={usage.dayShare > 0.8 ? 'over' : undefined}>
      {formatNumber(usage.used)} / {formatNumber(usage.perDay)} ({formatShare(usage.dayShare)})
    </span>
  );
}

function KeyRow({ apiKey, usage }: { apiKey: ApiKey; usage: KeyUsage | undefined }) {
  return (
    <tr>
      <th scope="row">
        <a href={href('keys', apiKey.id)} class="break">
          {apiKey.name}
        </a>
      </th>
      <td>
        <code>{apiKey.id}</code>
      </td>
      <td>{apiKey.plan}</td>
      <td>{apiKey.scopes.length === SCOPE_NAMES.length ? 'All' : apiKey.scopes.join(', ')}</td>
      <td>
        <KeyStateBadge state={apiKey.state} />
      </td>
      <td class="nowrap">{formatTime(apiKey.expiresAt, 'Never')}</td>
      <td class="nowrap">{formatTime(apiKey.lastUsedAt, 'Never')}</td>
      <td class="nowrap">
        <TodayUse usage={usage} perDay={apiKey.effectiveLimits.perDay} />
      </td>
      <td class="nowrap">
        {apiKey.bannedUntil ? <Badge tone="bad">Until {formatTime(apiKey.bannedUntil)}</Badge> : 'No'}
      </td>
    </tr>
  );
}

/** API keys: the list with today's use, and Create, which shows the new key once. */
export function KeyList() {
  useTitle('API keys');
  const keys = useServerData(api.listKeys, []);
  // Today's use is a second request: the list still shows if it fails.
  const usage = useServerData(() => api.usageByKey(ALL_KEYS), []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  const usageOf = new Map(usage.data?.map((row) => [row.keyId, row]));

  const create = async (fields: KeyFields) => {
    const made = await api.createKey(newKeyBody(fields));
    setCreating(false);
    setCreated(made.key);
    await keys.reload();
  };

  return (
    <>
      <div class="title-row">
        <h1 tabIndex={-1}>API keys</h1>
        {!creating && (
          <button type="button" class="button-primary" onClick={() => setCreating(true)}>
            Create key
          </button>
        )}
      </div>
      {created && <NewKey heading="Your new key" secret={created} onDone={() => setCreated(null)} />}
      {creating && (
        <section class="panel" aria-labelledby="create-heading">
          <h2 id="create-heading">Create a key</h2>
          <KeyForm
            initial={NEW_KEY}
            submitLabel="Create key"
            onSubmit={create}
            onCancel={() => setCreating(false)}
          />
        </section>
      )}
      {keys.error && <LoadError error={keys.error} />}
      {!keys.data && !keys.error && <Loading what="keys" />}
      {keys.data?.length === 0 && <p class="muted">No keys yet.</p>}
      {keys.data && keys.data.length > 0 && (
        <div class="table-scroll">
          <table class="wide">
            <caption class="visually-hidden">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">ID</th>
                <th scope="col">Plan</th>
                <th scope="col">Scopes</th>
                <th scope="col">State</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">Today (of day limit)</th>
                <th scope="col">Banned</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((apiKey) => (
                <KeyRow key={apiKey.id} apiKey={apiKey} usage={usageOf.get(apiKey.id)} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
