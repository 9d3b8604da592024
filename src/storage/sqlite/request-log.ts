import { Worker } from 'node:worker_threads';
import type {
  Evicted,
  RequestLogStore,
  RequestPage,
  RequestRecord,
  RowBatch,
} from '../../request-log/index.js';
import { createPrivateFile } from './files.js';

/**
 * The request log in a SQLite file of its own (`<database>.requests.db` beside the database), written and
 * read by a worker thread (request-log-worker.ts): the API's database never waits on it, and the server's event
 * loop never runs its statements. Rows cross to it as the request log encoded them (request-log/rows.ts). The file is created 0600, as the database is.
 */
export async function sqliteRequestLog(file: string): Promise<RequestLogStore> {
  createPrivateFile(file);
  const worker = new Worker(new URL('./request-log-worker.js', import.meta.url), { workerData: { file } });
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let next = 1;
  let failure: Error | undefined;
  worker.on('message', ({ id, result, error }: { id: number; result?: unknown; error?: string }) => {
    const call = waiting.get(id);
    waiting.delete(id);
    if (error === undefined) call?.resolve(result);
    else call?.reject(new Error(`request log ${file}: ${error}`));
  });
  worker.on('error', (error) => {
    failure = error;
    for (const call of waiting.values()) call.reject(error);
    waiting.clear();
  });
  const opened = new Promise((resolve, reject) => waiting.set(0, { resolve, reject }));
  await opened;
  /** Asks the worker; `transfer` names the buffers of `args` that move to it rather than be copied. */
  const ask = <T>(call: string, args: unknown[], transfer: ArrayBuffer[] = []): Promise<T> => {
    if (failure !== undefined) return Promise.reject(failure);
    const id = next++;
    const answer = new Promise<T>((resolve, reject) =>
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject }),
    );
    worker.postMessage({ id, call, args }, transfer);
    return answer;
  };
  return {
    kind: 'sqlite',
    add(batch: RowBatch) {
      // Its arrays move to the writer; the batch is not read here again.
      return ask<void>(
        'add',
        [batch],
        [batch.numbers.buffer as ArrayBuffer, batch.ends.buffer as ArrayBuffer],
      );
    },
    list: (page: RequestPage) => ask<RequestRecord[]>('list', [page]),
    prune: (before: number, maxBytes: number) => ask<Evicted>('prune', [before, maxBytes]),
    async close() {
      if (failure === undefined) await ask('close', []);
      await worker.terminate();
    },
  };
}
