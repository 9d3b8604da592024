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
}

export interface CategoryRepository {
  /** All categories, ascending by id. */
  list(): Promise<Category[]>;
  /** Stores a category and returns it with its assigned id. */
  create(input: NewCategory): Promise<Category>;
}

export interface PetRepository {
  /** Stores a pet, unless its category does not exist. */
  create(input: {
    name: string;
    categoryId: number;
    status: PetStatus;
  }): Promise<{ ok: true; pet: Pet } | { ok: false; reason: 'category_not_found' }>;
  /** Pets matching every given filter, ascending by id. */
  list(filter: PetQuery): Promise<Pet[]>;
  get(id: number): Promise<Pet | undefined>;
}

export interface OrderRepository {
  /**
   * Places an order and marks its pet `pending` in one transaction, only if the pet is `available`: of
   * concurrent orders for one pet, exactly one succeeds.
   */
  place(input: {
    petId: number;
    quantity: number;
    createdAt: string;
  }): Promise<{ ok: true; order: Order } | { ok: false; reason: 'pet_not_found' | 'pet_not_available' }>;
  /** Orders matching the filter, newest first. */
  list(filter: OrderQuery): Promise<Order[]>;
}

export interface ApiKeyRepository {
  insert(record: ApiKeyRecord): Promise<void>;
  /** Every key, revoked ones included, oldest first. */
  list(): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked; false if no key has that id. Revoking twice keeps the first time. */
  revoke(id: string, at: string): Promise<boolean>;
  /** Records that a key's ban was lifted; false if no key has that id. */
  unban(id: string, at: string): Promise<boolean>;
  /** A value that changes whenever a key is created or revoked, cheap to read. */
  version(): Promise<number>;
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
