import type {
  Category,
  NewCategory,
  Order,
  OrderQuery,
  Pet,
  PetQuery,
  PetStatus,
} from '../contract/index.js';

export type Plan = 'free' | 'pro' | 'business' | 'enterprise';
export type Environment = 'production' | 'staging';

/** An API key as stored: everything but the key itself, of which only the SHA-256 digest is kept. */
export interface ApiKeyRecord {
  /** Public id, used by `keys revoke` and in logs. */
  id: string;
  name: string;
  plan: Plan;
  /** Per-key limits; set for enterprise keys only. */
  limits: { perMinute: number; perDay: number } | null;
  env: Environment;
  /** The first characters of the key, for people to tell keys apart. */
  prefix: string;
  /** base64url SHA-256 of the key. */
  digest: string;
  createdAt: string;
  revokedAt: string | null;
  /** When `keys unban` last lifted a ban of this key. */
  unbannedAt: string | null;
  /** When the ban the limiter last put on this key ends; null when none was recorded or it was lifted. */
  bannedUntil: string | null;
}

/**
 * A create made under an `Idempotency-Key` (DESIGN.md section 3): the repository stores `answer(created)`
 * for (apiKeyId, key) in the same transaction as the row it creates, so that a committed create always has
 * its answer to replay, even if the process dies a moment later. Nothing is stored when nothing is created.
 */
export interface IdempotentWrite<T> {
  apiKeyId: string;
  key: string;
  /** Digest of the request (method, path and body), to tell a retry from a reuse of the key. */
  requestDigest: string;
  /** Milliseconds since the epoch: when the answer was made. */
  createdAt: number;
  /** Answers stored before this time have expired: they are replaced, never replayed. */
  expiredBefore: number;
  /** The answer to keep, made from the created entity, byte for byte as it is sent. */
  answer(created: T): StoredAnswer;
}

/** An answer kept for replays. */
export interface StoredAnswer {
  status: number;
  body: string;
}

export interface IdempotencyRecord extends StoredAnswer {
  requestDigest: string;
}

/**
 * Thrown by a create given an `IdempotentWrite` when the key is taken: `in_use` while another transaction
 * holds it (another instance is creating under it), `recorded` when an answer was stored meanwhile. The
 * create's own writes are rolled back.
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
  /** Stores a category and returns it with its assigned id. */
  create(input: NewCategory, idempotent?: IdempotentWrite<Category>): Promise<Category>;
}

export interface PetRepository {
  /** Stores a pet, unless its category does not exist. */
  create(
    input: { name: string; categoryId: number; status: PetStatus },
    idempotent?: IdempotentWrite<Pet>,
  ): Promise<{ ok: true; pet: Pet } | { ok: false; reason: 'category_not_found' }>;
  /** Pets matching every given filter, ascending by id. */
  list(filter: PetQuery): Promise<Pet[]>;
  get(id: number): Promise<Pet | undefined>;
}

export interface OrderRepository {
  /**
   * Places an order and marks its pet `pending` in one transaction, only if the pet is `available`: of
   * concurrent orders for one pet, exactly one succeeds.
   */
  place(
    input: { petId: number; quantity: number; createdAt: string },
    idempotent?: IdempotentWrite<Order>,
  ): Promise<{ ok: true; order: Order } | { ok: false; reason: 'pet_not_found' | 'pet_not_available' }>;
  /** Orders matching the filter, newest first. */
  list(filter: OrderQuery): Promise<Order[]>;
}

export interface ApiKeyRepository {
  insert(record: ApiKeyRecord): Promise<void>;
  /**
   * Inserts the record only if no key at all exists, revoked ones included, atomically: of instances
   * starting at once on a fresh database, exactly one inserts. Resolves with whether it did.
   */
  insertFirst(record: ApiKeyRecord): Promise<boolean>;
  /** Every key, revoked ones included, oldest first. */
  list(): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked; false if no key has that id. Revoking twice keeps the first time. */
  revoke(id: string, at: string): Promise<boolean>;
  /** Records that a key's ban was lifted (and forgets its end); false if no key has that id. */
  unban(id: string, at: string): Promise<boolean>;
  /**
   * Records until when a key is banned, for operators to see (`keys list`). Servers do not read it back:
   * the ban itself lives in the rate-limit store.
   */
  recordBan(id: string, until: string): Promise<void>;
  /** A value that changes whenever a key is created or revoked, cheap to read. */
  version(): Promise<number>;
}

/** The domains whose DNS `petstore domains verify` found correct: a TLS front may get certificates for them. */
export interface DomainRepository {
  /** Records a successful verification of `domain` against `target` at `at` (ISO 8601), replacing any earlier. */
  markVerified(domain: string, target: string, at: string): Promise<void>;
  /** Whether `domain` was ever verified. */
  isVerified(domain: string): Promise<boolean>;
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

/** How storage is opened. */
export interface OpenOptions {
  /**
   * Refuse, with `StorageNotFoundError`, to create a database or its schema: for commands that only read
   * or change what a server made. An existing schema is still brought up to date.
   */
  mustExist?: boolean;
}

/**
 * Everything the service keeps durably. Implementations: SQLite (embedded default) and, later, PostgreSQL.
 * A write's promise resolves only after its transaction has committed durably.
 */
export interface Storage {
  readonly kind: 'sqlite' | 'postgres';
  readonly categories: CategoryRepository;
  readonly pets: PetRepository;
  readonly orders: OrderRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly idempotency: IdempotencyRepository;
  readonly domains: DomainRepository;
  /** Schema versions applied when this storage was opened (empty when it was current). */
  readonly migrationsApplied: readonly number[];
  /**
   * Calls `notify` whenever categories may have been written by another process, so a cached list can be
   * dropped. SQLite has a single writing server, so it never calls.
   */
  watchCategories(notify: () => void): Promise<void>;
  /** Resolves when the store answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  /** Finishes pending writes and releases the store. */
  close(): Promise<void>;
}
