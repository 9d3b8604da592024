import type { Order, OrderStatus, Pet, PetStatus } from '../../contract/index.js';
import type { OrderRepository, PetRepository } from '../types.js';
import type { Database } from './driver.js';
import type { RecordAnswer } from './idempotency.js';
import type { WriteQueue } from './write-queue.js';

interface PetRow {
  id: number;
  name: string;
  category_id: number;
  status: PetStatus;
}

const toPet = (row: PetRow): Pet => ({
  id: row.id,
  name: row.name,
  categoryId: row.category_id,
  status: row.status,
});

export function sqlitePets(db: Database, writes: WriteQueue, recordAnswer: RecordAnswer): PetRepository {
  const categoryExists = db.prepare<[number], number>('SELECT 1 FROM categories WHERE id = ?').pluck();
  const insert = db.prepare<[string, number, string], { id: number }>(
    'INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING id',
  );
  const byId = db.prepare<[number], PetRow>('SELECT * FROM pets WHERE id = ?');
  // A NULL filter matches every row, so one statement serves every combination of filters.
  const list = db.prepare<{ categoryId: number | null; status: string | null }, PetRow>(
    `SELECT * FROM pets
     WHERE (@categoryId IS NULL OR category_id = @categoryId) AND (@status IS NULL OR status = @status)
     ORDER BY id`,
  );
  return {
    create(input, idempotent) {
      return writes.run(() => {
        if (categoryExists.get(input.categoryId) === undefined) {
          return { ok: false as const, reason: 'category_not_found' as const };
        }
        const { id } = insert.get(input.name, input.categoryId, input.status) as { id: number };
        const pet: Pet = { id, ...input };
        recordAnswer(idempotent, pet);
        return { ok: true as const, pet };
      });
    },
    async list(filter) {
      return list.all({ categoryId: filter.categoryId ?? null, status: filter.status ?? null }).map(toPet);
    },
    async get(id) {
      const row = byId.get(id);
      return row === undefined ? undefined : toPet(row);
    },
  };
}

interface OrderRow {
  id: number;
  pet_id: number;
  quantity: number;
  status: OrderStatus;
  created_at: string;
}

export function sqliteOrders(db: Database, writes: WriteQueue, recordAnswer: RecordAnswer): OrderRepository {
  const reserve = db.prepare<[number]>(
    "UPDATE pets SET status = 'pending' WHERE id = ? AND status = 'available'",
  );
  const petExists = db.prepare<[number], number>('SELECT 1 FROM pets WHERE id = ?').pluck();
  const insert = db.prepare<[number, number, string], { id: number }>(
    "INSERT INTO orders (pet_id, quantity, status, created_at) VALUES (?, ?, 'placed', ?) RETURNING id",
  );
  const list = db.prepare<{ status: string | null }, OrderRow>(
    'SELECT * FROM orders WHERE (@status IS NULL OR status = @status) ORDER BY created_at DESC, id DESC',
  );
  return {
    place(input, idempotent) {
      return writes.run(() => {
        // The conditional update is the check and the claim in one step: only one order can flip the pet.
        if (reserve.run(input.petId).changes === 0) {
          const reason = petExists.get(input.petId) === undefined ? 'pet_not_found' : 'pet_not_available';
          return { ok: false as const, reason };
        }
        const { id } = insert.get(input.petId, input.quantity, input.createdAt) as { id: number };
        const order: Order = { id, ...input, status: 'placed' };
        recordAnswer(idempotent, order);
        return { ok: true as const, order };
      });
    },
    async list(filter) {
      return list.all({ status: filter.status ?? null }).map((row) => ({
        id: row.id,
        petId: row.pet_id,
        quantity: row.quantity,
        status: row.status,
        createdAt: row.created_at,
      }));
    },
  };
}
