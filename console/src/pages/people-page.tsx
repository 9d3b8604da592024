import { useState } from 'preact/hooks';
import { Badge } from '../../../kit/components/badge.js';
import { CardTable } from '../../../kit/components/card-table.js';
import { ConfirmDialog } from '../../../kit/components/confirm-dialog.js';
import { LoadedList } from '../../../kit/components/loaded-list.js';
import { formatTime } from '../../../kit/format.js';
import { useServerData } from '../../../kit/hooks.js';
import { personName } from '../../../src/contract/roles.js';
import { api } from '../api.js';
import { RowButton } from '../components/row-button.js';
import { notice } from '../notice.js';
import { location } from '../router.js';
import { may, session } from '../session.js';
import { useTitle } from '../title.js';
import type { Person, PersonSessionsEnded } from '../types.js';

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** The live admin tokens a person made, each with its role and, when a token of theirs made it, which. */
function PersonTokens({ person }: { person: Person }) {
  if (person.tokens.length === 0) return <span class="muted">None</span>;
  return (
    <ul class="token-list">
      {person.tokens.map((token) => (
        <li key={token.id}>
          {token.name} <span class="muted">({token.role})</span>
          <div class="muted">
            <code>{token.id}</code>, made <span class="nowrap">{formatTime(token.createdAt)}</span>
            {token.through && <>, through {token.through.name}</>}
          </div>
        </li>
      ))}
    </ul>
  );
}

/** What an ending did, for the page's notice. */
function outcome(person: Person, { ended, revokedTokens }: PersonSessionsEnded): string {
  const name = personName(person);
  const sessions = `${plural(ended, 'session')} of ${name}`;
  if (revokedTokens.length === 0) return ended === 0 ? `${name} had no live session.` : `Ended ${sessions}.`;
  const revoked = `${plural(revokedTokens.length, 'admin token')} ${ended === 0 ? `${name} made` : 'they made'}: ${revokedTokens.map((token) => token.name).join(', ')}`;
  return ended === 0 ? `Revoked ${revoked}.` : `Ended ${sessions} and revoked ${revoked}.`;
}

/**
 * Confirms ending a person's sessions, and offers to revoke the tokens they made too, naming how many; a
 * person with no session left (removed at the provider, say) but with tokens is offered their revocation.
 */
function EndSessionsDialog({
  person,
  onEnded,
  onClose,
}: {
  person: Person;
  onEnded: (answer: PersonSessionsEnded) => Promise<void>;
  onClose: () => void;
}) {
  const name = personName(person);
  const count = person.tokens.length;
  const tokensOnly = person.sessions === 0;
  // Off until asked: a token may serve a script that outlives its maker's job, and a revocation is final.
  const [revokeTokens, setRevokeTokens] = useState(tokensOnly);
  const tokens = plural(count, 'admin token');
  return (
    <ConfirmDialog
      title={tokensOnly ? `Revoke the tokens ${name} made?` : `End the sessions of ${name}?`}
      confirmLabel={
        tokensOnly ? `Revoke ${tokens}` : revokeTokens ? `End sessions and revoke ${tokens}` : 'End sessions'
      }
      onConfirm={async () => onEnded(await api.endPersonSessions(person.id, { revokeTokens }))}
      onClose={onClose}
    >
      {tokensOnly ? (
        <p>
          They have no live session, but the {tokens} they made still work. Every server refuses{' '}
          {count === 1 ? 'it' : 'them'} within 5 seconds, and every console session made with{' '}
          {count === 1 ? 'it' : 'them'} ends:
        </p>
      ) : (
        <p>
          Every console session of theirs ends on every server at their next request
          {person.id === session.value?.person?.id ? ', this one included' : ''}. They can sign in again while
          the identity provider lets them.
        </p>
      )}
      {!tokensOnly && count > 0 && (
        <label class="check-label">
          <input
            type="checkbox"
            checked={revokeTokens}
            onChange={(event) => setRevokeTokens(event.currentTarget.checked)}
          />{' '}
          Also revoke the {tokens} they made, which outlive their sessions and their removal at the provider:
        </label>
      )}
      {count > 0 && (
        <ul>
          {person.tokens.map((token) => (
            <li key={token.id}>
              {token.name} <code>{token.id}</code> ({token.role})
            </li>
          ))}
        </ul>
      )}
    </ConfirmDialog>
  );
}

/**
 * People: who signed in with the identity provider, when, with which role, and the admin tokens they made;
 * the owner ends their sessions and revokes those tokens.
 */
export function PeoplePage() {
  useTitle('People');
  const people = useServerData(api.listPeople, []);
  const [ending, setEnding] = useState<Person | null>(null);
  const { pathname } = location.value;
  return (
    <>
      <h1 tabIndex={-1}>People</h1>
      <p class="muted">
        Everyone who signed in with the identity provider. Their role comes from their groups there, at each
        sign-in; removing someone from their groups ends their sessions within 5 minutes of their next
        request. Ending their sessions here signs them out at once; to keep them out, remove them at the
        provider. Admin tokens they made outlive both: revoke them here when they leave.
      </p>
      <LoadedList
        list={people}
        what="people"
        empty={<p>Nobody has signed in with the identity provider yet.</p>}
      >
        {(rows) => (
          <CardTable
            caption="People"
            rows={rows}
            rowKey={(person) => person.id}
            name={{
              header: 'Person',
              cell: (person) => (
                <>
                  {personName(person)}
                  <div class="muted">
                    {person.email && person.email !== personName(person) && <div>{person.email}</div>}
                    <code>{person.subject}</code>
                  </div>
                </>
              ),
            }}
            columns={[
              { header: 'Role', cell: (person) => person.role },
              {
                header: 'Last sign-in',
                class: 'nowrap',
                cell: (person) => formatTime(person.lastSignInAt),
              },
              {
                header: 'First sign-in',
                class: 'nowrap',
                cell: (person) => formatTime(person.firstSignInAt),
              },
              {
                header: 'Sessions',
                cell: (person) =>
                  person.sessions > 0 ? (
                    <Badge tone="good">{person.sessions} live</Badge>
                  ) : (
                    <Badge tone="neutral">None</Badge>
                  ),
              },
              {
                header: 'Tokens they made',
                label: 'Tokens',
                cell: (person) => <PersonTokens person={person} />,
              },
              {
                header: 'Actions',
                hidden: true,
                class: 'row-actions',
                cell: (person) =>
                  (person.sessions > 0 || person.tokens.length > 0) &&
                  may('endPersonSessions') && (
                    <RowButton
                      danger
                      name={`${person.sessions > 0 ? 'End sessions' : 'Revoke tokens'} of ${personName(person)}`}
                      onClick={() => setEnding(person)}
                    >
                      {person.sessions > 0 ? 'End sessions' : 'Revoke tokens'}
                    </RowButton>
                  ),
              },
            ]}
          />
        )}
      </LoadedList>
      {ending && (
        <EndSessionsDialog
          person={ending}
          onEnded={async (answer) => {
            notice.value = { text: outcome(ending, answer), pathname };
            await people.reload();
          }}
          onClose={() => setEnding(null)}
        />
      )}
    </>
  );
}
