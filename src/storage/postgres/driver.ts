import { createRequire } from 'node:module';

type Pg = typeof import('pg').default;
let loaded: Pg | undefined;

/**
 * The PostgreSQL driver, loaded when a PostgreSQL database is first opened rather than with the storage: a
 * command on SQLite never needs it, and loading it was a tenth of a second of each (`petstore keys create`
 * here: 0.1 s of CPU of about 0.65 s). The other files import only its types.
 */
export const pgDriver = (): Pg => {
  loaded ??= createRequire(import.meta.url)('pg') as Pg;
  return loaded;
};
