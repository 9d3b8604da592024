import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { codeSamples, exampleRequest, hasBody, requestHeaders, requestTarget } from '../../src/docs/index.js';
import { getWithHost, startTestServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);

interface SampledOperation {
  operationId: string;
  method: string;
  path: string;
  responses: Record<string, unknown>;
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

/** The checkout, where `@petstore-api/client` resolves to the client workspace (its link in node_modules). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The status each operation's sample gets, in the document's order, from an empty store. */
const EXPECTED = [
  'listCategories 200',
  'createCategory 201',
  'listPets 200',
  'createPet 201',
  'getPetById 200',
  'listOrders 200',
  'placeOrder 201',
  'getKey 200',
  'getKeyUsage 200',
  'listKeyRequests 200',
  'rotateKey 201',
  'revokeKey 200',
];

/** The documented success status of an operation. */
const successOf = (operation: SampledOperation) =>
  Number(Object.keys(operation.responses).find((status) => status.startsWith('2')));

function sampleOf(operation: SampledOperation, label: string): string {
  const sample = operation['x-codeSamples']?.find((candidate) => candidate.label === label);
  assert.ok(sample, `${operation.operationId} has a ${label} sample`);
  return sample.source;
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

  /** Sends each operation in the document's order to `target` with a fresh key (a rotation or a revocation must not change what the next gets). */
  async function statusesOf(
    target: TestServer,
    send: (operation: SampledOperation, key: string) => Promise<number>,
  ): Promise<string[]> {
    const statuses: string[] = [];
    for (const operation of sampledOperations(document)) {
      const { key } = await target.createKey({ plan: 'pro' });
      statuses.push(`${operation.operationId} ${await send(operation, key)}`);
    }
    return statuses;
  }

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
    const panel = await statusesOf(panelServer, async (operation, key) => {
      // What the try-it panel sends for the same prefilled request (same generator, same origin).
      const request = exampleRequest(document, operation.path, operation.method);
      const answer = await fetch(`${panelServer.url}/v1${requestTarget(request)}`, {
        method: request.method,
        headers: { ...requestHeaders(request), Authorization: `Bearer ${key}` },
        ...(hasBody(request) ? { body: request.body } : {}),
      });
      await answer.body?.cancel();
      return answer.status;
    });
    assert.deepEqual(panel, EXPECTED);
    const curl = await statusesOf(server, async (operation, key) => {
      const source = sampleOf(operation, 'curl');
      assert.ok(source.includes('$PETSTORE_KEY'), 'the key is read from the environment');
      const { stdout } = await run('sh', ['-c', `${source} -s -o /dev/null -w '%{http_code}'`], {
        env: { ...process.env, PETSTORE_KEY: key },
      });
      return Number(stdout);
    });
    assert.deepEqual(curl, panel);
  });

  test('the fetch, typed client and Python samples run as they are and get the same statuses', async () => {
    // Each language on a server of its own, from the same empty store, for the reason above.
    const runs: [string, string, string[], (stdout: string) => number][] = [
      [
        'JavaScript (fetch)',
        process.execPath,
        ['--input-type=module', '-e'],
        (out) => Number(out.split(' ')[0]),
      ],
      // The client throws on an error answer; a sample that ran through got the operation's success status.
      ['JavaScript (typed client)', process.execPath, ['--input-type=module', '-e'], () => 0],
      ['Python (requests)', 'python3', ['-c'], (out) => Number(out.split(' ')[0])],
    ];
    for (const [label, command, args, statusOf] of runs) {
      const target = await startTestServer();
      try {
        const statuses = await statusesOf(target, async (operation, key) => {
          const source = sampleOf(operation, label).replaceAll(server.url, target.url);
          // The typed client's sample imports `@petstore-api/client`: from the checkout, the workspace.
          const { stdout } = await run(command, [...args, source], {
            env: { ...process.env, PETSTORE_KEY: key },
            cwd: ROOT,
          });
          return statusOf(stdout) || successOf(operation);
        });
        assert.deepEqual(statuses, EXPECTED, label);
      } finally {
        await target.close();
      }
    }
  });

  test('the samples send to the origin the document was asked at: its Host, or a trusted proxy’s', async () => {
    const sources = (served: Record<string, unknown>) =>
      sampledOperations(served).flatMap((operation) =>
        (operation['x-codeSamples'] ?? []).map((sample) => sample.source),
      );
    /** The origins a sample sends to. */
    const originsIn = (source: string) => [...new Set(source.match(/https?:\/\/[^/'"\s]+/g))];
    const fetched = sources(document);
    assert.equal(fetched.length, 48);
    for (const source of fetched) assert.deepEqual(originsIn(source), [server.url], source);

    const port = new URL(server.url).port;
    const byName = await getWithHost(server.url, `Docs.Example.test:${port}`, '/openapi.json');
    for (const source of sources(JSON.parse(byName.body)))
      assert.deepEqual(originsIn(source), [`http://docs.example.test:${port}`], source);

    // A Host that is not a plain name is never written into a sample someone pastes into a shell.
    const odd = await getWithHost(server.url, "x'$(id)", '/openapi.json');
    assert.equal(odd.status, 200);
    assert.doesNotMatch(odd.body, /\$\(id\)/);
    assert.deepEqual(sources(JSON.parse(odd.body)), []);

    const proxied = await startTestServer({ TRUST_PROXY: '127.0.0.1' });
    try {
      const answer = await getWithHost(proxied.url, '127.0.0.1', '/openapi.json', {
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'docs.example.test',
      });
      const behind = sources(JSON.parse(answer.body));
      assert.equal(behind.length, 48);
      for (const source of behind) assert.deepEqual(originsIn(source), ['https://docs.example.test'], source);
    } finally {
      await proxied.close();
    }
  });

  test('with a public URL configured, the samples send there, whatever the Host', async () => {
    const configured = await startTestServer({ PETSTORE_PRODUCTION_URL: 'https://api.example.test/v1' });
    try {
      const answer = await getWithHost(configured.url, 'elsewhere.example.test', '/openapi.json');
      const [operation] = sampledOperations(JSON.parse(answer.body));
      assert.match(
        sampleOf(operation as SampledOperation, 'curl'),
        /'https:\/\/api\.example\.test\/v1\/categories'/,
      );
    } finally {
      await configured.close();
    }
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
