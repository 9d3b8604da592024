import type { Category, NewCategory } from '../contract/index.js';

/**
 * Everything the service keeps durably. Implementations: SQLite (embedded default) and, later, PostgreSQL.
 * A write's promise resolves only after its transaction has committed durably.
 */
export interface Storage {
  readonly kind: 'sqlite' | 'postgres';
  /** All categories, ascending by id. */
  listCategories(): Promise<Category[]>;
  /** Stores a category and returns it with its assigned id. */
  createCategory(input: NewCategory): Promise<Category>;
  /** Resolves when the store answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  /** Finishes pending writes and releases the store. */
  close(): Promise<void>;
}
