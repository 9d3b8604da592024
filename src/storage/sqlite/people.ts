import type { OidcLoginRepository, PeopleRepository } from '../../people/index.js';
import {
  type OidcLoginRow,
  PEOPLE_LIST_SQL,
  PERSON_SIGN_IN_SQL,
  type PersonRow,
  toOidcLogin,
  toPersonRecord,
} from '../identity-rows.js';
import { type Database, preparedAtFirstUse } from './driver.js';
import type { WriteQueue } from './write-queue.js';

/** People who sign in with OpenID Connect, and their sign-ins under way, in SQLite. */
export function sqlitePeople(
  db: Database,
  writes: WriteQueue,
): { people: PeopleRepository; oidcLogins: OidcLoginRepository } {
  const signIn = preparedAtFirstUse<unknown[], PersonRow>(db, PERSON_SIGN_IN_SQL.replace(/\$\d+/g, '?'));
  const find = preparedAtFirstUse<[string], PersonRow>(db, 'SELECT * FROM people WHERE id = ?');
  const all = preparedAtFirstUse<[], PersonRow>(db, 'SELECT * FROM people');
  const list = preparedAtFirstUse<[string, string], PersonRow>(db, PEOPLE_LIST_SQL.replace(/\$\d+/g, '?'));
  const put = preparedAtFirstUse(
    db,
    'INSERT INTO oidc_logins (state, binding, verifier, nonce, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const stale = preparedAtFirstUse<[string]>(db, 'DELETE FROM oidc_logins WHERE created_at < ?');
  const take = preparedAtFirstUse<[string], OidcLoginRow>(
    db,
    'DELETE FROM oidc_logins WHERE state = ? RETURNING *',
  );
  return {
    people: {
      signIn(person, at, id) {
        return writes.run(() =>
          toPersonRecord(
            // Positional: the time goes in twice, as the first and the last sign-in.
            signIn().get(
              id,
              person.issuer,
              person.subject,
              person.email,
              person.name,
              person.role,
              at,
              at,
            ) as PersonRow,
          ),
        );
      },
      async find(id) {
        const row = find().get(id);
        return row === undefined ? undefined : toPersonRecord(row);
      },
      async all() {
        return all().all().map(toPersonRecord);
      },
      async list(now, idleSince) {
        return list()
          .all(now, idleSince)
          .map((row: PersonRow) => ({ ...toPersonRecord(row), sessions: Number(row.sessions) }));
      },
    },
    oidcLogins: {
      async put(login, staleBefore) {
        await writes.run(() => {
          stale().run(staleBefore);
          put().run(login.state, login.binding, login.verifier, login.nonce, login.createdAt);
        });
      },
      take(state) {
        return writes.run(() => {
          const row = take().get(state);
          return row === undefined ? undefined : toOidcLogin(row);
        });
      },
    },
  };
}
