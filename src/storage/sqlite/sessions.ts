import type { SessionRepository } from '../../admin/index.js';
import type { AuditEntry } from '../../audit/index.js';
import { type SessionRow, toSessionRecord } from '../rows.js';
import type { Database } from './driver.js';
import type { WriteQueue } from './write-queue.js';

/** Console sessions in SQLite; starting and ending one is audited in its own write. */
export function sqliteSessions(
  db: Database,
  writes: WriteQueue,
  audit: { append(entry: AuditEntry): void },
): SessionRepository {
  const insert = db.prepare(
    `INSERT INTO admin_sessions (digest, token_id, created_at, last_seen_at, expires_at, ended_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const find = db.prepare<[string], SessionRow>('SELECT * FROM admin_sessions WHERE digest = ?');
  const touch = db.prepare<[string, string]>(
    'UPDATE admin_sessions SET last_seen_at = ? WHERE digest = ? AND ended_at IS NULL',
  );
  const end = db.prepare<[string, string]>(
    'UPDATE admin_sessions SET ended_at = ? WHERE digest = ? AND ended_at IS NULL',
  );
  const prune = db.prepare<[string, string]>(
    'DELETE FROM admin_sessions WHERE ended_at < ? OR expires_at < ?',
  );
  return {
    async insert(record, entry) {
      await writes.run(() => {
        insert.run(
          record.digest,
          record.tokenId,
          record.createdAt,
          record.lastSeenAt,
          record.expiresAt,
          record.endedAt,
        );
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
    prune(before) {
      return writes.run(() => prune.run(before, before).changes);
    },
  };
}
