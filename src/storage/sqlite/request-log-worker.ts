import { parentPort, workerData } from 'node:worker_threads';
import { Sqlite } from './driver.js';
import { requestRows } from './request-log-rows.js';

/**
 * The thread that owns the request log's SQLite file: every write and read of it runs here, so that neither
 * a batch of inserts nor a search of millions of rows holds the server's event loop. Asked by
 * `sqliteRequestLog` (request-log.ts) with `{id, call, args}`; answers `{id, result}` or `{id, error}`, in order.
 */
const { file } = workerData as { file: string };
const db = new Sqlite(file);
const rows = requestRows(db);
const calls = {
  add: rows.add,
  list: rows.list,
  prune: rows.prune,
  close: () => db.close(),
} as Record<string, (...args: never[]) => unknown>;

parentPort?.on('message', ({ id, call, args }: { id: number; call: string; args: never[] }) => {
  try {
    const result = calls[call]?.(...args);
    parentPort?.postMessage({ id, result });
  } catch (error) {
    parentPort?.postMessage({ id, error: (error as Error).message });
  }
});
parentPort?.postMessage({ id: 0, result: 'open' });
