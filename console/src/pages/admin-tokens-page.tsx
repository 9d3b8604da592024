import { useState } from 'preact/hooks';
import { Badge } from '../../../kit/components/badge.js';
import { CardTable } from '../../../kit/components/card-table.js';
import { ConfirmDialog } from '../../../kit/components/confirm-dialog.js';
import { LoadedList } from '../../../kit/components/loaded-list.js';
import { ActionError } from '../../../kit/components/status.js';
import { formatTime } from '../../../kit/format.js';
import { useAction, useServerData } from '../../../kit/hooks.js';
import { ROLE_MEANING, ROLES, type Role } from '../../../src/contract/roles.js';
import { api } from '../api.js';
import { IssuedSecret } from '../components/issued-secret.js';
import { RowButton } from '../components/row-button.js';
import { issuedSecret } from '../notice.js';
import { location } from '../router.js';
import { may, session } from '../session.js';
import { useTitle } from '../title.js';
import type { AdminToken } from '../types.js';

/** Who made a token, in words: a person or a token by name, the command line, or nobody recorded. */
function madeBy(maker: AdminToken['createdBy']): string {
  if (maker === null) return 'Not recorded';
  if (maker.kind === 'cli') return 'The command line';
  return `${maker.name ?? maker.id} (${maker.kind === 'person' ? 'person' : 'token'})`;
}

/** The roles a person may give: never above their own (the roles run from the most trusted down). */
function rolesUpTo(own: Role | undefined): readonly Role[] {
  const from = own === undefined ? -1 : ROLES.indexOf(own);
  return from < 0 ? [] : ROLES.slice(from);
}

/** Make a token: a name and a role; the token is shown once above the list. */
function NewTokenForm({ onMade }: { onMade: () => void }) {
  const choices = rolesUpTo(session.value?.role);
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await run(async () => {
      const made = await api.createAdminToken({ role, ...(name.trim() ? { name: name.trim() } : {}) });
      issuedSecret.value = { secret: made.token, pathname: location.value.pathname };
      setName('');
      onMade();
    });
  };
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="new-token-heading">
      <h2 id="new-token-heading">Create an admin token</h2>
      <label for="token-name">Name</label>
      <input
        id="token-name"
        value={name}
        maxLength={100}
        onInput={(event) => setName(event.currentTarget.value)}
      />
      <label for="token-role">Role</label>
      <select id="token-role" value={role} onChange={(event) => setRole(event.currentTarget.value as Role)}>
        {choices.map((choice) => (
          <option key={choice} value={choice}>
            {choice}: {ROLE_MEANING[choice]}
          </option>
        ))}
      </select>
      <div class="actions">
        <button type="submit" class="button-primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create token'}
        </button>
      </div>
      <ActionError error={error} />
    </form>
  );
}

/** Admin tokens: every token with its role; an owner makes and revokes them. */
export function AdminTokensPage() {
  useTitle('Admin tokens');
  const tokens = useServerData(api.listAdminTokens, []);
  const [revoking, setRevoking] = useState<AdminToken | null>(null);
  return (
    <>
      <h1 tabIndex={-1}>Admin tokens</h1>
      <p class="muted">
        Each token of the admin API has a role, which says what it and the console sessions made with it may
        do. A token is shown once, when it is made. A token a person made outlives their removal at the
        identity provider: an owner’s People page lists theirs, and revokes them with their sessions.
      </p>
      <IssuedSecret heading="The new admin token" what="the admin token" />
      {may('createAdminToken') && <NewTokenForm onMade={() => void tokens.reload()} />}
      <h2>Tokens</h2>
      <LoadedList list={tokens} what="admin tokens">
        {(rows) => (
          <CardTable
            caption="Admin tokens"
            rows={rows}
            rowKey={(token) => token.id}
            name={{
              header: 'Name',
              cell: (token) => (
                <>
                  {token.name}
                  <div class="muted">
                    <code>{token.id}</code>
                  </div>
                </>
              ),
            }}
            columns={[
              { header: 'Role', cell: (token) => token.role },
              { header: 'Prefix', cell: (token) => <code>{token.prefix}…</code> },
              { header: 'Created', class: 'nowrap', cell: (token) => formatTime(token.createdAt) },
              { header: 'Made by', cell: (token) => madeBy(token.createdBy) },
              {
                header: 'State',
                cell: (token) =>
                  token.revokedAt === null ? (
                    <Badge tone="good">Active</Badge>
                  ) : (
                    <Badge tone="neutral">Revoked {formatTime(token.revokedAt)}</Badge>
                  ),
              },
              {
                header: 'Actions',
                hidden: true,
                class: 'row-actions',
                cell: (token) =>
                  token.revokedAt === null &&
                  may('revokeAdminToken') && (
                    <RowButton danger name={`Revoke ${token.name}`} onClick={() => setRevoking(token)}>
                      Revoke
                    </RowButton>
                  ),
              },
            ]}
          />
        )}
      </LoadedList>
      {revoking && (
        <ConfirmDialog
          title={`Revoke ${revoking.name}?`}
          confirmLabel="Revoke token"
          onConfirm={async () => {
            await api.revokeAdminToken(revoking.id);
            await tokens.reload();
          }}
          onClose={() => setRevoking(null)}
        >
          <p>
            Every server refuses it within 5 seconds, and every console session made with it ends
            {revoking.id === session.value?.tokenId ? ', this one included' : ''}.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
