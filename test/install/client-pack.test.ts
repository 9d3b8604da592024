import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { startTestServer, type TestServer, tempDir } from '../support/server.js';

const run = promisify(execFile);
const CHECKOUT = fileURLToPath(new URL('../../..', import.meta.url));
const npmMissing = spawnSync('npm', ['--version'], { encoding: 'utf8' }).status !== 0;

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

/** Every package installed under a project's node_modules, scoped ones by their full name. */
function installed(root: string): string[] {
  const modules = path.join(root, 'node_modules');
  return readdirSync(modules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) =>
      name.startsWith('@')
        ? readdirSync(path.join(modules, name)).map((inner) => `${name}/${inner}`)
        : [name],
    )
    .sort();
}

/** What a project that installed the client runs: it calls the server, then checks a delivery's signature. */
const CONSUMER = `import { createClient, verifyWebhook, WebhookVerificationError } from '@petstore-api/client';

const client = createClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
const category = await client.createCategory({ name: 'From the tarball' });
const listed = await client.listCategories();
const delivery = JSON.parse(process.env.DELIVERY);
const event = verifyWebhook(delivery.body, delivery.headers, process.env.SECRET);
let forged = 'accepted';
try {
  verifyWebhook(delivery.body.replace('"quantity":1', '"quantity":9'), delivery.headers, process.env.SECRET);
} catch (error) {
  forged = error instanceof WebhookVerificationError ? 'refused' : String(error);
}
console.log(JSON.stringify({ category, listed: listed.some((one) => one.id === category.id), event, forged }));
`;

/** The same, type-checked as a TypeScript project would: the package's declarations must stand alone. */
const TYPED = `import { createClient, type Pet, verifyWebhook } from '@petstore-api/client';

const client = createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'ps_test_x' });
export const pets: Promise<Pet[]> = client.listPets({ status: 'available' });
// @ts-expect-error: a status the contract does not have
client.listPets({ status: 'lost' });
// @ts-expect-error: the name of a pet is a string
client.createPet({ name: 7, categoryId: 1 });
const event = verifyWebhook('{}', {}, 'whsec_x');
if (event.type === 'order.placed') {
  const quantity: number = event.data.quantity;
  console.log(quantity);
}
`;

describe('the client package, packed and installed into a project of its own', {
  skip: npmMissing && 'npm is not installed',
}, () => {
  const { dir, remove } = tempDir('petstore-client-');
  const project = path.join(dir, 'project');
  let files: string[] = [];
  let server: TestServer;

  before(async () => {
    mkdirSync(project);
    // The tests run from the build, so the package's dist is there: --ignore-scripts builds nothing again.
    const packed = await run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--workspace=@petstore-api/client', '--pack-destination', dir],
      { cwd: CHECKOUT, maxBuffer: 16 * 1024 * 1024 },
    );
    const [manifest] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    assert.ok(manifest !== undefined);
    files = manifest.files.map((file) => file.path);
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'receiver', version: '1.0.0', private: true, type: 'module' }),
    );
    // Its one dependency and theirs are in npm's cache since `npm ci`; their metadata may not be (`npm ci`
    // fetches none), so npm may ask the registry for it, and for nothing else.
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(dir, manifest.filename)],
      { cwd: project, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
    );
    server = await startTestServer();
  });
  after(async () => {
    await server?.close();
    remove();
  });

  test('the tarball holds the build and its declarations, the contract types among them, and no sources', () => {
    for (const file of ['package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/contract.d.ts'])
      assert.ok(files.includes(file), file);
    assert.deepEqual(
      files.filter((file) => !file.startsWith('dist/') && file !== 'package.json'),
      [],
    );
  });

  test('it depends on standardwebhooks alone: nothing of the server is installed, or named by its files', () => {
    const root = path.join(project, 'node_modules', '@petstore-api', 'client');
    const manifest = readJson(path.join(root, 'package.json'));
    assert.deepEqual(manifest.dependencies, { standardwebhooks: '^1.1.1' });
    for (const field of ['peerDependencies', 'optionalDependencies', 'bundleDependencies'])
      assert.equal(manifest[field], undefined, field);
    assert.equal(
      manifest.version,
      readJson(path.join(CHECKOUT, 'package.json')).version,
      'released together',
    );
    // standardwebhooks and its own two dependencies: no server, no TypeBox, no Fastify.
    assert.deepEqual(installed(project), [
      '@petstore-api/client',
      '@stablelib/base64',
      'fast-sha256',
      'standardwebhooks',
    ]);
    for (const file of readdirSync(path.join(root, 'dist'))) {
      const text = readFileSync(path.join(root, 'dist', file), 'utf8');
      for (const word of ['@petstore-api/server', '@sinclair/typebox', '/src/contract/'])
        assert.ok(!text.includes(word), `${file} names ${word}`);
    }
  });

  test('calls the running server and verifies a delivery signed by the reference library', async () => {
    const secret = `whsec_${Buffer.alloc(24, 3).toString('base64')}`;
    const body = JSON.stringify({
      id: 'evt_packed',
      type: 'order.placed',
      createdAt: new Date().toISOString(),
      apiVersion: 'v1',
      data: { id: 7, petId: 3, quantity: 1, status: 'placed', createdAt: new Date().toISOString() },
    });
    const at = new Date();
    const headers = {
      'webhook-id': 'evt_packed',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('evt_packed', at, body),
    };
    writeFileSync(path.join(project, 'consumer.mjs'), CONSUMER);
    const { stdout } = await run(process.execPath, ['consumer.mjs'], {
      cwd: project,
      env: {
        ...process.env,
        BASE_URL: server.url,
        API_KEY: server.key,
        SECRET: secret,
        DELIVERY: JSON.stringify({ body, headers }),
      },
    });
    const result = JSON.parse(stdout) as {
      category: { id: number; name: string };
      listed: boolean;
      event: { id: string; data: { quantity: number } };
      forged: string;
    };
    assert.equal(result.category.name, 'From the tarball');
    const stored = await server.query<{ name: string }>(
      `SELECT name FROM categories WHERE id = ${Number(result.category.id)}`,
    );
    assert.deepEqual(
      stored.map((row) => row.name),
      ['From the tarball'],
    );
    assert.equal(result.listed, true);
    assert.deepEqual([result.event.id, result.event.data.quantity], ['evt_packed', 1]);
    assert.equal(result.forged, 'refused');
  });

  test('its declarations type-check in a strict project with the server nowhere to be found', async () => {
    writeFileSync(path.join(project, 'typed.ts'), TYPED);
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          // The package's own declarations are checked too, not only their use.
          skipLibCheck: false,
          // Node's types from the checkout, the one thing a Node project brings itself.
          typeRoots: [path.join(CHECKOUT, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['typed.ts'],
      }),
    );
    const tsc = path.join(CHECKOUT, 'node_modules', 'typescript', 'bin', 'tsc');
    assert.ok(existsSync(tsc));
    const checked = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], {
      cwd: project,
      encoding: 'utf8',
    });
    assert.equal(checked.status, 0, checked.stdout + checked.stderr);
  });
});
