import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli, type ServerProcess, spawnServer } from '../support/process.js';
import { getWithHost, startTestServer, type TestServer, tempDir } from '../support/server.js';

/** Polls until `host` gets `status` on `/openapi.json`; fails after `limitMs`. */
async function waitForStatus(url: string, host: string, status: number, limitMs: number): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    if ((await getWithHost(url, host, '/openapi.json')).status === status) return;
    await sleep(50);
  }
  assert.fail(`${host} did not get ${status} within ${limitMs} ms`);
}

const DOMAINS = {
  primary: 'docs.example.test',
  redirects: [
    { from: 'old.example.test', to: 'docs.example.test', status: 301 },
    { from: 'temp.example.test', to: 'docs.example.test', status: 307 },
  ],
};

describe('custom domains: Host rules', () => {
  let server: TestServer;
  let configFile: string;
  before(async () => {
    server = await startTestServer(
      {
        PETSTORE_PRODUCTION_URL: 'https://api.petstore.example/v1',
        PETSTORE_STAGING_URL: 'https://staging.api.petstore.example/v1',
      },
      { configFile: { domains: DOMAINS } },
    );
    configFile = server.env.PETSTORE_CONFIG as string;
  });
  after(() => server.close());

  test("a redirect's from gets its status to https://<to><path and query>, on every path", async () => {
    const moved = await getWithHost(server.url, 'old.example.test', '/docs/pets?tag=a%20b&x=1');
    assert.equal(moved.status, 301);
    assert.equal(moved.headers.location, 'https://docs.example.test/docs/pets?tag=a%20b&x=1');
    const api = await getWithHost(server.url, 'OLD.example.test.:8443', '/v1/categories?limit=2');
    assert.equal(api.status, 301, 'any case, a trailing dot and a port are the same host');
    assert.equal(api.headers.location, 'https://docs.example.test/v1/categories?limit=2');
    const temporary = await getWithHost(server.url, 'temp.example.test', '/openapi.json');
    assert.equal(temporary.status, 307);
    assert.equal(temporary.headers.location, 'https://docs.example.test/openapi.json');
    assert.ok(temporary.headers['x-request-id'], 'a redirect carries the request id too');
  });

  test('the primary domain is served', async () => {
    const answer = await getWithHost(server.url, 'docs.example.test', '/openapi.json');
    assert.equal(answer.status, 200);
    assert.equal((JSON.parse(answer.body) as { openapi: string }).openapi, '3.1.0');
  });

  test('an unknown Host gets 421 with the Error body on the reference', async () => {
    // Encoded and absolute-form targets route to the reference too, and are refused alike.
    for (const pathAndQuery of [
      '/openapi.json',
      '/docs',
      '/docs/anything?x=1',
      '/%64ocs',
      '/openapi%2Ejson',
      'http://x.example.test/docs',
    ]) {
      const answer = await getWithHost(server.url, 'unknown.example.test', pathAndQuery);
      assert.equal(answer.status, 421, pathAndQuery);
      assert.match(String(answer.headers['content-type']), /^application\/json/);
      const body = JSON.parse(answer.body) as Record<string, unknown>;
      assert.deepEqual(
        { code: body.code, status: body.status, message: body.message },
        {
          code: 'misdirected_request',
          status: 421,
          message:
            'This service does not publish its reference at unknown.example.test: the Host is not a configured domain',
        },
      );
      assert.equal(body.requestId, answer.headers['x-request-id']);
    }
  });

  test('the API, health checks and the console answer by any name (fleets call instances by address)', async () => {
    const api = await getWithHost(server.url, 'unknown.example.test', '/v1/categories', {
      authorization: `Bearer ${server.key}`,
    });
    assert.equal(api.status, 200);
    assert.equal((await getWithHost(server.url, '10.1.2.3:8080', '/healthz')).status, 200);
    // The console is the operator's: a redirecting domain never sends it away, whatever the name.
    for (const host of ['old.example.test', 'unknown.example.test'])
      assert.equal((await getWithHost(server.url, host, '/console/keys')).status, 200, host);
  });

  test("the service's own addresses are served, with or without a port", async () => {
    const port = new URL(server.url).port;
    for (const host of [
      `127.0.0.1:${port}`,
      '127.0.0.1',
      'localhost',
      `localhost:${port}`,
      '[::1]:8080',
      'api.petstore.example',
      'staging.api.petstore.example:443',
    ]) {
      assert.equal((await getWithHost(server.url, host, '/openapi.json')).status, 200, host);
    }
  });

  test('a redirect removed from the file stops within 2 s; a bad file is logged and the domains kept', async () => {
    writeFileSync(configFile, JSON.stringify({ domains: { ...DOMAINS, redirects: [DOMAINS.redirects[0]] } }));
    // waitForStatus fails the test when the 421 has not come within 2 s.
    await waitForStatus(server.url, 'temp.example.test', 421, 2_000);
    assert.equal((await getWithHost(server.url, 'old.example.test', '/openapi.json')).status, 301);

    const refusedBefore = server.logs.filter((line) => line.includes('config file refused')).length;
    writeFileSync(
      configFile,
      JSON.stringify({
        domains: { primary: 'docs.example.test', redirects: [{ ...DOMAINS.redirects[0], status: 303 }] },
      }),
    );
    const started = Date.now();
    while (server.logs.filter((line) => line.includes('config file refused')).length === refusedBefore) {
      assert.ok(Date.now() - started < 2_000, 'the refused file is logged');
      await sleep(50);
    }
    const refusal = server.logs.filter((line) => line.includes('config file refused')).at(-1) as string;
    assert.match(refusal, /domains\.redirects\[0\]\.status must be 301/);
    assert.equal((await getWithHost(server.url, 'old.example.test', '/openapi.json')).status, 301, 'kept');
    assert.equal((await getWithHost(server.url, 'docs.example.test', '/openapi.json')).status, 200, 'kept');
  });
});

describe('custom domains: SIGHUP and start-up validation', () => {
  const { dir, remove } = tempDir();
  const configFile = path.join(dir, 'petstore.json');
  const env = { DATABASE_URL: `sqlite:${path.join(dir, 'petstore.db')}`, PETSTORE_CONFIG: configFile };
  let server: ServerProcess;
  before(async () => {
    writeFileSync(configFile, JSON.stringify({ domains: DOMAINS }));
    server = await spawnServer(env);
  });
  after(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    remove();
  });

  test('SIGHUP re-reads the domains, and the process keeps serving', async () => {
    assert.equal((await getWithHost(server.url, 'old.example.test', '/openapi.json')).status, 301);
    writeFileSync(configFile, JSON.stringify({ domains: { primary: 'docs.example.test' } }));
    server.child.kill('SIGHUP');
    const started = Date.now();
    while (
      !server.output.some((line) => line.includes('"reason":"SIGHUP"') && line.includes('domains reloaded'))
    ) {
      assert.ok(Date.now() - started < 2_000, `no reload logged:\n${server.output.join('\n')}`);
      await sleep(50);
    }
    assert.equal((await getWithHost(server.url, 'old.example.test', '/openapi.json')).status, 421);
    assert.equal((await getWithHost(server.url, 'docs.example.test', '/openapi.json')).status, 200);
    assert.equal(server.child.exitCode, null, 'SIGHUP does not stop the server');
  });

  test('a redirect status other than 301, 302, 307 or 308 is refused at start, naming the field', async () => {
    const bad = path.join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        domains: {
          primary: 'docs.example.test',
          redirects: [{ from: 'a.example.test', to: 'docs.example.test', status: 303 }],
        },
      }),
    );
    const result = await runCli(['serve'], { ...env, PETSTORE_CONFIG: bad, PORT: '0' });
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /PETSTORE_CONFIG domains\.redirects\[0\]\.status must be 301 \(the documented status\), 302, 307 or 308 \(got 303\)/,
    );
  });

  test('a domain that is not a host name is refused at start', async () => {
    const bad = path.join(dir, 'bad-host.json');
    writeFileSync(bad, JSON.stringify({ domains: { primary: 'https://docs.example.test/' } }));
    const result = await runCli(['serve'], { ...env, PETSTORE_CONFIG: bad, PORT: '0' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /PETSTORE_CONFIG domains\.primary must be a domain name/);
  });
});
