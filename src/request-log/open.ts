import path from 'node:path';
import type { StorageConfig } from '../storage/index.js';
import { postgresRequestLog } from './postgres-store.js';
import { sqliteRequestLog } from './sqlite-store.js';
import type { RequestLogStore } from './types.js';

/** The request log's file beside a SQLite database: `petstore.db` keeps it in `petstore.requests.db`. */
export function requestLogFile(database: string): string {
  const { dir, name } = path.parse(path.resolve(database));
  return path.join(dir, `${name}.requests.db`);
}

/** Opens the request log where the API's data is: a SQLite file beside the database, or its PostgreSQL. */
export function openRequestLogStore(storage: StorageConfig): Promise<RequestLogStore> {
  return storage.kind === 'sqlite'
    ? sqliteRequestLog(requestLogFile(storage.file))
    : postgresRequestLog(storage.url);
}
