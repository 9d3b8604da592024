import { type PetRow, toPet } from '../rows.js';
import type { CreateResult, Creates, PetRepository } from '../types.js';
import type { Database } from './driver.js';

/** Pets in SQLite: the list and one pet, and the insert the unit of work of `create` runs. */
export function sqlitePets(db: Database): {
  repository: PetRepository;
  insert(input: Creates['createPet']['input']): CreateResult<'createPet'>;
} {
  const categoryExists = db.prepare<[number], number>('SELECT 1 FROM categories WHERE id = ?').pluck();
  const insert = db.prepare<[string, number, string], { id: number }>(
    'INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING id',
  );
  const byId = db.prepare<[number], PetRow>('SELECT id, name, category_id, status FROM pets WHERE id = ?');
  // A NULL filter matches every row, so one statement serves every combination of filters.
  const list = db.prepare<
    { categoryId: number | null; status: string | null; after: number; limit: number },
    PetRow
  >(
    `SELECT id, name, category_id, status FROM pets
     WHERE (@categoryId IS NULL OR category_id = @categoryId) AND (@status IS NULL OR status = @status)
       AND id > @after
     ORDER BY id LIMIT @limit`,
  );
  return {
    repository: {
      async list(filter) {
        return list
          .all({
            categoryId: filter.categoryId ?? null,
            status: filter.status ?? null,
            after: filter.afterId ?? 0,
            // SQLite reads a negative LIMIT as none.
            limit: filter.limit ?? -1,
          })
          .map(toPet);
      },
      async get(id) {
        const row = byId.get(id);
        return row === undefined ? undefined : toPet(row);
      },
    },
    insert(input) {
      if (categoryExists.get(input.categoryId) === undefined)
        return { ok: false, refusal: 'category_not_found' };
      const { id } = insert.get(input.name, input.categoryId, input.status) as { id: number };
      return { ok: true, created: { id, ...input } };
    },
  };
}
