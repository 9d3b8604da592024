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
import { postgresCredentialChanges } from './credentials.js';
import type { Queryable } from './transaction.js';

/** Admin tokens in PostgreSQL; every change bumps the credentials' version and is audited in its transaction. */
export function postgresAdminTokens(
  pool: pg.Pool,
  audit: { append(db: Queryable, entry: AuditEntry): Promise<void> },
): AdminTokenRepository {
  const { change, revoker } = postgresCredentialChanges(pool, audit);
  return {
    async insert(record, entry) {
      await change(entry, async (client) => {
        await client.query(
          `INSERT INTO admin_tokens (${ADMIN_TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          adminTokenValues(record),
        );
        return true;
      });
    },
    async list() {
      const { rows } = await pool.query<AdminTokenRow>('SELECT * FROM admin_tokens ORDER BY created_at, id');
      return rows.map(toAdminTokenRecord);
    },
    revoke: revoker('admin_tokens'),
    async madeByPeople() {
      const { rows } = await pool.query<PersonTokenRow>(PEOPLE_TOKENS_SQL);
      return rows.map(toPersonToken);
    },
  };
}
