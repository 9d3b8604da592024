import { type CategoryRow, toCategory } from '../rows.js';
import type { CategoryRepository, CreateResult, Creates } from '../types.js';
import type { Queryable } from './transaction.js';

/** Categories in PostgreSQL: the list, and the insert the unit of work of `create` runs. */
export function postgresCategories(pool: Queryable): {
  repository: CategoryRepository;
  insert(db: Queryable, input: Creates['createCategory']['input']): Promise<CreateResult<'createCategory'>>;
} {
  return {
    repository: {
      async list() {
        const { rows } = await pool.query<CategoryRow>(
          'SELECT id, name, description FROM categories ORDER BY id',
        );
        return rows.map(toCategory);
      },
    },
    async insert(db, input) {
      const description = input.description ?? null;
      const { rows } = await db.query<{ id: number }>(
        'INSERT INTO categories (name, description) VALUES ($1, $2) RETURNING id',
        [input.name, description],
      );
      const id = (rows[0] as { id: number }).id;
      return { ok: true, created: toCategory({ id, name: input.name, description }) };
    },
  };
}
