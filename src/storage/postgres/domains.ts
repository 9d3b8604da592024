import type pg from 'pg';
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
import { type Queryable, transaction } from './transaction.js';

const VALUES = Array.from({ length: 16 }, (_value, index) => `$${index + 1}`).join(', ');
const BUMP = 'UPDATE domains_version SET version = version + 1 WHERE id = 1';
const UNSET_PRIMARY = 'UPDATE domains SET is_primary = 0 WHERE is_primary = 1';

/**
 * Custom domains in PostgreSQL, each change one transaction that moves the version row; `changed` tells the
 * other instances at once (NOTIFY), after the commit.
 */
export function postgresDomains(
  pool: pg.Pool,
  audit: { append(db: Queryable, entry: AuditEntry): Promise<void> },
  changed: () => void,
): DomainRepository {
  const get = async (db: Queryable, name: string) => {
    const { rows } = await db.query<DomainRow>('SELECT * FROM domains WHERE name = $1', [name]);
    return rows[0] === undefined ? undefined : toDomainRecord(rows[0]);
  };
  /** Runs a change in one transaction; when it changed something, moves the version and tells the others. */
  const change = async <T>(work: (client: pg.PoolClient) => Promise<{ changed: boolean; value: T }>) => {
    const { changed: moved, value } = await transaction(pool, async (client) => {
      // One change of domains at a time: the primary moves and the file's sync see each other's result.
      await client.query('LOCK TABLE domains IN SHARE ROW EXCLUSIVE MODE');
      const result = await work(client);
      if (result.changed) await client.query(BUMP);
      return result;
    });
    if (moved) changed();
    return value;
  };
  const primary = async (db: Queryable) => {
    const { rows } = await db.query<DomainRow>('SELECT * FROM domains WHERE is_primary = 1');
    return rows[0] === undefined ? undefined : toDomainRecord(rows[0]);
  };
  /** The stored domain in the way of adding `record`, if any; else adds it. Under the table lock. */
  const add = async (client: Queryable, record: DomainRecord) => {
    const taken = (await get(client, record.name)) ?? (record.primary ? await primary(client) : undefined);
    if (taken !== undefined) return taken;
    await client.query(`INSERT INTO domains ${DOMAIN_COLUMNS} VALUES (${VALUES})`, domainValues(record));
    return undefined;
  };
  /** The config file names `name` as the primary: another primary stops being it, audited. */
  const yieldPrimary = async (client: Queryable, name: string, at: string) => {
    const current = await primary(client);
    if (current === undefined || current.name === name) return;
    await client.query(UNSET_PRIMARY);
    await audit.append(client, primaryMoved(current.name, name, at));
  };

  return {
    async list() {
      const { rows } = await pool.query<DomainRow>('SELECT * FROM domains ORDER BY name');
      return rows.map(toDomainRecord);
    },
    get: (name) => get(pool, name),
    add: (record, entry) =>
      change(async (client) => {
        const conflict = await add(client, record);
        if (conflict === undefined) await audit.append(client, entry);
        return { changed: conflict === undefined, value: conflict };
      }),
    remove: (name, entry) =>
      change(async (client): Promise<{ changed: boolean; value: DomainRemoval }> => {
        const { rows } = await client.query<{ name: string }>(
          'SELECT name FROM domains WHERE redirect_to = $1 ORDER BY name',
          [name],
        );
        if (rows.length > 0) {
          return { changed: false, value: { outcome: 'redirected_to', from: rows.map((row) => row.name) } };
        }
        const removed =
          ((await client.query('DELETE FROM domains WHERE name = $1', [name])).rowCount ?? 0) > 0;
        if (removed) await audit.append(client, entry);
        return { changed: removed, value: { outcome: removed ? 'removed' : 'none' } };
      }),
    recordCheck: (name, result, entry) =>
      change(async (client) => {
        const set = DOMAIN_CHECK_COLUMNS.map((column, index) => `${column} = $${index + 1}`).join(', ');
        const { rowCount } = await client.query(
          `UPDATE domains SET ${set} WHERE name = $${DOMAIN_CHECK_COLUMNS.length + 1}`,
          [...domainCheckValues(result), name],
        );
        if ((rowCount ?? 0) === 0) return { changed: false, value: undefined };
        if (entry !== undefined) await audit.append(client, entry);
        return { changed: true, value: await get(client, name) };
      }),
    async claimDue(now, until, limit) {
      // SKIP LOCKED: instances claiming at once take different domains instead of waiting for each other.
      const { rows } = await pool.query<DomainRow>(
        `UPDATE domains SET next_check_at = $2
         WHERE name IN (SELECT name FROM domains WHERE next_check_at <= $1
                        ORDER BY next_check_at LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [now, until, limit],
      );
      return rows.map(toDomainRecord);
    },
    syncFile: (records, at) =>
      change(async (client) => {
        const named = new Set(records.map((record) => record.name));
        let moved = false;
        const { rows } = await client.query<{ name: string }>(
          "SELECT name FROM domains WHERE source = 'file' ORDER BY name",
        );
        for (const { name } of rows) {
          if (named.has(name)) continue;
          await client.query('DELETE FROM domains WHERE name = $1', [name]);
          await audit.append(client, {
            at,
            actor: 'config',
            action: 'domain.removed',
            target: name,
            details: {},
          });
          moved = true;
        }
        for (const record of records) {
          const stored = await get(client, record.name);
          if (record.primary && stored?.primary !== true) await yieldPrimary(client, record.name, at);
          if (stored === undefined) {
            await add(client, record);
            await audit.append(client, {
              at,
              actor: 'config',
              action: 'domain.added',
              target: record.name,
              details: {},
            });
            moved = true;
          } else if (
            stored.source !== 'file' ||
            stored.primary !== record.primary ||
            stored.redirectTo !== record.redirectTo ||
            stored.redirectStatus !== record.redirectStatus
          ) {
            await client.query(
              `UPDATE domains SET source = 'file', is_primary = $1, redirect_to = $2, redirect_status = $3
               WHERE name = $4`,
              [record.primary ? 1 : 0, record.redirectTo, record.redirectStatus, record.name],
            );
            moved = true;
          }
        }
        return { changed: moved, value: undefined };
      }),
    async version() {
      const { rows } = await pool.query<{ version: number }>(
        'SELECT version FROM domains_version WHERE id = 1',
      );
      return rows[0]?.version ?? 0;
    },
  };
}
