import type { Clock } from '../clock/index.js';
import type { NewOrder, OrderQuery } from '../contract/index.js';
import { ApiError } from '../errors/index.js';
import type { OperationHandlers } from '../http/index.js';
import type { OrderRepository } from '../storage/index.js';

/** The handlers of `listOrders` and `placeOrder`. */
export function createOrderHandlers(deps: {
  orders: OrderRepository;
  clock: Clock;
}): Pick<OperationHandlers, 'listOrders' | 'placeOrder'> {
  const { orders, clock } = deps;
  return {
    async listOrders(request, reply) {
      return reply.send(await orders.list(request.query as OrderQuery));
    },
    async placeOrder(request, reply) {
      const body = request.body as NewOrder;
      const result = await orders.place({
        petId: body.petId,
        quantity: body.quantity,
        createdAt: new Date(clock.now()).toISOString(),
      });
      if (result.ok) return reply.code(201).send(result.order);
      if (result.reason === 'pet_not_found') {
        throw new ApiError('validation_failed', `petId ${body.petId} does not name an existing pet`);
      }
      throw new ApiError('pet_not_available', `Pet ${body.petId} is not available: it is pending or sold`);
    },
  };
}
