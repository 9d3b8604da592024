import { type Role, roleAllows } from '../contract/index.js';
import { ApiError, answeringRefusals } from '../errors/index.js';
import { type AdminHandlers, queryTime } from '../http/index.js';
import { type EndpointView, maskedUrl, WebhookInputError, type WebhookManager } from '../webhooks/index.js';
import { actorOf } from './actor.js';

type WebhookOperation =
  | 'listWebhooks'
  | 'createWebhook'
  | 'getWebhook'
  | 'updateWebhook'
  | 'deleteWebhook'
  | 'rotateWebhookSecret'
  | 'testWebhook'
  | 'listWebhookDeliveries'
  | 'getWebhookDelivery'
  | 'replayWebhookDelivery'
  | 'replayFailedWebhookDeliveries';

const noEndpoint = (id: string) => new ApiError('not_found', `No webhook endpoint has the id ${id}`);
const noDelivery = (id: string, deliveryId: number) =>
  new ApiError('not_found', `Webhook endpoint ${id} has no delivery ${deliveryId}`);

/** The manager's refusals as the admin API answers them. */
const checked = answeringRefusals([[WebhookInputError, 'validation_failed']]);

/**
 * An endpoint as a role sees it: whole from `admin` up, who may change it; below, its URL's path and query
 * masked, as they can be the capability itself (a chat service's `…/services/T0/B0/<secret>`, `?token=`).
 */
function shownTo(role: Role | undefined, endpoint: EndpointView): EndpointView {
  if (role !== undefined && roleAllows(role, 'admin')) return endpoint;
  return { ...endpoint, url: maskedUrl(new URL(endpoint.url)) };
}

/** The handlers of the webhook operations: thin callers of the manager the CLI uses too. */
export function webhookHandlers(deps: { webhooks: WebhookManager }): Pick<AdminHandlers, WebhookOperation> {
  const { webhooks } = deps;
  return {
    async listWebhooks(request, reply) {
      const role = request.admin?.role;
      return reply.send((await webhooks.list()).map((endpoint) => shownTo(role, endpoint)));
    },
    async createWebhook(request, reply) {
      const { body } = request;
      const { endpoint, secret } = await checked(() => webhooks.create(body, actorOf(request)));
      return reply.code(201).send({ ...endpoint, secret });
    },
    async getWebhook(request, reply) {
      const { id } = request.params;
      const endpoint = await webhooks.get(id);
      if (endpoint === undefined) throw noEndpoint(id);
      return reply.send(shownTo(request.admin?.role, endpoint));
    },
    async updateWebhook(request, reply) {
      const { id } = request.params;
      const endpoint = await checked(() => webhooks.update(id, request.body, actorOf(request)));
      if (endpoint === undefined) throw noEndpoint(id);
      return reply.send(endpoint);
    },
    async deleteWebhook(request, reply) {
      const { id } = request.params;
      const endpoint = await webhooks.get(id);
      if (endpoint === undefined || !(await webhooks.delete(id, actorOf(request)))) throw noEndpoint(id);
      return reply.send(endpoint);
    },
    async rotateWebhookSecret(request, reply) {
      const { id } = request.params;
      const rotated = await webhooks.rotateSecret(id, actorOf(request));
      if (rotated === undefined) throw noEndpoint(id);
      return reply.code(201).send({ ...rotated.endpoint, secret: rotated.secret });
    },
    async testWebhook(request, reply) {
      const { id } = request.params;
      const sent = await checked(() => webhooks.test(id, request.body?.type));
      if (sent === undefined) throw noEndpoint(id);
      return reply.code(201).send(sent);
    },
    async listWebhookDeliveries(request, reply) {
      const { id } = request.params;
      const { query } = request;
      const since = queryTime(query.since, 'since');
      const deliveries = await webhooks.deliveries(id, {
        ...(query.state !== undefined ? { state: query.state } : {}),
        ...(since !== undefined ? { since } : {}),
        ...(query.before !== undefined ? { before: query.before } : {}),
        limit: query.limit ?? 50,
      });
      if (deliveries === undefined) throw noEndpoint(id);
      return reply.send(deliveries);
    },
    async getWebhookDelivery(request, reply) {
      const { id, deliveryId } = request.params;
      const delivery = await webhooks.delivery(id, deliveryId);
      if (delivery === undefined) throw noDelivery(id, deliveryId);
      return reply.send(delivery);
    },
    async replayWebhookDelivery(request, reply) {
      const { id, deliveryId } = request.params;
      const outcome = await webhooks.replay(id, deliveryId);
      if (outcome === 'not_found') throw noDelivery(id, deliveryId);
      if (outcome === 'under_way') {
        throw new ApiError(
          'delivery_in_progress',
          `An attempt of delivery ${deliveryId} is under way: replay it once the attempt is in its log`,
        );
      }
      return reply.send(outcome);
    },
    async replayFailedWebhookDeliveries(request, reply) {
      const { id } = request.params;
      const since = queryTime(request.body.since, 'since') as number;
      const replayed = await webhooks.replayFailed(id, since);
      if (replayed === undefined) throw noEndpoint(id);
      return reply.send({ replayed });
    },
  };
}
