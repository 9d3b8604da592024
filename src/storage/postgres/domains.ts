import type pg from 'pg';
import type { DomainRepository } from '../types.js';

/** Domain verifications in PostgreSQL; each write is its own transaction. */
export function postgresDomains(pool: pg.Pool): DomainRepository {
  return {
    async markVerified(domain, target, at) {
      await pool.query(
        `INSERT INTO domain_verifications (domain, target, verified_at) VALUES ($1, $2, $3)
         ON CONFLICT (domain) DO UPDATE SET target = excluded.target, verified_at = excluded.verified_at`,
        [domain, target, at],
      );
    },
    async isVerified(domain) {
      const { rowCount } = await pool.query('SELECT 1 FROM domain_verifications WHERE domain = $1', [domain]);
      return (rowCount ?? 0) > 0;
    },
  };
}
