import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { type ApiDescription, type Operation, PARAMETER_SCHEMAS, SCHEMAS } from '../../src/contract/index.js';
import { type PreparedHandler, registerOperations, sendPrepared } from '../../src/http/index.js';

/** An operation of a made-up contract, answered from a prepared body. */
const LIST_THINGS: Operation = {
  operationId: 'listThings',
  method: 'GET',
  path: '/things',
  tag: 'Things',
  summary: 'List things',
  description: 'Things.',
  success: { status: 200, description: 'Things.', schema: 'Category', array: true },
  errors: [],
};

const prepared: PreparedHandler = {
  prepared: (request, reply) =>
    sendPrepared(request, reply, Buffer.from('[]'), { 'content-type': 'application/json' }),
};

/** An app with one scope: `before` registers its hooks, then the operations are registered. */
async function appWith(operation: Operation, before: (scope: FastifyInstance) => void = () => {}) {
  const app = Fastify();
  await app.register(async (scope) => {
    before(scope);
    const api: ApiDescription = {
      prefix: '',
      operations: [operation],
      schemas: SCHEMAS,
      parameters: PARAMETER_SCHEMAS,
    };
    registerOperations(scope, api, { [operation.operationId]: prepared });
  });
  await app.ready();
  return app;
}

describe('answers from a prepared body skip no hook', () => {
  test('an operation answered so is served when its route has no onSend hook', async () => {
    const app = await appWith(LIST_THINGS);
    const answer = await app.inject({ method: 'GET', url: '/things' });
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.body, '[]');
    await app.close();
  });

  test('a deprecated operation answered so is refused at start: its headers come from an onSend hook', async () => {
    await assert.rejects(
      appWith({ ...LIST_THINGS, deprecated: true }),
      /listThings answers a prepared body, which skips the onSend hook that puts the deprecation headers on/,
    );
  });

  test('a route given an onSend hook is refused at start', async () => {
    await assert.rejects(
      appWith(LIST_THINGS, (scope) =>
        scope.addHook('onRoute', (route) => {
          route.onSend = [(_request, _reply, payload, done) => done(null, payload)];
        }),
      ),
      /GET \/things answers a prepared body, which skips onSend hooks, but the route has some/,
    );
  });
});
