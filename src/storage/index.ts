import { createPostgresStorage } from './postgres/storage.js';
import { createSqliteStorage } from './sqlite/storage.js';
import type { OpenOptions, Storage, StorageConfig } from './types.js';

export { CopyError, type CopyProgress, type CopyReport, copyDatabase } from './copy.js';
export { listQuery as postgresRequestLogQuery } from './postgres/request-log.js';
export { openRequestLogStore, requestLogFile } from './request-log.js';
export {
  checkServable,
  compareReleases,
  OLDEST_RELEASE_SERVING,
  SCHEMA_VERSION,
  type SchemaState,
  SchemaTooNewError,
} from './schema.js';
export { BackupError, backupSqlite, restoreSqlite, type SqliteCopyReport } from './sqlite/backup.js';
export { Sqlite } from './sqlite/driver.js';
export {
  type CategoryRepository,
  type CreateOperation,
  type CreateResult,
  type Creates,
  IdempotencyConflict,
  type IdempotencyRepository,
  type KeptAnswer,
  type OrderFilter,
  type OrderRepository,
  type PetFilter,
  type PetRepository,
  REPOSITORY_NAMES,
  type Repositories,
  type Storage,
  type StorageConfig,
  StorageNotFoundError,
  StorageOpenError,
} from './types.js';

/** Opens the storage the configuration names, creating its database and schema unless `mustExist`. */
export async function createStorage(config: StorageConfig, options: OpenOptions = {}): Promise<Storage> {
  switch (config.kind) {
    case 'sqlite':
      return createSqliteStorage({ file: config.file, dataDir: config.dataDir, ...options });
    case 'postgres':
      return createPostgresStorage({ url: config.url, poolSize: config.poolSize, ...options });
  }
}
