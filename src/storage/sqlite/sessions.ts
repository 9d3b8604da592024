import type { SessionRepository } from '../../admin/index.js';
import type { AuditEntry } from '../../audit/index.js';
import { SESSION_COLUMNS, type SessionRow, sessionValues, toSessionRecord } from '../rows.js';
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
    endOfPerson(personId, at, entry) {
      return writes.run(() => {
        const ended = endOfPerson().run(at, personId).changes;
        audit.append({ ...entry, details: { ...entry.details, ended } });
        return ended;
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
