import type { AuditRepository } from '../audit/index.js';
import type {
  Category,
  NewCategory,
  Order,
  OrderQuery,
  Pet,
  PetQuery,
  PetStatus,
} from '../contract/index.js';
import type { DomainRepository } from '../domains/index.js';
import type { AdminTokenRepository, SessionRepository } from '../identity/index.js';
import type { ApiKeyRepository } from '../keys/index.js';
import type { OutageLog } from '../log/index.js';
import type { OidcLoginRepository, PeopleRepository } from '../people/index.js';
import type { UsageRepository } from '../usage/index.js';
import type { PendingEvent, WebhookRepository } from '../webhooks/index.js';
import type { SchemaState } from './schema.js';

/** Where the service keeps its data: the embedded SQLite file, or PostgreSQL shared by a fleet. */
export type StorageConfig =
  | {
      kind: 'sqlite';
      file: string;
      /** No DATABASE_URL was given, so this is the embedded default file. */
      isDefault: boolean;
      /**
       * The data directory (`PETSTORE_DATA_DIR`): the one place where a server creates a SQLite file that
       * does not exist yet, and the directory it may create for it.
       */
      dataDir: string;
    }
  | { kind: 'postgres'; url: string; poolSize: number };

/** How storage is opened. */
export interface OpenOptions {
  /**
   * Refuse, with `StorageNotFoundError`, to create a database or its schema: for commands that only read
   * or change what a server made. An existing schema is still brought up to date.
   */
  mustExist?: boolean;
  /**
   * Create the database DATABASE_URL names when it does not exist (`petstore migrate`, `petstore copy`'s
   * target): on PostgreSQL with CREATE DATABASE; on SQLite, a file outside the data directory (its
   * directory must exist). A server never does either: a mistyped name would start it on an empty database,
   * with a new first key. Without it a SQLite file is created only in the data directory.
   */
  createDatabase?: boolean;
  /** PostgreSQL: told when the database stops answering and when it answers again, for the log. */
  outage?: OutageLog;
  /** False: open the schema as it is, migrating nothing (`petstore migrate --check`). */
  migrate?: false;
}

/** A database that cannot be opened: the message is one line naming DATABASE_URL, what failed and what to check. */
export class StorageOpenError extends Error {
  override name = 'StorageOpenError';
}

/**
 * Thrown when storage is opened with `mustExist` and there is no Pet Store database there: no SQLite file,
 * or a database without the schema. `where` names the file or the database (never a password).
 */
export class StorageNotFoundError extends Error {
  constructor(
    readonly where: string,
    readonly reason: 'missing' | 'no_schema',
  ) {
    super(reason === 'missing' ? `no database at ${where}` : `no Pet Store schema in ${where}`);
    this.name = 'StorageNotFoundError';
  }
}

/**
 * What each create takes, what it makes, and why it may refuse (creating nothing). The operation names are
 * the contract's.
 */
export interface Creates {
  createCategory: { input: NewCategory; created: Category; refusal: never };
  createPet: {
    input: { name: string; categoryId: number; status: PetStatus };
    created: Pet;
    refusal: 'category_not_found';
  };
  placeOrder: {
    input: { petId: number; quantity: number; createdAt: string };
    created: Order;
    refusal: 'pet_not_found' | 'pet_not_available';
  };
}

export type CreateOperation = keyof Creates;

/** What a create made, or why it made nothing; an operation that never refuses always made something. */
export type CreateResult<O extends CreateOperation> = [Creates[O]['refusal']] extends [never]
  ? { ok: true; created: Creates[O]['created'] }
  : { ok: true; created: Creates[O]['created'] } | { ok: false; refusal: Creates[O]['refusal'] };

/**
 * The answer a create keeps for replays under an `Idempotency-Key` (DESIGN.md section 3). It is stored for
 * (apiKeyId, key) in the create's own transaction, so that a committed create always has its answer, even
 * if the process dies a moment later. Nothing is kept when nothing is created.
 */
export interface KeptAnswer<T> {
  apiKeyId: string;
  key: string;
  /** Digest of the request (method, path and body), to tell a retry from a reuse of the key. */
  requestDigest: string;
  /** Milliseconds since the epoch: when the answer was made. */
  createdAt: number;
  /** Answers stored before this time have expired: they are replaced, never replayed. */
  expiredBefore: number;
  status: number;
  /** The body as it is sent, made from what was created (it holds the assigned id). */
  body(created: T): string;
}

/** An answer kept for replays, and the digest of the request that made it. */
export interface IdempotencyRecord {
  requestDigest: string;
  status: number;
  body: string;
}

/**
 * Thrown by a create that keeps an answer when its key is taken: `in_use` while another transaction holds it
 * (another instance is creating under it), `recorded` when an answer was stored meanwhile. The create's own
 * writes are rolled back.
 */
export class IdempotencyConflict extends Error {
  constructor(readonly reason: 'in_use' | 'recorded') {
    super(`idempotency key ${reason === 'in_use' ? 'in use' : 'already recorded'}`);
  }
}

export interface IdempotencyRepository {
  /** The answer stored for (apiKeyId, key) at or after `notBefore`, if any. */
  find(apiKeyId: string, key: string, notBefore: number): Promise<IdempotencyRecord | undefined>;
  /** Deletes the answers stored before `before`; resolves with how many went. */
  purge(before: number): Promise<number>;
}

export interface CategoryRepository {
  /** All categories, ascending by id. */
  list(): Promise<Category[]>;
}

/** Pets to list: the filters of the API, and one page (ids after `afterId`, at most `limit`) if asked. */
export interface PetFilter extends Pick<PetQuery, 'categoryId' | 'status'> {
  afterId?: number;
  limit?: number;
}

/** Orders to list: the filter of the API, and one page (orders older than `before`, at most `limit`). */
export interface OrderFilter extends Pick<OrderQuery, 'status'> {
  /** The last order of the page before, by the order orders are listed in (newest first). */
  before?: { createdAt: string; id: number };
  limit?: number;
}

export interface PetRepository {
  /** Pets matching every given filter, ascending by id. */
  list(filter: PetFilter): Promise<Pet[]>;
  get(id: number): Promise<Pet | undefined>;
}

export interface OrderRepository {
  /** Orders matching the filter, newest first (by `createdAt`, then id). */
  list(filter: OrderFilter): Promise<Order[]>;
}

/** The repositories of the storage, each the port of a capability that keeps data. */
export interface Repositories {
  readonly categories: CategoryRepository;
  readonly pets: PetRepository;
  readonly orders: OrderRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly adminTokens: AdminTokenRepository;
  /** The console's sessions. */
  readonly sessions: SessionRepository;
  /** Everyone who signed in with OpenID Connect. */
  readonly people: PeopleRepository;
  /** Sign-ins with OpenID Connect under way. */
  readonly oidcLogins: OidcLoginRepository;
  readonly audit: AuditRepository;
  readonly usage: UsageRepository;
  readonly idempotency: IdempotencyRepository;
  readonly domains: DomainRepository;
  readonly webhooks: WebhookRepository;
}

/** The names of the repositories, for what wraps each (the storage's timings): the compiler demands every one. */
export const REPOSITORY_NAMES = Object.keys({
  categories: true,
  pets: true,
  orders: true,
  apiKeys: true,
  adminTokens: true,
  sessions: true,
  people: true,
  oidcLogins: true,
  audit: true,
  usage: true,
  idempotency: true,
  domains: true,
  webhooks: true,
} satisfies Record<keyof Repositories, true>) as readonly (keyof Repositories)[];

/**
 * Everything the service keeps durably: SQLite (embedded default) or PostgreSQL, file for file the same.
 * A write's promise resolves only after its transaction has committed durably.
 */
export interface Storage extends Repositories {
  readonly kind: 'sqlite' | 'postgres';
  /** Schema versions applied when this storage was opened (empty when it was current). */
  readonly migrationsApplied: readonly number[];
  /** The schema as it is once opened: its version and the oldest release that serves it. */
  readonly schema: SchemaState;
  /**
   * The unit of work of every create: the row, and with `keep` the answer to replay under an
   * `Idempotency-Key`, and with `event` the webhook event it tells of and its deliveries (the outbox), in one
   * transaction. It resolves once that transaction committed durably. A refusal created nothing and keeps
   * nothing; a key that is taken rejects with `IdempotencyConflict`.
   */
  create<O extends CreateOperation>(
    operation: O,
    input: Creates[O]['input'],
    keep?: KeptAnswer<Creates[O]['created']>,
    event?: PendingEvent<Creates[O]['created']>,
  ): Promise<CreateResult<O>>;
  /**
   * Calls `notify` whenever categories may have been written by another process, so a cached list can be
   * dropped. SQLite has a single writing server, so it never calls.
   */
  watchCategories(notify: () => void): Promise<void>;
  /**
   * Calls `notify` as soon as another instance changed the custom domains (PostgreSQL); SQLite never calls,
   * and its servers notice changes by the domains' version.
   */
  watchDomains(notify: () => void): Promise<void>;
  /** Resolves when the store answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  /** The connection pool's connections and waiting queries (PostgreSQL; SQLite has no pool). */
  poolStats?(): { total: number; idle: number; waiting: number };
  /** Finishes pending writes and releases the store. */
  close(): Promise<void>;
}
