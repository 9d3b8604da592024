import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { Sqlite } from '../../src/storage/index.js';

/** A change an attacker (or an accident) could make to a database file before it is restored or copied. */
export interface CraftedSchema {
  label: string;
  /** Run on a copy of a good file. */
  sql: string;
  /** What the refusal must say: every object named. */
  refusal: RegExp[];
}

/** The cases: the two triggers of the backdoor, a view, a table replaced by a view, a missing index. */
export const CRAFTED_SCHEMAS: readonly CraftedSchema[] = [
  {
    label: 'a trigger that un-revokes admin tokens, and one that drops their audit rows',
    sql: `
      CREATE TRIGGER keep_admin AFTER UPDATE OF revoked_at ON admin_tokens WHEN NEW.revoked_at IS NOT NULL
        BEGIN UPDATE admin_tokens SET revoked_at = NULL WHERE id = NEW.id; END;
      CREATE TRIGGER quiet_admin BEFORE INSERT ON audit_events WHEN NEW.target LIKE 'adm_%'
        BEGIN SELECT RAISE(IGNORE); END;`,
    refusal: [
      /an extra trigger "keep_admin" on admin_tokens/,
      /an extra trigger "quiet_admin" on audit_events/,
    ],
  },
  {
    label: 'an extra view',
    sql: 'CREATE VIEW key_digests AS SELECT id, digest FROM api_keys;',
    refusal: [/an extra view "key_digests"/],
  },
  {
    label: 'the orders table replaced by a view',
    sql: `
      DROP TABLE orders;
      CREATE VIEW orders AS SELECT 1 AS id, 1 AS pet_id, 1 AS quantity, 'placed' AS status, '' AS created_at;`,
    refusal: [/"orders" is a view, not a table/, /no index "orders_by_creation" on orders/],
  },
  {
    label: 'a missing index',
    sql: 'DROP INDEX pets_by_category;',
    refusal: [/no index "pets_by_category" on pets/],
  },
  {
    label: 'the audit log’s append-only trigger changed',
    sql: `
      DROP TRIGGER audit_events_no_delete;
      CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events BEGIN SELECT 1; END;`,
    refusal: [/the trigger "audit_events_no_delete" on audit_events differs from this release's/],
  },
];

/** A copy of the SQLite database `source` in `dir` with `crafted` applied; returns its path. */
export function craftSchema(source: string, dir: string, crafted: CraftedSchema, index: number): string {
  const file = path.join(dir, `crafted-${index}.db`);
  copyFileSync(source, file);
  const db = new Sqlite(file);
  try {
    db.exec(crafted.sql);
  } finally {
    db.close();
  }
  return file;
}
