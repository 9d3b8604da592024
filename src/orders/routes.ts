import type { Clock } from '../clock/index.js';
import type { NewOrder, OrderQuery } from '../contract/index.js';
import { ApiError } from '../errors/index.js';
import type { OperationHandlers } from '../http/index.js';
import { type IdempotentCreates, sendAnswer } from '../idempotency/index.js';
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
    async placeOrder(request, reply) {
      const { petId, quantity } = request.body as NewOrder;
      const createdAt = new Date(clock.now()).toISOString();
      const outcome = await creates.run(request, 'placeOrder', { petId, quantity, createdAt });
      if (outcome.ok) return sendAnswer(reply, outcome.answer);
      if (outcome.refusal === 'pet_not_found') {
        throw new ApiError('validation_failed', `petId ${petId} does not name an existing pet`);
      }
      throw new ApiError('pet_not_available', `Pet ${petId} is not available: it is pending or sold`);
    },
  };
}
