import type pg from 'pg';
import type { OidcLoginRepository, PeopleRepository } from '../../people/index.js';
import {
  type OidcLoginRow,
  PEOPLE_LIST_SQL,
  PERSON_SIGN_IN_SQL,
  type PersonRow,
  toOidcLogin,
  toPersonRecord,
} from '../identity-rows.js';

/** People who sign in with OpenID Connect, and their sign-ins under way, in PostgreSQL: every instance sees them. */
export function postgresPeople(pool: pg.Pool): { people: PeopleRepository; oidcLogins: OidcLoginRepository } {
  return {
    people: {
      async signIn(person, at, id) {
        const { rows } = await pool.query<PersonRow>(PERSON_SIGN_IN_SQL, [
          id,
          person.issuer,
          person.subject,
          person.email,
          person.name,
          person.role,
          at,
        ]);
        return toPersonRecord(rows[0] as PersonRow);
      },
      async find(id) {
        const { rows } = await pool.query<PersonRow>('SELECT * FROM people WHERE id = $1', [id]);
        return rows[0] === undefined ? undefined : toPersonRecord(rows[0]);
      },
      async all() {
        const { rows } = await pool.query<PersonRow>('SELECT * FROM people');
        return rows.map(toPersonRecord);
      },
      async list(now, idleSince) {
        const { rows } = await pool.query<PersonRow>(PEOPLE_LIST_SQL, [now, idleSince]);
        return rows.map((row) => ({ ...toPersonRecord(row), sessions: Number(row.sessions) }));
      },
    },
    oidcLogins: {
      async put(login, staleBefore) {
        await pool.query('DELETE FROM oidc_logins WHERE created_at < $1', [staleBefore]);
        await pool.query(
          'INSERT INTO oidc_logins (state, binding, verifier, nonce, created_at) VALUES ($1, $2, $3, $4, $5)',
          [login.state, login.binding, login.verifier, login.nonce, login.createdAt],
        );
      },
      async take(state) {
        const { rows } = await pool.query<OidcLoginRow>(
          'DELETE FROM oidc_logins WHERE state = $1 RETURNING *',
          [state],
        );
        return rows[0] === undefined ? undefined : toOidcLogin(rows[0]);
      },
    },
  };
}
