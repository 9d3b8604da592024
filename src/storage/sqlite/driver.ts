import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

import type { Database, Statement } from 'better-sqlite3';

export type { Database, Statement };

const require = createRequire(import.meta.url);

/**
 * better-sqlite3, in the major version that works on the running Node; the two share one API.
 * - 13 is built on Node-API 10, which Node has from 22.14 on and never had on 20: there `new Database()`
 *   crashes (WiseLibs/better-sqlite3#1514).
 * - 12 is built on Node's own C++ object wrapper, whose destructor aborts the process on Node 24 when the
 *   garbage collector frees a statement at the wrong moment (`Assertion failed: (env) != nullptr`; it
 *   stopped half the starts of `petstore serve` here).
 * So Node 20 loads 12, installed under the alias `better-sqlite3-node20`, and every newer Node loads 13.
 * Drop the alias with Node 20.
 */
export const Sqlite: typeof BetterSqlite3 =
  Number(process.versions.napi) >= 10 ? require('better-sqlite3') : require('better-sqlite3-node20');

/**
 * A statement prepared at its first use, not when the storage opens: a database a schema behind (opened by
 * `migrate --check`) may not have its table or column yet.
 */
export function preparedAtFirstUse<P extends unknown[] = unknown[], R = unknown>(
  db: Database,
  sql: string,
): () => Statement<P, R> {
  let statement: Statement<P, R> | undefined;
  return () => {
    statement ??= db.prepare<P, R>(sql);
    return statement;
  };
}
