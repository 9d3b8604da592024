import type { StorageConfig } from '../config/index.js';
import { createPostgresStorage } from './postgres/storage.js';
import { createSqliteStorage } from './sqlite/storage.js';
import type { OpenOptions, Storage } from './types.js';

export { Sqlite } from './sqlite/driver.js';
export { openSqliteDatabase } from './sqlite/storage.js';
export {
  type ApiKeyRecord,
  type ApiKeyRepository,
  type CategoryRepository,
  type DomainRepository,
  type Environment,
  IdempotencyConflict,
  type IdempotencyRecord,
  type IdempotencyRepository,
  type IdempotentWrite,
  type OpenOptions,
  type OrderRepository,
  type PetRepository,
  type Plan,
  type Storage,
  StorageNotFoundError,
} from './types.js';

/** Opens the storage the configuration names, creating its database and schema unless `mustExist`. */
export async function createStorage(config: StorageConfig, options: OpenOptions = {}): Promise<Storage> {
  switch (config.kind) {
    case 'sqlite':
      return createSqliteStorage({ file: config.file, ...options });
    case 'postgres':
      return createPostgresStorage({ url: config.url, poolSize: config.poolSize, ...options });
  }
}
