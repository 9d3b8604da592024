import { type Clock, parseTimestamp } from '../clock/index.js';
import { ApiError } from '../errors/index.js';
import { cutPage, type OperationHandlers, pageAsked } from '../http/index.js';
import { type IdempotentCreates, sendAnswer } from '../idempotency/index.js';
import type { OrderRepository } from '../storage/index.js';

/**
 * The cursor of an order page: where the last order of the page stands in the listing (newest first), as
 * base64url of `<createdAt>|<id>`. Opaque to clients; stable under new orders, which are all newer.
 */
function encodeCursor(order: { createdAt: string; id: number }): string {
  return Buffer.from(`${order.createdAt}|${order.id}`).toString('base64url');
}

const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|([1-9]\d{0,15})$/;

function decodeCursor(cursor: string): { createdAt: string; id: number } {
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  const id = Number(match?.[2]);
  if (match?.[1] === undefined || !Number.isSafeInteger(id) || parseTimestamp(match[1]) === undefined) {
    throw new ApiError(
      'validation_failed',
      'after must be a cursor from the Link of an earlier page of GET /v1/store/orders',
    );
  }
  return { createdAt: match[1], id };
}

/** The handlers of `listOrders` and `placeOrder`. */
export function createOrderHandlers(deps: {
  orders: OrderRepository;
  clock: Clock;
  creates: IdempotentCreates;
}): Pick<OperationHandlers, 'listOrders' | 'placeOrder'> {
  const { orders, clock, creates } = deps;
  return {
    async listOrders(request, reply) {
      const { status, ...paging } = request.query;
      const filter = status !== undefined ? { status } : {};
      const page = pageAsked(paging);
      if (page === undefined) return reply.send(await orders.list(filter));
      const before = page.after === undefined ? undefined : decodeCursor(page.after);
      const found = await orders.list({ ...filter, ...(before ? { before } : {}), limit: page.limit + 1 });
      return reply.send(cutPage(request, reply, found, page.limit, encodeCursor));
    },
    async placeOrder(request, reply) {
      const { petId, quantity } = request.body;
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
