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
import { type Database, preparedAtFirstUse } from './driver.js';
import type { WriteQueue } from './write-queue.js';

/** Console sessions in SQLite; starting and ending one is audited in its own write. */
export function sqliteSessions(
  db: Database,
  writes: WriteQueue,
  audit: { append(entry: AuditEntry): void },
): SessionRepository {
  // Prepared at first use, as are the others that name columns of schema 14.
  const insert = preparedAtFirstUse(
    db,
    `INSERT INTO admin_sessions (${SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const find = db.prepare<[string], SessionRow>('SELECT * FROM admin_sessions WHERE digest = ?');
  const touch = db.prepare<[string, string]>(
    'UPDATE admin_sessions SET last_seen_at = ? WHERE digest = ? AND ended_at IS NULL',
  );
  const end = db.prepare<[string, string]>(
    'UPDATE admin_sessions SET ended_at = ? WHERE digest = ? AND ended_at IS NULL',
  );
  const endOfPerson = preparedAtFirstUse<[string, string]>(
    db,
    'UPDATE admin_sessions SET ended_at = ? WHERE person_id = ? AND ended_at IS NULL',
  );
  const claimCheck = preparedAtFirstUse<[string, string, string]>(
    db,
    'UPDATE admin_sessions SET checked_at = ? WHERE digest = ? AND checked_at = ? AND ended_at IS NULL',
  );
  const keepRefreshToken = preparedAtFirstUse<[string, string]>(
    db,
    'UPDATE admin_sessions SET refresh_token = ? WHERE digest = ?',
  );
  const revokeMadeBy = preparedAtFirstUse<[string, string], AdminTokenRow>(
    db,
    REVOKE_MADE_BY_SQL.replace(/\$\d+/g, '?'),
  );
  const bump = db.prepare(BUMP_CREDENTIALS_VERSION);
  const prune = db.prepare<[string, string]>(
    'DELETE FROM admin_sessions WHERE ended_at < ? OR expires_at < ?',
  );
  return {
    async insert(record, entry) {
      await writes.run(() => {
        insert().run(...sessionValues(record));
        audit.append(entry);
      });
    },
    async find(digest) {
      const row = find.get(digest);
      return row === undefined ? undefined : toSessionRecord(row);
    },
    async touch(digest, at) {
      await writes.run(() => touch.run(at, digest));
    },
    end(digest, at, entry) {
      return writes.run(() => {
        if (end.run(at, digest).changes === 0) return false;
        audit.append(entry);
        return true;
      });
    },
    endOfPerson(personId, at, entry, revoking) {
      return writes.run(() => {
        const ended = endOfPerson().run(at, personId).changes;
        const revoked =
          revoking === undefined ? [] : oldestFirst(revokeMadeBy().all(personId, at).map(toAdminTokenRecord));
        const listed = revoking === undefined ? {} : { revokedTokens: revoked.map((token) => token.id) };
        audit.append({ ...entry, details: { ...entry.details, ended, ...listed } });
        if (revoking !== undefined && revoked.length > 0) {
          bump.run();
          for (const token of revoked) audit.append(revoking(token.id));
        }
        return { ended, revoked };
      });
    },
    claimCheck(digest, seen, at) {
      return writes.run(() => claimCheck().run(at, digest, seen).changes === 1);
    },
    async keepRefreshToken(digest, sealed) {
      await writes.run(() => keepRefreshToken().run(sealed, digest));
    },
    prune(before) {
      return writes.run(() => prune.run(before, before).changes);
    },
  };
}
