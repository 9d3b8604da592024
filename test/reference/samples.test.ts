import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import {
  codeSamples,
  DEFAULT_ORIGIN,
  exampleRequest,
  hasBody,
  requestHeaders,
  requestTarget,
} from '../../src/docs/index.js';
import { startTestServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);

interface SampledOperation {
  operationId: string;
  method: string;
  path: string;
  'x-codeSamples'?: { lang: string; label: string; source: string }[];
}

/** The document's operations with their samples, in its order (which the examples need: a category, then a pet). */
function sampledOperations(document: Record<string, unknown>): SampledOperation[] {
  const found: SampledOperation[] = [];
  for (const [path, item] of Object.entries(
    document.paths as Record<string, Record<string, SampledOperation>>,
  ))
    for (const [method, operation] of Object.entries(item))
      if (method !== 'head') found.push({ ...operation, method, path });
  return found;
}

describe('code samples in the served document', () => {
  let server: TestServer;
  // The panel's requests go to a server of their own: each sample changes the data the next one finds (an
  // order makes its pet pending), so both must start from the same empty store.
  let panelServer: TestServer;
  let document: Record<string, unknown>;
  before(async () => {
    server = await startTestServer();
    panelServer = await startTestServer();
    document = (await (await fetch(`${server.url}/openapi.json`)).json()) as Record<string, unknown>;
  });
  after(async () => {
    await server?.close();
    await panelServer?.close();
  });

  test('every /v1 operation has curl, fetch, typed client and Python samples; the HEADs none', () => {
    const paths = document.paths as Record<string, Record<string, SampledOperation>>;
    for (const [path, item] of Object.entries(paths))
      for (const [method, operation] of Object.entries(item)) {
        const labels = operation['x-codeSamples']?.map((sample) => sample.label);
        if (method === 'head') assert.equal(labels, undefined, `${method} ${path}`);
        else
          assert.deepEqual(
            labels,
            ['curl', 'JavaScript (fetch)', 'JavaScript (typed client)', 'Python (requests)'],
            `${method} ${path}`,
          );
      }
  });

  test("each operation's curl sample, with a real key, gets the status the panel's request gets", async () => {
    const statuses: string[] = [];
    for (const operation of sampledOperations(document)) {
      const curl = operation['x-codeSamples']?.find((sample) => sample.label === 'curl')?.source ?? '';
      assert.ok(curl.includes('$PETSTORE_KEY'), 'the key is read from the environment');
      // A fresh key each time: rotating or revoking one must not change what the next sample gets.
      const sampleKey = (await server.createKey({ plan: 'pro' })).key;
      const { stdout } = await run(
        'sh',
        ['-c', `${curl.replaceAll(DEFAULT_ORIGIN, server.url)} -s -o /dev/null -w '%{http_code}'`],
        { env: { ...process.env, PETSTORE_KEY: sampleKey } },
      );

      // What the try-it panel sends for the same prefilled request (same generator, same origin).
      const request = exampleRequest(document, operation.path, operation.method);
      const panelKey = (await panelServer.createKey({ plan: 'pro' })).key;
      const panel = await fetch(`${panelServer.url}/v1${requestTarget(request)}`, {
        method: request.method,
        headers: { ...requestHeaders(request), Authorization: `Bearer ${panelKey}` },
        ...(hasBody(request) ? { body: request.body } : {}),
      });
      await panel.body?.cancel();
      assert.equal(Number(stdout), panel.status, `${operation.operationId}: curl and the panel agree`);
      statuses.push(`${operation.operationId} ${stdout}`);
    }
    assert.deepEqual(statuses, [
      'listCategories 200',
      'createCategory 201',
      'listPets 200',
      'createPet 201',
      'getPetById 200',
      'listOrders 200',
      'placeOrder 201',
      'getKey 200',
      'getKeyUsage 200',
      'rotateKey 201',
      'revokeKey 200',
    ]);
  });

  test('a key typed in is quoted for the shell, the placeholder is not', async () => {
    const request = exampleRequest(document, '/categories', 'get');
    const [typed] = codeSamples(request, { baseUrl: 'https://api.example.com/v1', key: "it's" });
    assert.equal(
      typed?.source,
      "curl -X GET 'https://api.example.com/v1/categories' \\\n  -H 'Authorization: Bearer it'\\''s'",
    );
  });
});
