import pg from 'pg';
import type { Order, OrderStatus, Pet, PetStatus } from '../../contract/index.js';
import { type ApiKeyRow, apiKeyColumns, toApiKeyRecord } from '../api-key-rows.js';
import { type CategoryRow, toCategory } from '../category-rows.js';
import {
  type ApiKeyRepository,
  type CategoryRepository,
  type OpenOptions,
  type OrderRepository,
  type PetRepository,
  type Storage,
  StorageNotFoundError,
} from '../types.js';
import { postgresDomains } from './domains.js';
import { createOnce, postgresIdempotency } from './idempotency.js';
import { MIGRATIONS, migrate } from './migrations.js';
import { transaction } from './transaction.js';

/** The channel on which a category write tells every instance that its cached list is stale. */
const CATEGORIES_CHANNEL = 'petstore_categories';

/**
 * int8 (BIGINT) arrives as a string by default, for values past 2^53. Our ids stay below that (the contract
 * caps them), so they are parsed as numbers.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Whether the database holds the Pet Store schema (of any version). */
async function hasSchema(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ table: string | null }>(
    "SELECT to_regclass('schema_migrations')::text AS table",
  );
  return rows[0]?.table != null;
}

/** A connection URL fit to print: its password, if any, replaced. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the database of DATABASE_URL';
  }
}

/** Refuses to run where a COMMIT could return before it is on disk (DESIGN.md section 8). */
async function checkDurability(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ synchronous_commit: string; fsync: string }>(
    "SELECT current_setting('synchronous_commit') AS synchronous_commit, current_setting('fsync') AS fsync",
  );
  const settings = rows[0];
  if (settings?.fsync !== 'on')
    throw new Error(`PostgreSQL runs with fsync=${settings?.fsync}; it must be on`);
  if (settings.synchronous_commit === 'off') {
    throw new Error('PostgreSQL runs with synchronous_commit=off; acknowledged writes could be lost');
  }
}

/**
 * Tells every instance that categories changed, once per turn of the event loop however many were created.
 * Sent after the creates committed, in a statement of its own: a transaction that notifies takes a lock
 * over the whole server while it commits, which stops PostgreSQL from sharing one flush among commits
 * (measured: one fsync per create, 3.2k creates/s, against shared flushes without it).
 */
function createNotifier(pool: pg.Pool): () => void {
  let scheduled = false;
  return () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      // A lost notification costs another instance a stale list until its next reconnect or write; the
      // create itself has committed, so a failure here is not the client's.
      pool.query(`SELECT pg_notify('${CATEGORIES_CHANNEL}', '')`).catch(() => {});
    });
  };
}

function categories(pool: pg.Pool): CategoryRepository {
  const notify = createNotifier(pool);
  return {
    async list() {
      const { rows } = await pool.query<CategoryRow>(
        'SELECT id, name, description FROM categories ORDER BY id',
      );
      return rows.map(toCategory);
    },
    async create(input, idempotent) {
      const category = await createOnce(
        pool,
        idempotent,
        async (db) => {
          const { rows } = await db.query<{ id: number }>(
            'INSERT INTO categories (name, description) VALUES ($1, $2) RETURNING id',
            [input.name, input.description ?? null],
          );
          const id = (rows[0] as { id: number }).id;
          return toCategory({ id, name: input.name, description: input.description ?? null });
        },
        (created) => created,
      );
      // After the commit: an instance told earlier could reload the list without the new row.
      notify();
      return category;
    },
  };
}

interface PetRow {
  id: number;
  name: string;
  category_id: number;
  status: PetStatus;
}

function pets(pool: pg.Pool): PetRepository {
  const toPet = (row: PetRow): Pet => ({
    id: row.id,
    name: row.name,
    categoryId: row.category_id,
    status: row.status,
  });
  return {
    create(input, idempotent) {
      return createOnce(
        pool,
        idempotent,
        async (db) => {
          const { rows } = await db.query<{ id: number }>(
            `INSERT INTO pets (name, category_id, status)
             SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM categories WHERE id = $2) RETURNING id`,
            [input.name, input.categoryId, input.status],
          );
          const created = rows[0];
          if (created === undefined) return { ok: false, reason: 'category_not_found' } as const;
          return { ok: true, pet: { id: created.id, ...input } } as const;
        },
        (result) => (result.ok ? result.pet : undefined),
      );
    },
    async list(filter) {
      const { rows } = await pool.query<PetRow>(
        `SELECT id, name, category_id, status FROM pets
         WHERE ($1::bigint IS NULL OR category_id = $1) AND ($2::text IS NULL OR status = $2) ORDER BY id`,
        [filter.categoryId ?? null, filter.status ?? null],
      );
      return rows.map(toPet);
    },
    async get(id) {
      const { rows } = await pool.query<PetRow>(
        'SELECT id, name, category_id, status FROM pets WHERE id = $1',
        [id],
      );
      return rows[0] === undefined ? undefined : toPet(rows[0]);
    },
  };
}

function orders(pool: pg.Pool): OrderRepository {
  return {
    place(input, idempotent) {
      return createOnce(
        pool,
        idempotent,
        async (db) => {
          // The conditional update claims the pet and the insert records the order in one statement: the
          // row lock makes concurrent orders for one pet wait, and only the first finds it available.
          const { rows } = await db.query<{ id: number }>(
            `WITH claimed AS (
               UPDATE pets SET status = 'pending' WHERE id = $1 AND status = 'available' RETURNING id
             )
             INSERT INTO orders (pet_id, quantity, status, created_at)
             SELECT id, $2, 'placed', $3 FROM claimed RETURNING id`,
            [input.petId, input.quantity, input.createdAt],
          );
          const placed = rows[0];
          if (placed !== undefined) {
            const order: Order = { id: placed.id, ...input, status: 'placed' };
            return { ok: true, order } as const;
          }
          const exists = await db.query('SELECT 1 FROM pets WHERE id = $1', [input.petId]);
          const reason = exists.rowCount === 0 ? 'pet_not_found' : 'pet_not_available';
          return { ok: false, reason } as const;
        },
        (result) => (result.ok ? result.order : undefined),
      );
    },
    async list(filter) {
      const { rows } = await pool.query<{
        id: number;
        pet_id: number;
        quantity: number;
        status: OrderStatus;
        created_at: Date;
      }>(
        `SELECT id, pet_id, quantity, status, created_at FROM orders
         WHERE ($1::text IS NULL OR status = $1) ORDER BY created_at DESC, id DESC`,
        [filter.status ?? null],
      );
      return rows.map((row) => ({
        id: row.id,
        petId: row.pet_id,
        quantity: row.quantity,
        status: row.status,
        createdAt: row.created_at.toISOString(),
      }));
    },
  };
}

function apiKeys(pool: pg.Pool): ApiKeyRepository {
  const bump = 'UPDATE api_keys_version SET version = version + 1 WHERE id = 1';
  const insertColumns = '(id, name, plan, per_minute, per_day, env, prefix, digest, created_at, revoked_at)';
  const update = (sql: string, values: unknown[]) =>
    transaction(pool, async (client) => {
      const changed = ((await client.query(sql, values)).rowCount ?? 0) > 0;
      if (changed) await client.query(bump);
      return changed;
    });
  return {
    async insert(record) {
      await transaction(pool, async (client) => {
        await client.query(
          `INSERT INTO api_keys ${insertColumns} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          apiKeyColumns(record),
        );
        await client.query(bump);
      });
    },
    insertFirst(record) {
      return transaction(pool, async (client) => {
        // Two transactions that both find the table empty would both insert: the lock makes the second wait
        // for the first to commit, and then see its key. It conflicts with itself and with inserts only.
        await client.query('LOCK TABLE api_keys IN SHARE ROW EXCLUSIVE MODE');
        const { rowCount } = await client.query(
          `INSERT INTO api_keys ${insertColumns}
           SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 WHERE NOT EXISTS (SELECT 1 FROM api_keys)`,
          apiKeyColumns(record),
        );
        if (rowCount === 0) return false;
        await client.query(bump);
        return true;
      });
    },
    async recordBan(id, until) {
      await pool.query('UPDATE api_keys SET banned_until = $1 WHERE id = $2', [until, id]);
    },
    async list() {
      const { rows } = await pool.query<ApiKeyRow>('SELECT * FROM api_keys ORDER BY created_at, id');
      return rows.map(toApiKeyRecord);
    },
    revoke: (id, at) =>
      update('UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2', [at, id]),
    unban: (id, at) =>
      update('UPDATE api_keys SET unbanned_at = $1, banned_until = NULL WHERE id = $2', [at, id]),
    async version() {
      const { rows } = await pool.query<{ version: number }>(
        'SELECT version FROM api_keys_version WHERE id = 1',
      );
      return (rows[0] as { version: number }).version;
    },
  };
}

/**
 * The shared storage of a fleet: PostgreSQL through a connection pool. Every write is its own transaction;
 * PostgreSQL's own group commit shares fsyncs between concurrent commits.
 */
export async function createPostgresStorage(
  options: { url: string; poolSize?: number } & OpenOptions,
): Promise<Storage> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5_000,
    types,
  });
  // An idle client that loses its connection emits here; without a listener it would crash the process.
  pool.on('error', () => {});
  let applied: number[];
  try {
    await checkDurability(pool);
    if (options.mustExist && !(await hasSchema(pool))) {
      throw new StorageNotFoundError(withoutPassword(options.url), 'no_schema');
    }
    const client = await pool.connect();
    try {
      applied = await migrate(client);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end();
    throw error;
  }

  const listeners = new Set<() => void>();
  let listener: pg.Client | undefined;
  let closed = false;
  const notifyAll = () => {
    for (const notify of listeners) notify();
  };
  /** Tries again a second later, until it works: a failed reconnect emits no 'error' of its own. */
  const relisten = (): void => {
    setTimeout(() => listen().catch(relisten), 1_000).unref();
  };
  /**
   * A dedicated connection LISTENs. Once it listens (again), the cache is invalidated: notifications sent while
   * no connection listened were missed, and a list loaded meanwhile may be stale.
   */
  async function listen(): Promise<void> {
    if (closed || listeners.size === 0) return;
    const client = new pg.Client({ connectionString: options.url, types });
    client.on('notification', notifyAll);
    client.on('error', () => {
      client.end().catch(() => {});
      if (listener !== client) return;
      listener = undefined;
      notifyAll();
      relisten();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CATEGORIES_CHANNEL}`);
    } catch (error) {
      client.end().catch(() => {});
      throw error;
    }
    listener = client;
    notifyAll();
  }

  return {
    kind: 'postgres',
    migrationsApplied: applied,
    categories: categories(pool),
    pets: pets(pool),
    orders: orders(pool),
    apiKeys: apiKeys(pool),
    idempotency: postgresIdempotency(pool),
    domains: postgresDomains(pool),
    async watchCategories(notify) {
      listeners.add(notify);
      if (listener === undefined) await listen();
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      closed = true;
      await listener?.end().catch(() => {});
      await pool.end();
    },
  };
}

export { MIGRATIONS };
