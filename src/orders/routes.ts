import type { Clock } from '../clock/index.js';
import type { NewOrder, OrderQuery } from '../contract/index.js';
import { ApiError } from '../errors/index.js';
import type { OperationHandlers } from '../http/index.js';
import type { IdempotentCreates } from '../idempotency/index.js';
import type { OrderRepository } from '../storage/index.js';

/** The handlers of `listOrders` and `placeOrder`. */
export function createOrderHandlers(deps: {
  orders: OrderRepository;
  clock: Clock;
  creates: IdempotentCreates;
}): Pick<OperationHandlers, 'listOrders' | 'placeOrder'> {
  const { orders, clock, creates } = deps;
  return {
    async listOrders(request, reply) {
      return reply.send(await orders.list(request.query as OrderQuery));
    },
    placeOrder(request, reply) {
      const body = request.body as NewOrder;
      return creates.answer(request, reply, async (write) => {
        const createdAt = new Date(clock.now()).toISOString();
        const result = await orders.place({ petId: body.petId, quantity: body.quantity, createdAt }, write);
        if (result.ok) return result.order;
        if (result.reason === 'pet_not_found') {
          throw new ApiError('validation_failed', `petId ${body.petId} does not name an existing pet`);
        }
        throw new ApiError('pet_not_available', `Pet ${body.petId} is not available: it is pending or sold`);
      });
    },
  };
}
