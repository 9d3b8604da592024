import path from 'node:path';
import type { RequestLogStore } from '../request-log/index.js';
import { postgresRequestLog } from './postgres/request-log.js';
import { sqliteRequestLog } from './sqlite/request-log.js';
import type { StorageConfig } from './types.js';

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
