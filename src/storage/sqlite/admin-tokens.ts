import type { AuditEntry } from '../../audit/index.js';
import type { AdminTokenRepository } from '../../identity/index.js';
import {
  ADMIN_TOKEN_COLUMNS,
  type AdminTokenRow,
  adminTokenValues,
  PEOPLE_TOKENS_SQL,
  type PersonTokenRow,
  toAdminTokenRecord,
  toPersonToken,
} from '../identity-rows.js';
import { type Database, preparedAtFirstUse } from './driver.js';
import type { WriteQueue } from './write-queue.js';

/** Admin tokens in SQLite; every change bumps the credentials' version and is audited in its own write. */
export function sqliteAdminTokens(
  db: Database,
  writes: WriteQueue,
  audit: { append(entry: AuditEntry): void },
): AdminTokenRepository {
  // Prepared at first use: a database a schema behind (`migrate --check`) opens without the newer columns.
  const insert = preparedAtFirstUse(
    db,
    `INSERT INTO admin_tokens (${ADMIN_TOKEN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const madeByPeople = preparedAtFirstUse<[], PersonTokenRow>(db, PEOPLE_TOKENS_SQL);
  const select = db.prepare<[], AdminTokenRow>('SELECT * FROM admin_tokens ORDER BY created_at, id');
  const revoke = db.prepare<[string, string]>(
    'UPDATE admin_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
  );
  const exists = db.prepare<[string], number>('SELECT 1 FROM admin_tokens WHERE id = ?').pluck();
  const bump = db.prepare('UPDATE api_keys_version SET version = version + 1 WHERE id = 1');
  return {
    async insert(record, entry) {
      await writes.run(() => {
        insert().run(...adminTokenValues(record));
        bump.run();
        audit.append(entry);
      });
    },
    async list() {
      return select.all().map(toAdminTokenRecord);
    },
    revoke(id, at, entry) {
      return writes.run(() => {
        if (revoke.run(at, id).changes > 0) {
          bump.run();
          audit.append(entry);
          return true;
        }
        return exists.get(id) !== undefined;
      });
    },
    async madeByPeople() {
      return madeByPeople().all().map(toPersonToken);
    },
  };
}
