import { type OrderRow, toOrder } from '../rows.js';
import type { CreateResult, Creates, OrderRepository } from '../types.js';
import type { Database } from './driver.js';

/** Orders in SQLite: the list, and the insert the unit of work of `create` runs. */
export function sqliteOrders(db: Database): {
  repository: OrderRepository;
  insert(input: Creates['placeOrder']['input']): CreateResult<'placeOrder'>;
} {
  const reserve = db.prepare<[number]>(
    "UPDATE pets SET status = 'pending' WHERE id = ? AND status = 'available'",
  );
  const petExists = db.prepare<[number], number>('SELECT 1 FROM pets WHERE id = ?').pluck();
  const insert = db.prepare<[number, number, string], { id: number }>(
    "INSERT INTO orders (pet_id, quantity, status, created_at) VALUES (?, ?, 'placed', ?) RETURNING id",
  );
  const list = db.prepare<
    { status: string | null; beforeAt: string | null; beforeId: number; limit: number },
    OrderRow
  >(
    `SELECT id, pet_id, quantity, status, created_at FROM orders WHERE (@status IS NULL OR status = @status)
       AND (@beforeAt IS NULL OR created_at < @beforeAt OR (created_at = @beforeAt AND id < @beforeId))
     ORDER BY created_at DESC, id DESC LIMIT @limit`,
  );
  return {
    repository: {
      async list(filter) {
        return list
          .all({
            status: filter.status ?? null,
            beforeAt: filter.before?.createdAt ?? null,
            beforeId: filter.before?.id ?? 0,
            // SQLite reads a negative LIMIT as none.
            limit: filter.limit ?? -1,
          })
          .map(toOrder);
      },
    },
    insert(input) {
      // The conditional update is the check and the claim in one step: only one order can flip the pet.
      if (reserve.run(input.petId).changes === 0) {
        return {
          ok: false,
          refusal: petExists.get(input.petId) === undefined ? 'pet_not_found' : 'pet_not_available',
        };
      }
      const { id } = insert.get(input.petId, input.quantity, input.createdAt) as { id: number };
      return { ok: true, created: { id, ...input, status: 'placed' } };
    },
  };
}
