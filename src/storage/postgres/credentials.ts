import type pg from 'pg';
import type { AuditEntry } from '../../audit/index.js';
import { BUMP_CREDENTIALS_VERSION } from '../rows.js';
import { type Queryable, transaction } from './transaction.js';

/**
 * Changes to credentials (API keys, admin tokens) in PostgreSQL, each in one transaction: when it changed a
 * row, the credentials' version moves, so servers notice with one primary-key read instead of rereading
 * every credential, and the change is appended to the audit record in that transaction.
 */
export function postgresCredentialChanges(
  pool: pg.Pool,
  audit: { append(db: Queryable, entry: AuditEntry): Promise<void> },
) {
  /** Runs a change; when it changed a row, moves the version and audits it. */
  const change = (entry: AuditEntry, run: (client: pg.PoolClient) => Promise<boolean>) =>
    transaction(pool, async (client) => {
      const changed = await run(client);
      if (changed) {
        await client.query(BUMP_CREDENTIALS_VERSION);
        await audit.append(client, entry);
      }
      return changed;
    });
  return {
    change,
    /**
     * The revoke of a credential of `table`: revoking twice keeps the first time, and records nothing the
     * second; false when there is no such credential.
     */
    revoker(table: 'api_keys' | 'admin_tokens') {
      return async (id: string, at: string, entry: AuditEntry) => {
        const revoked = await change(entry, async (client) => {
          const { rowCount } = await client.query(
            `UPDATE ${table} SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`,
            [at, id],
          );
          return (rowCount ?? 0) > 0;
        });
        if (revoked) return true;
        const { rowCount } = await pool.query(`SELECT 1 FROM ${table} WHERE id = $1`, [id]);
        return (rowCount ?? 0) > 0;
      };
    },
  };
}
