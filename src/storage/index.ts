import type { StorageConfig } from '../config/index.js';
import { createPostgresStorage } from './postgres/storage.js';
import { createSqliteStorage } from './sqlite/storage.js';
import type { Storage } from './types.js';

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
  type OrderRepository,
  type PetRepository,
  type Plan,
  type Storage,
} from './types.js';

/** Opens the storage the configuration names. */
export async function createStorage(config: StorageConfig): Promise<Storage> {
  switch (config.kind) {
    case 'sqlite':
      return createSqliteStorage({ file: config.file });
    case 'postgres':
      return createPostgresStorage({ url: config.url, poolSize: config.poolSize });
  }
}
