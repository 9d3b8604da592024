import { type CategoryRow, toCategory } from '../rows.js';
import type { CategoryRepository, CreateResult, Creates } from '../types.js';
import type { Database } from './driver.js';

/** Categories in SQLite: the list, and the insert the unit of work of `create` runs. */
export function sqliteCategories(db: Database): {
  repository: CategoryRepository;
  insert(input: Creates['createCategory']['input']): CreateResult<'createCategory'>;
} {
  const select = db.prepare<[], CategoryRow>('SELECT id, name, description FROM categories ORDER BY id');
  const insert = db.prepare<[string, string | null], { id: number }>(
    'INSERT INTO categories (name, description) VALUES (?, ?) RETURNING id',
  );
  return {
    repository: {
      async list() {
        return select.all().map(toCategory);
      },
    },
    insert(input) {
      const description = input.description ?? null;
      const { id } = insert.get(input.name, description) as { id: number };
      return { ok: true, created: toCategory({ id, name: input.name, description }) };
    },
  };
}
