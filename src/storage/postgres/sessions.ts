import type pg from 'pg';
import type { AuditEntry } from '../../audit/index.js';
import type { SessionRepository } from '../../identity/index.js';
import {
  type AdminTokenRow,
  oldestFirst,
  REVOKE_MADE_BY_SQL,
  SESSION_COLUMNS,
  type SessionRow,
  sessionValues,
  toAdminTokenRecord,
  toSessionRecord,
} from '../identity-rows.js';
import { BUMP_CREDENTIALS_VERSION } from '../rows.js';
import { type Queryable, transaction } from './transaction.js';

/** Console sessions in PostgreSQL, so that every instance accepts them; start and end audited in their transaction. */
export function postgresSessions(
  pool: pg.Pool,
  audit: { append(db: Queryable, entry: AuditEntry): Promise<void> },
): SessionRepository {
  return {
    async insert(record, entry) {
      await transaction(pool, async (client) => {
        await client.query(
          `INSERT INTO admin_sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          sessionValues(record),
        );
        await audit.append(client, entry);
      });
    },
    async find(digest) {
      const { rows } = await pool.query<SessionRow>('SELECT * FROM admin_sessions WHERE digest = $1', [
        digest,
      ]);
      return rows[0] === undefined ? undefined : toSessionRecord(rows[0]);
    },
    async touch(digest, at) {
      await pool.query('UPDATE admin_sessions SET last_seen_at = $1 WHERE digest = $2 AND ended_at IS NULL', [
        at,
        digest,
      ]);
    },
    end(digest, at, entry) {
      return transaction(pool, async (client) => {
        const { rowCount } = await client.query(
          'UPDATE admin_sessions SET ended_at = $1 WHERE digest = $2 AND ended_at IS NULL',
          [at, digest],
        );
        if ((rowCount ?? 0) === 0) return false;
        await audit.append(client, entry);
        return true;
      });
    },
    endOfPerson(personId, at, entry, revoking) {
      return transaction(pool, async (client) => {
        const { rowCount } = await client.query(
          'UPDATE admin_sessions SET ended_at = $1 WHERE person_id = $2 AND ended_at IS NULL',
          [at, personId],
        );
        const ended = rowCount ?? 0;
        const revoked =
          revoking === undefined
            ? []
            : oldestFirst(
                (await client.query<AdminTokenRow>(REVOKE_MADE_BY_SQL, [personId, at])).rows.map(
                  toAdminTokenRecord,
                ),
              );
        const listed = revoking === undefined ? {} : { revokedTokens: revoked.map((token) => token.id) };
        await audit.append(client, { ...entry, details: { ...entry.details, ended, ...listed } });
        if (revoking !== undefined && revoked.length > 0) {
          await client.query(BUMP_CREDENTIALS_VERSION);
          for (const token of revoked) await audit.append(client, revoking(token.id));
        }
        return { ended, revoked };
      });
    },
    async claimCheck(digest, seen, at) {
      const { rowCount } = await pool.query(
        'UPDATE admin_sessions SET checked_at = $1 WHERE digest = $2 AND checked_at = $3 AND ended_at IS NULL',
        [at, digest, seen],
      );
      return rowCount === 1;
    },
    async keepRefreshToken(digest, sealed) {
      await pool.query('UPDATE admin_sessions SET refresh_token = $1 WHERE digest = $2', [sealed, digest]);
    },
    async prune(before) {
      const { rowCount } = await pool.query(
        'DELETE FROM admin_sessions WHERE ended_at < $1 OR expires_at < $1',
        [before],
      );
      return rowCount ?? 0;
    },
  };
}
