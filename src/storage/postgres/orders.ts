import { type OrderRow, toOrder } from '../rows.js';
import type { CreateResult, Creates, OrderRepository } from '../types.js';
import type { Queryable } from './transaction.js';

/** Orders in PostgreSQL: the list, and the insert the unit of work of `create` runs. */
export function postgresOrders(pool: Queryable): {
  repository: OrderRepository;
  insert(db: Queryable, input: Creates['placeOrder']['input']): Promise<CreateResult<'placeOrder'>>;
} {
  return {
    repository: {
      async list(filter) {
        // LIMIT NULL is no limit.
        const { rows } = await pool.query<OrderRow>(
          `SELECT id, pet_id, quantity, status, created_at FROM orders
           WHERE ($1::text IS NULL OR status = $1)
             AND ($2::timestamptz IS NULL OR created_at < $2 OR (created_at = $2 AND id < $3))
           ORDER BY created_at DESC, id DESC LIMIT $4`,
          [
            filter.status ?? null,
            filter.before?.createdAt ?? null,
            filter.before?.id ?? 0,
            filter.limit ?? null,
          ],
        );
        return rows.map(toOrder);
      },
    },
    async insert(db, input) {
      // The conditional update claims the pet and the insert records the order in one statement: the row
      // lock makes concurrent orders for one pet wait, and only the first finds it available. The same
      // statement says whether the pet exists, for the refusal: a second statement would run after whatever
      // a group commit sent in between (group-commit.ts).
      const { rows } = await db.query<{ id: number | null; pet_exists: boolean }>(
        `WITH claimed AS (
           UPDATE pets SET status = 'pending' WHERE id = $1 AND status = 'available' RETURNING id
         ), placed AS (
           INSERT INTO orders (pet_id, quantity, status, created_at)
           SELECT id, $2, 'placed', $3 FROM claimed RETURNING id
         )
         SELECT (SELECT id FROM placed) AS id, EXISTS (SELECT 1 FROM pets WHERE id = $1) AS pet_exists`,
        [input.petId, input.quantity, input.createdAt],
      );
      const { id, pet_exists } = rows[0] as { id: number | null; pet_exists: boolean };
      if (id !== null) return { ok: true, created: { id, ...input, status: 'placed' } };
      return { ok: false, refusal: pet_exists ? 'pet_not_available' : 'pet_not_found' };
    },
  };
}
