import { useState } from 'preact/hooks';
import { personName } from '../../../src/contract/roles.js';
import { api } from '../api.js';
import { Badge } from '../components/badge.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { LoadError, Loading } from '../components/status.js';
import { formatTime } from '../format.js';
import { useServerData, useTitle } from '../hooks.js';
import { may, session } from '../session.js';
import type { Person } from '../types.js';

/** People: who signed in with the identity provider, when, with which role; the owner ends their sessions. */
export function PeoplePage() {
  useTitle('People');
  const people = useServerData(api.listPeople, []);
  const [ending, setEnding] = useState<Person | null>(null);
  return (
    <>
      <h1 tabIndex={-1}>People</h1>
      <p class="muted">
        Everyone who signed in with the identity provider. Their role comes from their groups there, at each
        sign-in; removing someone from their groups ends their sessions within 5 minutes of their next
        request. Ending their sessions here signs them out at once; to keep them out, remove them at the
        provider.
      </p>
      {people.error && <LoadError error={people.error} />}
      {!people.data && !people.error && <Loading what="people" />}
      {people.data && people.data.length === 0 && <p>Nobody has signed in with the identity provider yet.</p>}
      {people.data && people.data.length > 0 && (
        <div class="table-scroll cards">
          <table>
            <caption class="visually-hidden">People</caption>
            <thead>
              <tr>
                <th scope="col">Person</th>
                <th scope="col">Role</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">First sign-in</th>
                <th scope="col">Sessions</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {people.data.map((person) => (
                <tr key={person.id}>
                  <th scope="row">
                    {personName(person)}
                    <div class="muted">
                      {person.email && person.email !== personName(person) && <div>{person.email}</div>}
                      <code>{person.subject}</code>
                    </div>
                  </th>
                  <td data-label="Role">{person.role}</td>
                  <td data-label="Last sign-in" class="nowrap">
                    {formatTime(person.lastSignInAt)}
                  </td>
                  <td data-label="First sign-in" class="nowrap">
                    {formatTime(person.firstSignInAt)}
                  </td>
                  <td data-label="Sessions">
                    {person.sessions > 0 ? (
                      <Badge tone="good">{person.sessions} live</Badge>
                    ) : (
                      <Badge tone="neutral">None</Badge>
                    )}
                  </td>
                  <td class="row-actions">
                    {person.sessions > 0 && may('endPersonSessions') && (
                      <button
                        type="button"
                        class="button-small button-danger"
                        aria-label={`End sessions of ${personName(person)}`}
                        onClick={() => setEnding(person)}
                      >
                        End sessions
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {ending && (
        <ConfirmDialog
          title={`End the sessions of ${personName(ending)}?`}
          confirmLabel="End sessions"
          onConfirm={async () => {
            await api.endPersonSessions(ending.id);
            await people.reload();
          }}
          onClose={() => setEnding(null)}
        >
          <p>
            Every console session of theirs ends on every server at their next request
            {ending.id === session.value?.person?.id ? ', this one included' : ''}. They can sign in again
            while the identity provider lets them.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
