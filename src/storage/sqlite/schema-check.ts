import { SCHEMA_VERSION } from '../schema.js';
import { type Database, Sqlite } from './driver.js';
import { MIGRATIONS, migrate } from './migrations.js';

/**
 * Whether a SQLite file holds exactly the schema this release's migrations make, for the commands that take
 * a file from elsewhere and serve it (`restore`, `copy` from SQLite). A file is data, not code, until its
 * schema runs: a trigger added to a backup runs on every write of the server it is restored into (it could
 * un-revoke a token, or drop the audit rows that would show it), and a view in place of a table changes
 * what every read returns. So the file's objects (tables, indexes, triggers, views) are compared with those
 * of a database built in memory by this release's own migrations, up to the file's schema version: an older
 * backup is compared with the schema of its version, which `serve` then migrates. The SQL of a shipped
 * migration is never edited (src/storage/migration.ts), so the same version always gives the same text.
 *
 * A file at a newer version than this release knows, which the migration policy lets it serve (expand, then
 * contract a release later: src/storage/schema.ts), may hold what a newer release added: tables, indexes,
 * and columns added to our tables (ALTER TABLE ADD COLUMN's form: our table's text with column definitions
 * inserted after its last column). Every object this release makes must still be there and the same. An
 * unknown trigger or view is refused at every version: a newer release that needs one is restored by a
 * release that knows it.
 */

/** One object of a schema as `sqlite_master` lists it. */
interface SchemaObject {
  type: string;
  name: string;
  table: string;
  sql: string | null;
}

/** The most differences a refusal names; the rest are counted. */
const NAMED = 6;

/**
 * The objects of a database, by name; triggers apart (their names are a namespace of their own). ANALYZE's
 * statistics tables (`sqlite_stat1`, `sqlite_stat4`) are left out: any database may have them, and they
 * hold no code.
 */
function objectsOf(db: Database): Map<string, SchemaObject> {
  const rows = db
    .prepare<[], SchemaObject>(
      'SELECT type, name, tbl_name AS "table", sql FROM sqlite_master ORDER BY rowid',
    )
    .all();
  return new Map(
    rows
      .filter((row) => !row.name.startsWith('sqlite_stat'))
      .map((row) => [row.type === 'trigger' ? `trigger ${row.name}` : row.name, row]),
  );
}

/** The objects this release's migrations make, up to and including `version`. */
function expectedObjects(version: number): Map<string, SchemaObject> {
  const db = new Sqlite(':memory:');
  try {
    migrate(
      db,
      MIGRATIONS.filter((migration) => migration.version <= version),
    );
    return objectsOf(db);
  } finally {
    db.close();
  }
}

/** SQL as compared: runs of white space are one space (the text is otherwise SQLite's, as written). */
function normalized(sql: string | null): string | null {
  return sql === null ? null : sql.replace(/\s+/g, ' ').trim();
}

/**
 * Whether `theirs` is `ours` with column definitions inserted in one place, starting with a comma: what
 * ALTER TABLE ADD COLUMN makes of a table's text (SQLite inserts them after the last column definition).
 */
function addsColumnsOnly(ours: string, theirs: string): boolean {
  const added = theirs.length - ours.length;
  if (added <= 0) return false;
  let common = 0;
  while (common < ours.length && ours[common] === theirs[common]) common += 1;
  for (let at = common; at >= 0; at -= 1) {
    if (theirs.slice(at + added) === ours.slice(at) && /^ ?,/.test(theirs.slice(at, at + added))) return true;
  }
  return false;
}

/** How a refusal names an object: `trigger "x" on admin_tokens`, `table "orders"`. */
function named(object: SchemaObject): string {
  const on = object.type === 'index' || object.type === 'trigger' ? ` on ${object.table}` : '';
  return `${object.type} "${object.name}"${on}`;
}

/**
 * How the schema of `db` differs from the one this release's migrations make at `version`, one phrase per
 * object (`an extra trigger "x" on admin_tokens`, `no index "y" on orders`, `"orders" is a view, not a
 * table`); empty when it is the same. `version` is the file's own (`readSchema`).
 */
export function schemaDifferences(db: Database, version: number): string[] {
  const newer = version > SCHEMA_VERSION;
  const expected = expectedObjects(Math.min(version, SCHEMA_VERSION));
  const found = objectsOf(db);
  const differences: string[] = [];
  for (const [key, ours] of expected) {
    const theirs = found.get(key);
    if (theirs === undefined) {
      differences.push(`no ${named(ours)}`);
    } else if (theirs.type !== ours.type) {
      differences.push(`"${ours.name}" is a ${theirs.type}, not a ${ours.type}`);
    } else {
      const [a, b] = [normalized(ours.sql), normalized(theirs.sql)];
      const same =
        a === b || (newer && ours.type === 'table' && a !== null && b !== null && addsColumnsOnly(a, b));
      if (!same || theirs.table !== ours.table)
        differences.push(`the ${named(ours)} differs from this release's`);
    }
  }
  for (const [key, theirs] of found) {
    if (expected.has(key)) continue;
    // What a newer release's expansion may add, and this release ignores: plain tables and indexes.
    const ignorable =
      newer &&
      ((theirs.type === 'table' && /^CREATE TABLE /i.test(normalized(theirs.sql) ?? '')) ||
        theirs.type === 'index');
    if (!ignorable) differences.push(`an extra ${named(theirs)}`);
  }
  return differences;
}

/** The differences as one clause for a refusal: the first few named, the rest counted. */
export function describeDifferences(differences: readonly string[]): string {
  const shown = differences.slice(0, NAMED).join('; ');
  const more = differences.length - NAMED;
  return more > 0 ? `${shown}; and ${more} more` : shown;
}
