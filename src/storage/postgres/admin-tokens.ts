import type pg from 'pg';
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
import { type Queryable, transaction } from './transaction.js';

const BUMP = 'UPDATE api_keys_version SET version = version + 1 WHERE id = 1';

/** Admin tokens in PostgreSQL; every change bumps the credentials' version and is audited in its transaction. */
export function postgresAdminTokens(
  pool: pg.Pool,
  audit: { append(db: Queryable, entry: AuditEntry): Promise<void> },
): AdminTokenRepository {
  return {
    async insert(record, entry) {
      await transaction(pool, async (client) => {
        await client.query(
          `INSERT INTO admin_tokens (${ADMIN_TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          adminTokenValues(record),
        );
        await client.query(BUMP);
        await audit.append(client, entry);
      });
    },
    async list() {
      const { rows } = await pool.query<AdminTokenRow>('SELECT * FROM admin_tokens ORDER BY created_at, id');
      return rows.map(toAdminTokenRecord);
    },
    async revoke(id, at, entry) {
      const revoked = await transaction(pool, async (client) => {
        const { rowCount } = await client.query(
          'UPDATE admin_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
          [at, id],
        );
        if ((rowCount ?? 0) === 0) return false;
        await client.query(BUMP);
        await audit.append(client, entry);
        return true;
      });
      if (revoked) return true;
      const { rowCount } = await pool.query('SELECT 1 FROM admin_tokens WHERE id = $1', [id]);
      return (rowCount ?? 0) > 0;
    },
    async madeByPeople() {
      const { rows } = await pool.query<PersonTokenRow>(PEOPLE_TOKENS_SQL);
      return rows.map(toPersonToken);
    },
  };
}
