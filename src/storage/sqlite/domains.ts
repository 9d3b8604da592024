import type { AuditEntry } from '../../audit/index.js';
import type { DomainRecord, DomainRemoval, DomainRepository } from '../../domains/index.js';
import {
  DOMAIN_CHECK_COLUMNS,
  DOMAIN_COLUMNS,
  type DomainRow,
  domainCheckValues,
  domainValues,
  primaryMoved,
  toDomainRecord,
} from '../rows.js';
import type { Database } from './driver.js';
import type { WriteQueue } from './write-queue.js';

const VALUES = `(${Array(16).fill('?').join(', ')})`;

/**
 * Custom domains in SQLite. Writes go through the group-commit queue like every other write; the version
 * row moves with each, so a server notices a change the CLI made with one read.
 */
export function sqliteDomains(
  db: Database,
  writes: WriteQueue,
  audit: { append(entry: AuditEntry): void },
): DomainRepository {
  const all = db.prepare<[], DomainRow>('SELECT * FROM domains ORDER BY name');
  const byName = db.prepare<[string], DomainRow>('SELECT * FROM domains WHERE name = ?');
  const insert = db.prepare(`INSERT INTO domains ${DOMAIN_COLUMNS} VALUES ${VALUES} ON CONFLICT DO NOTHING`);
  const primary = db.prepare<[], DomainRow>('SELECT * FROM domains WHERE is_primary = 1');
  const unsetPrimary = db.prepare('UPDATE domains SET is_primary = 0 WHERE is_primary = 1');
  const remove = db.prepare<[string]>('DELETE FROM domains WHERE name = ?');
  const redirectsTo = db
    .prepare<[string], string>('SELECT name FROM domains WHERE redirect_to = ? ORDER BY name')
    .pluck();
  const check = db.prepare(
    `UPDATE domains SET ${DOMAIN_CHECK_COLUMNS.map((column) => `${column} = ?`).join(', ')} WHERE name = ?`,
  );
  const due = db.prepare<[string, number], DomainRow>(
    'SELECT * FROM domains WHERE next_check_at <= ? ORDER BY next_check_at LIMIT ?',
  );
  const postpone = db.prepare<[string, string]>('UPDATE domains SET next_check_at = ? WHERE name = ?');
  const route = db.prepare<[string, number, string | null, number | null, string]>(
    `UPDATE domains SET source = ?, is_primary = ?, redirect_to = ?, redirect_status = ? WHERE name = ?`,
  );
  const fileNames = db
    .prepare<[], string>("SELECT name FROM domains WHERE source = 'file' ORDER BY name")
    .pluck();
  const bump = db.prepare('UPDATE domains_version SET version = version + 1 WHERE id = 1');
  const version = db.prepare<[], number>('SELECT version FROM domains_version WHERE id = 1').pluck();

  const get = (name: string) => {
    const row = byName.get(name);
    return row === undefined ? undefined : toDomainRecord(row);
  };
  /** The stored domain in the way of adding `record`, if any; else adds it. */
  const add = (record: DomainRecord): DomainRecord | undefined => {
    const taken = byName.get(record.name) ?? (record.primary ? primary.get() : undefined);
    if (taken !== undefined) return toDomainRecord(taken);
    insert.run(...domainValues(record));
    return undefined;
  };
  /** The config file names `name` as the primary: another primary stops being it, audited. */
  const yieldPrimary = (name: string, at: string) => {
    const current = primary.get();
    if (current === undefined || current.name === name) return;
    unsetPrimary.run();
    audit.append(primaryMoved(current.name, name, at));
  };

  return {
    async list() {
      return all.all().map(toDomainRecord);
    },
    async get(name) {
      return get(name);
    },
    add: (record, entry) =>
      writes.run(() => {
        const conflict = add(record);
        if (conflict !== undefined) return conflict;
        bump.run();
        audit.append(entry);
        return undefined;
      }),
    remove: (name, entry) =>
      writes.run((): DomainRemoval => {
        const from = redirectsTo.all(name);
        if (from.length > 0) return { outcome: 'redirected_to', from };
        if (remove.run(name).changes === 0) return { outcome: 'none' };
        bump.run();
        audit.append(entry);
        return { outcome: 'removed' };
      }),
    recordCheck: (name, result, entry) =>
      writes.run(() => {
        if (check.run(...domainCheckValues(result), name).changes === 0) return undefined;
        bump.run();
        if (entry !== undefined) audit.append(entry);
        return get(name);
      }),
    claimDue: (now, until, limit) =>
      writes.run(() => {
        // The write queue's BEGIN IMMEDIATE holds the write lock: no other process claims between the two.
        const claimed = due.all(now, limit).map(toDomainRecord);
        for (const record of claimed) postpone.run(until, record.name);
        return claimed;
      }),
    syncFile: (records, at) =>
      writes.run(() => {
        const named = new Set(records.map((record) => record.name));
        let changed = false;
        for (const name of fileNames.all()) {
          if (named.has(name)) continue;
          remove.run(name);
          audit.append({ at, actor: 'config', action: 'domain.removed', target: name, details: {} });
          changed = true;
        }
        for (const record of records) {
          const stored = get(record.name);
          if (record.primary && stored?.primary !== true) yieldPrimary(record.name, at);
          if (stored === undefined) {
            add(record);
            audit.append({ at, actor: 'config', action: 'domain.added', target: record.name, details: {} });
            changed = true;
          } else if (
            stored.source !== 'file' ||
            stored.primary !== record.primary ||
            stored.redirectTo !== record.redirectTo ||
            stored.redirectStatus !== record.redirectStatus
          ) {
            route.run('file', record.primary ? 1 : 0, record.redirectTo, record.redirectStatus, record.name);
            changed = true;
          }
        }
        if (changed) bump.run();
      }),
    async version() {
      return version.get() as number;
    },
  };
}
