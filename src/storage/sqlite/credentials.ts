import type { AuditEntry } from '../../audit/index.js';
import { BUMP_CREDENTIALS_VERSION } from '../rows.js';
import type { Database } from './driver.js';
import type { WriteQueue } from './write-queue.js';

/**
 * Changes to credentials (API keys, admin tokens) in SQLite, each in the next group transaction: when it
 * changed a row, the credentials' version moves, so servers notice with one primary-key read instead of
 * rereading every credential, and the change is appended to the audit record in the same write.
 */
export function sqliteCredentialChanges(
  db: Database,
  writes: WriteQueue,
  audit: { append(entry: AuditEntry): void },
) {
  const bump = db.prepare(BUMP_CREDENTIALS_VERSION);
  /** Inside a write: moves the version and audits the entry when `changed`; answers `changed`. */
  const recorded = (entry: AuditEntry, changed: boolean) => {
    if (changed) {
      bump.run();
      audit.append(entry);
    }
    return changed;
  };
  return {
    /** Runs a change; when it changed a row, moves the version and audits it. */
    change: (entry: AuditEntry, run: () => boolean) => writes.run(() => recorded(entry, run())),
    /**
     * The revoke of a credential of `table`: revoking twice keeps the first time, and records nothing the
     * second; false when there is no such credential.
     */
    revoker(table: 'api_keys' | 'admin_tokens') {
      const revoke = db.prepare<[string, string]>(
        `UPDATE ${table} SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`,
      );
      const exists = db.prepare<[string], number>(`SELECT 1 FROM ${table} WHERE id = ?`).pluck();
      return (id: string, at: string, entry: AuditEntry) =>
        writes.run(() => recorded(entry, revoke.run(at, id).changes > 0) || exists.get(id) !== undefined);
    },
  };
}
