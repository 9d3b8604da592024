import type { DomainRepository } from '../types.js';
import type { Database } from './driver.js';
import type { WriteQueue } from './write-queue.js';

/** Domain verifications in SQLite; writes go through the group-commit queue like every other write. */
export function sqliteDomains(db: Database, writes: WriteQueue): DomainRepository {
  const upsert = db.prepare<[string, string, string]>(
    `INSERT INTO domain_verifications (domain, target, verified_at) VALUES (?, ?, ?)
     ON CONFLICT (domain) DO UPDATE SET target = excluded.target, verified_at = excluded.verified_at`,
  );
  const verified = db
    .prepare<[string], number>('SELECT 1 FROM domain_verifications WHERE domain = ?')
    .pluck();
  return {
    async markVerified(domain, target, at) {
      await writes.run(() => upsert.run(domain, target, at));
    },
    async isVerified(domain) {
      return verified.get(domain) !== undefined;
    },
  };
}
