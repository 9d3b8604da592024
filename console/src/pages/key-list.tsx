import { useState } from 'preact/hooks';
import { CardTable, type Column } from '../../../kit/components/card-table.js';
import { LoadedList } from '../../../kit/components/loaded-list.js';
import { OneTimeSecret } from '../../../kit/components/one-time-secret.js';
import { Time } from '../../../kit/components/time.js';
import { formatNumber, formatShare } from '../../../kit/format.js';
import { useFocusReturn, useServerData } from '../../../kit/hooks.js';
import { api } from '../api.js';
import { type KeyFields, KeyForm } from '../components/key-form.js';
import { KeyRotation } from '../components/key-rotation.js';
import { KeyStateBadge } from '../components/state-badges.js';
import { SCOPE_NAMES } from '../plans.js';
import { href } from '../router.js';
import { may } from '../session.js';
import { useTitle } from '../title.js';
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

/** A key's scopes in few words: `All`, `All but orders:write` when one or two are left out, else the list. */
function scopesText(scopes: ApiKey['scopes']): string {
  const missing = SCOPE_NAMES.filter((scope) => !scopes.includes(scope));
  if (missing.length === 0) return 'All';
  return missing.length <= 2 ? `All but ${missing.join(', ')}` : scopes.join(', ');
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

/** What the list shows of a key, with its use today and the key it replaced. */
interface KeyLine {
  apiKey: ApiKey;
  usage: KeyUsage | undefined;
  predecessor: ApiKey | undefined;
}

/**
 * A key's columns. What tells it apart comes first: its name, its state, and the start of the key itself (a
 * rotated key and its successor share their name), then its rotation and today's use, then its settings.
 */
const KEY_COLUMNS: Column<KeyLine>[] = [
  {
    header: 'State',
    cell: ({ apiKey }) => (
      <>
        <KeyStateBadge state={apiKey.state} />
        {apiKey.bannedUntil && (
          <>
            {' '}
            until <Time iso={apiKey.bannedUntil} />
          </>
        )}
      </>
    ),
  },
  {
    header: 'Key',
    cell: ({ apiKey }) => (
      <>
        <code class="nowrap">{apiKey.prefix}…</code>
        <br />
        <code class="muted">{apiKey.id}</code>
      </>
    ),
  },
  {
    header: 'Rotation',
    cell: ({ apiKey, predecessor }) => <KeyRotation apiKey={apiKey} predecessor={predecessor} />,
  },
  {
    header: 'Today (of day limit)',
    label: 'Today',
    class: 'nowrap',
    cell: ({ apiKey, usage }) => <TodayUse usage={usage} perDay={apiKey.effectiveLimits.perDay} />,
  },
  { header: 'Plan', cell: ({ apiKey }) => apiKey.plan },
  { header: 'Scopes', cell: ({ apiKey }) => scopesText(apiKey.scopes) },
  { header: 'Expires', cell: ({ apiKey }) => <Time iso={apiKey.expiresAt} fallback="Never" /> },
  { header: 'Last used', cell: ({ apiKey }) => <Time iso={apiKey.lastUsedAt} fallback="Never" /> },
];

/** API keys: the list with today's use, and Create, which shows the new key once. */
export function KeyList() {
  useTitle('API keys');
  const keys = useServerData(api.listKeys, []);
  // Today's use is a second request: the list still shows if it fails.
  const usage = useServerData(() => api.usageByKey(ALL_KEYS), []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  const createButton = useFocusReturn<HTMLButtonElement>();
  const usageOf = new Map(usage.data?.map((row) => [row.keyId, row]));
  // A successor is told from the key it replaced by the list itself: the API names only the successor.
  const predecessorOf = new Map(
    keys.data?.flatMap((key) => (key.replacedBy === null ? [] : [[key.replacedBy, key] as const])),
  );

  const create = async (fields: KeyFields) => {
    const made = await api.createKey(newKeyBody(fields));
    setCreating(false);
    setCreated(made.key);
    await keys.reload();
  };
  const cancel = () => {
    setCreating(false);
    createButton.returnHere();
  };

  return (
    <>
      <div class="title-row">
        <h1 tabIndex={-1}>API keys</h1>
        {!creating && may('createApiKey') && (
          <button
            type="button"
            class="button-primary"
            ref={createButton.ref}
            onClick={() => setCreating(true)}
          >
            Create key
          </button>
        )}
      </div>
      {created && (
        <OneTimeSecret
          heading="Your new key"
          secret={created}
          onDone={() => {
            setCreated(null);
            createButton.returnHere();
          }}
        />
      )}
      {creating && (
        <section class="panel" aria-labelledby="create-heading">
          <h2 id="create-heading">Create a key</h2>
          <KeyForm initial={NEW_KEY} submitLabel="Create key" onSubmit={create} onCancel={cancel} />
        </section>
      )}
      <LoadedList list={keys} what="keys" empty={<p class="muted">No keys yet.</p>}>
        {(rows) => (
          <CardTable
            caption="API keys"
            class="wide"
            rows={rows.map((apiKey) => ({
              apiKey,
              usage: usageOf.get(apiKey.id),
              predecessor: predecessorOf.get(apiKey.id),
            }))}
            rowKey={({ apiKey }) => apiKey.id}
            name={{
              header: 'Name',
              cell: ({ apiKey }) => (
                <a href={href('keys', apiKey.id)} class="break">
                  {apiKey.name}
                </a>
              ),
            }}
            columns={KEY_COLUMNS}
          />
        )}
      </LoadedList>
    </>
  );
}
