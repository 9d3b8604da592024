import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { EVENT_CATALOGUE, EVENT_DATA_SCHEMAS, EVENT_TYPES } from '../../src/contract/index.js';
import { storedEvent } from '../../src/webhooks/index.js';
import { receiverAjv } from '../support/event-schemas.js';
import { servedDocument } from '../support/server.js';

type Json = Record<string, unknown>;
interface Ref {
  $ref: string;
}
interface Document {
  webhooks: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; parameters: Record<string, Json> };
}

/** The component a reference of the document names; it must be there. */
function resolve(document: Document, ref: Ref): Json {
  const [, , kind, name] = ref.$ref.split('/') as [string, string, 'schemas' | 'parameters', string];
  const found = document.components[kind][name];
  assert.ok(found !== undefined, `${ref.$ref} is in the document`);
  return found;
}

describe('the admin document publishes every event in its webhooks section', () => {
  let document: Document;
  before(async () => {
    document = await servedDocument('/admin/openapi.json');
  });

  test('one webhook per type of the catalogue, in its order', () => {
    assert.deepEqual(Object.keys(document.webhooks), [...EVENT_TYPES]);
  });

  test('each a signed POST of its event: its type a const, its data the schema of its type', () => {
    for (const type of EVENT_TYPES) {
      const item = document.webhooks[type] ?? {};
      assert.deepEqual(Object.keys(item), ['post'], type);
      const post = item.post as {
        security: unknown[];
        parameters: Ref[];
        requestBody: { required: boolean; content: Record<string, { schema: Ref }> };
        responses: Record<string, { description: string }>;
      };
      assert.deepEqual(post.security, [], `${type}: signed, no admin token`);
      assert.deepEqual(
        post.parameters.map((parameter) => {
          const { name, in: where, required } = resolve(document, parameter);
          return [name, where, required];
        }),
        [
          ['webhook-id', 'header', true],
          ['webhook-timestamp', 'header', true],
          ['webhook-signature', 'header', true],
        ],
      );
      assert.equal(post.requestBody.required, true);
      const body = resolve(document, post.requestBody.content['application/json']?.schema as Ref) as {
        properties: { type: { const: string }; apiVersion: { const: string }; data: Ref };
        required: string[];
        additionalProperties: boolean;
      };
      assert.equal(body.properties.type.const, type);
      assert.equal(body.properties.apiVersion.const, 'v1');
      assert.deepEqual(body.required, ['id', 'type', 'createdAt', 'apiVersion', 'data']);
      assert.equal(body.additionalProperties, false);
      const name = EVENT_CATALOGUE[type].data;
      assert.equal(body.properties.data.$ref, `#/components/schemas/${name}`);
      assert.deepEqual(
        resolve(document, body.properties.data),
        JSON.parse(JSON.stringify(EVENT_DATA_SCHEMAS[name])),
      );
      assert.ok(post.responses['2XX'], `${type}: the receiver's 2xx`);
      assert.ok(post.responses['410'], `${type}: 410 disables the endpoint`);
    }
  });

  test('a payload of the service validates against its webhook, as a receiver reads the document', () => {
    const ajv = receiverAjv();
    ajv.addSchema({ components: document.components }, 'admin');
    /** Whether `body` is valid as the body of the webhook `type`, by the document's references alone. */
    const valid = (type: string, body: unknown) => {
      const post = document.webhooks[type]?.post as {
        requestBody: { content: Record<string, { schema: Ref }> };
      };
      const ref = post.requestBody.content['application/json']?.schema.$ref ?? '';
      return ajv.compile({ $ref: `admin${ref}` })(body);
    };
    const disabled = { id: 'we_0123456789abcdef0123', reason: 'failing', host: null };
    const event = JSON.parse(storedEvent('webhook.endpoint_disabled', disabled, Date.now()).payload) as Json;
    assert.equal(valid('webhook.endpoint_disabled', event), true);
    assert.equal(valid('webhook.endpoint_disabled', { ...event, data: { ...disabled, url: 'x' } }), false);
    assert.equal(valid('order.placed', event), false);
  });
});
