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
import { sqliteCredentialChanges } from './credentials.js';
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
  const { change, revoker } = sqliteCredentialChanges(db, writes, audit);
  return {
    async insert(record, entry) {
      await change(entry, () => {
        insert().run(...adminTokenValues(record));
        return true;
      });
    },
    async list() {
      return select.all().map(toAdminTokenRecord);
    },
    revoke: revoker('admin_tokens'),
    async madeByPeople() {
      return madeByPeople().all().map(toPersonToken);
    },
  };
}
