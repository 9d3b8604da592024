import { type PetRow, toPet } from '../rows.js';
import type { CreateResult, Creates, PetRepository } from '../types.js';
import type { Queryable } from './transaction.js';

/** Pets in PostgreSQL: the list and one pet, and the insert the unit of work of `create` runs. */
export function postgresPets(pool: Queryable): {
  repository: PetRepository;
  insert(db: Queryable, input: Creates['createPet']['input']): Promise<CreateResult<'createPet'>>;
} {
  return {
    repository: {
      async list(filter) {
        // A NULL filter matches every row, so one statement serves every combination of filters.
        // LIMIT NULL is no limit.
        const { rows } = await pool.query<PetRow>(
          `SELECT id, name, category_id, status FROM pets
           WHERE ($1::bigint IS NULL OR category_id = $1) AND ($2::text IS NULL OR status = $2) AND id > $3
           ORDER BY id LIMIT $4`,
          [filter.categoryId ?? null, filter.status ?? null, filter.afterId ?? 0, filter.limit ?? null],
        );
        return rows.map(toPet);
      },
      async get(id) {
        const { rows } = await pool.query<PetRow>(
          'SELECT id, name, category_id, status FROM pets WHERE id = $1',
          [id],
        );
        return rows[0] === undefined ? undefined : toPet(rows[0]);
      },
    },
    async insert(db, input) {
      // The check and the insert in one statement: no category, no row.
      const { rows } = await db.query<{ id: number }>(
        `INSERT INTO pets (name, category_id, status)
         SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM categories WHERE id = $2) RETURNING id`,
        [input.name, input.categoryId, input.status],
      );
      const created = rows[0];
      if (created === undefined) return { ok: false, refusal: 'category_not_found' };
      return { ok: true, created: { id: created.id, ...input } };
    },
  };
}
