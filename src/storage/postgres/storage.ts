import type pg from 'pg';
import { printableUrl } from '../../log/index.js';
import type { TellingEntry } from '../../webhooks/index.js';
import { checkServable } from '../schema.js';
import {
  type CreateOperation,
  type CreateResult,
  type Creates,
  type OpenOptions,
  type Storage,
  StorageNotFoundError,
  StorageOpenError,
} from '../types.js';
import { postgresAdminTokens } from './admin-tokens.js';
import { postgresApiKeys } from './api-keys.js';
import { postgresAudit } from './audit.js';
import { postgresCategories } from './categories.js';
import { addressOf, connectionError, databaseOf, unavailableReason } from './connect-error.js';
import { postgresDomains } from './domains.js';
import { pgDriver } from './driver.js';
import { PostgresGroupCommit } from './group-commit.js';
import { postgresIdempotency } from './idempotency.js';
import { migrate, readSchema } from './migrations.js';
import { CHANNELS, createNotifier } from './notify.js';
import { postgresOrders } from './orders.js';
import { postgresPeople } from './people.js';
import { postgresPets } from './pets.js';
import { postgresSessions } from './sessions.js';
import { type Queryable, releaseAfter } from './transaction.js';
import { reportingUnavailable } from './unavailable.js';
import { postgresUsage } from './usage.js';
import { postgresWebhooks } from './webhooks.js';

/**
 * int8 (BIGINT) arrives as a string by default, for values past 2^53. Our ids stay below that (the contract
 * caps them), so they are parsed as numbers.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pgDriver().types.builtins.INT8
      ? (value: string) => Number(value)
      : pgDriver().types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

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

/** Whether the database holds the Pet Store schema (of any version). */
async function hasSchema(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ table: string | null }>(
    "SELECT to_regclass('schema_migrations')::text AS table",
  );
  return rows[0]?.table != null;
}

/** Opens the pool, checks durability and brings the schema up to date (or refuses, with `mustExist`). */
async function openPool(options: { url: string; poolSize?: number } & OpenOptions) {
  const pool = new (pgDriver().Pool)({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    // Bounds on a database that is down or cut off, well inside the request timeout: a request gets its
    // 503 within them instead of hanging. TCP keepalive notices a peer that vanished without a word.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // Statements given to one client without waiting go out together and are answered in order: a group
    // commit sends its whole batch in one round trip (group-commit.ts). A client used one statement at a
    // time, as everything else uses it, behaves as without.
    pipeline: true,
    types,
  });
  // An idle client that loses its connection emits here; without a listener it would crash the process.
  pool.on('error', () => {});
  try {
    await checkDurability(pool);
    if (options.mustExist && !(await hasSchema(pool))) {
      throw new StorageNotFoundError(printableUrl(options.url), 'no_schema');
    }
    const applied = options.migrate === false ? [] : await releaseAfter(pool, (client) => migrate(client));
    const schema = await readSchema(pool);
    checkServable(schema, printableUrl(options.url));
    return { pool, applied, schema };
  } catch (error) {
    await pool.end();
    if ((error as { code?: unknown }).code === MISSING_DATABASE && options.createDatabase) {
      await createDatabase(options.url);
      return openPool({ ...options, createDatabase: false });
    }
    throw connectionError(error, options.url);
  }
}

/** PostgreSQL's SQLSTATE for a database that does not exist. */
const MISSING_DATABASE = '3D000';

/**
 * Creates the database `url` names, connected to the server's maintenance database (`postgres`) as the
 * same user. Refused (no CREATEDB privilege, say), the error says what to run instead.
 */
async function createDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = databaseOf(target);
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new (pgDriver().Client)({
    connectionString: maintenance.toString(),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  try {
    await client.connect();
    await client.query(`CREATE DATABASE ${pgDriver().escapeIdentifier(name)}`);
  } catch (error) {
    // Another migrate made it meanwhile: as good as made here.
    if ((error as { code?: unknown }).code === '42P04') return;
    const reason = error instanceof Error ? error.message : String(error);
    throw new StorageOpenError(
      `could not open DATABASE_URL ${printableUrl(url)}: the database ${name} does not exist at ${addressOf(target)}, and creating it failed (${reason}): create it with createdb -h ${target.hostname || 'localhost'} -p ${target.port || '5432'}${target.username === '' ? '' : ` -U ${decodeURIComponent(target.username)}`} ${name}`,
      { cause: error },
    );
  } finally {
    await client.end().catch(() => {});
  }
}

type Inserts = {
  [O in CreateOperation]: (db: Queryable, input: Creates[O]['input']) => Promise<CreateResult<O>>;
};

/** How long a connection may take to open, and a query to answer, before the database counts as unavailable. */
const CONNECT_TIMEOUT_MS = 3_000;
const QUERY_TIMEOUT_MS = 5_000;

/**
 * The shared storage of a fleet: PostgreSQL through a connection pool. The creates of one event-loop turn
 * share one transaction (group commit); every other write is its own. A database that cannot be reached
 * fails calls with `UnavailableError`.
 */
export async function createPostgresStorage(
  options: { url: string; poolSize?: number } & OpenOptions,
): Promise<Storage> {
  const { pool, applied, schema } = await openPool(options);
  const notifier = createNotifier(pool, { url: options.url, types });
  const writes = new PostgresGroupCommit(pool);
  const categories = postgresCategories(pool);
  const pets = postgresPets(pool);
  const orders = postgresOrders(pool);
  const idempotency = postgresIdempotency(pool);
  const record = postgresAudit(pool);
  const webhooks = postgresWebhooks(pool, record);
  // An audited change that tells of itself keeps its event in the same transaction (the outbox).
  const audit = {
    repository: record.repository,
    async append(db: Queryable, entry: TellingEntry) {
      await record.append(db, entry);
      if (entry.event !== undefined) await webhooks.enqueue(db, entry.event);
    },
  };
  const inserts: Inserts = {
    createCategory: categories.insert,
    createPet: pets.insert,
    placeOrder: orders.insert,
  };
  // Every call says whether the database answered: its outages are logged once, not once a call.
  const availability = {
    begin: () => options.outage?.begin() ?? 0,
    failed: (error: unknown, begun: number) =>
      options.outage?.failed(unavailableReason(error, options.url), begun),
    succeeded: () => options.outage?.succeeded(),
  };
  const guarded = <T extends object>(target: T) => reportingUnavailable(target, availability);
  const units = guarded<Pick<Storage, 'create' | 'ping'>>({
    async create(operation, input, keep, event) {
      const insert = inserts[operation] as (
        db: Queryable,
        input: Creates[typeof operation]['input'],
      ) => Promise<CreateResult<typeof operation>>;
      // In the next group transaction, in a savepoint of its own: a conflict rolls back this create alone.
      // A category written tells every instance, in the same transaction, that its cached list is stale.
      return writes.run(
        async (client) => {
          // The claim waits for its answer before the insert goes: sent together, a refused create would
          // still run its insert, and an order's waits on the pet's row lock of the instance that holds the
          // key, stalling this instance's whole batch until that one commits.
          if (keep !== undefined) await idempotency.claim(client, keep);
          const inserted = await insert(client, input);
          if (inserted.ok && keep !== undefined) await idempotency.keep(client, keep, inserted.created);
          if (inserted.ok && event !== undefined) {
            if ((await webhooks.enqueue(client, event.make(inserted.created))) > 0) event.queued?.();
          }
          return inserted;
        },
        operation === 'createCategory' ? CHANNELS.categories : undefined,
      );
    },
    async ping() {
      await pool.query('SELECT 1');
    },
  });
  return {
    kind: 'postgres',
    migrationsApplied: applied,
    schema,
    categories: guarded(categories.repository),
    pets: guarded(pets.repository),
    orders: guarded(orders.repository),
    apiKeys: guarded(postgresApiKeys(pool, audit)),
    adminTokens: guarded(postgresAdminTokens(pool, audit)),
    sessions: guarded(postgresSessions(pool, audit)),
    people: guarded(postgresPeople(pool).people),
    oidcLogins: guarded(postgresPeople(pool).oidcLogins),
    audit: guarded(audit.repository),
    usage: guarded(postgresUsage(pool)),
    idempotency: guarded(idempotency.repository),
    domains: guarded(postgresDomains(pool, audit, () => notifier.changed('domains'))),
    webhooks: guarded(webhooks.repository),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    create: units.create,
    ping: units.ping,
    watchCategories: (notify) => notifier.watch('categories', notify),
    watchDomains: (notify) => notifier.watch('domains', notify),
    async close() {
      await writes.drain();
      await notifier.close();
      await pool.end();
    },
  };
}
