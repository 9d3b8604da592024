import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { eventually } from '../support/assertions.js';
import { REPOSITORY, tokensOf } from '../support/markdown.js';
import { freePort } from '../support/process.js';
import { request, startTestServer, type TestServer } from '../support/server.js';

/** The guide's receivers, as a reader copies them: the code blocks of docs/webhooks.md, run as they are. */
const GUIDE = readFileSync(path.join(REPOSITORY, 'docs/webhooks.md'), 'utf8');
/** The guide's JavaScript and Python blocks: every one of them is a receiver, and each is run here. */
const BLOCKS = tokensOf(GUIDE).flatMap((token) =>
  token.type === 'code' && (token.lang === 'js' || token.lang === 'python')
    ? [{ lang: token.lang as string, text: token.text as string }]
    : [],
);
const block = (lang: string, marker: string) => {
  const found = BLOCKS.filter((one) => one.lang === lang && one.text.includes(marker));
  assert.equal(found.length, 1, `docs/webhooks.md has one ${lang} receiver with ${marker}`);
  return (found[0] as { text: string }).text;
};

/**
 * Written inside the checkout, where `@petstore-api/client` (the workspace's link) and `standardwebhooks` (its
 * dependency) resolve from the checkout's node_modules, as they do in a project that installed them.
 */
const FOLDER = path.join(REPOSITORY, 'test-artifacts', 'receivers');

/**
 * Python's standardwebhooks comes from PyPI, which the suite's machines cannot reach, and Debian does not
 * package it: its receiver runs where it is installed, and is only compiled elsewhere.
 */
const PYTHON_LIBRARY_MISSING =
  spawnSync('python3', ['-c', 'import standardwebhooks.webhooks'], { stdio: 'ignore' }).status !== 0 &&
  "Python's standardwebhooks is not installed here (PyPI is out of reach, Debian has no package of it)";

interface Running {
  url: string;
  output: () => string;
  stop: () => void;
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function run(command: string, file: string, port: number, secret: string): Promise<Running> {
  const child: ChildProcess = spawn(command, [file], {
    env: { ...process.env, PORT: String(port), PETSTORE_WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  await eventually(
    `the receiver ${file} listening`,
    async () => child.exitCode === null && (await listening(port)),
    20_000,
  );
  return { url: `http://127.0.0.1:${port}/`, output: () => output, stop: () => child.kill() };
}

describe('the guide’s receivers verify real deliveries', () => {
  let server: TestServer;
  let admin = '';

  before(async () => {
    mkdirSync(FOLDER, { recursive: true });
    server = await startTestServer({ WEBHOOKS_ALLOW_PRIVATE: 'true' });
    admin = (await server.createAdminToken('receivers')).token;
  });
  after(async () => {
    await server?.close();
  });

  const receivers: {
    language: string;
    lang: string;
    marker: string;
    file: string;
    command: string;
    skip?: string | false;
  }[] = [
    {
      language: 'JavaScript with the client package',
      lang: 'js',
      marker: "from '@petstore-api/client'",
      file: 'receiver-client.mjs',
      command: process.execPath,
    },
    {
      language: 'JavaScript with standardwebhooks',
      lang: 'js',
      marker: "from 'standardwebhooks'",
      file: 'receiver-library.mjs',
      command: process.execPath,
    },
    {
      language: 'Python with the standard library',
      lang: 'python',
      marker: 'hmac.compare_digest',
      file: 'receiver.py',
      command: 'python3',
    },
    {
      language: 'Python with standardwebhooks',
      lang: 'python',
      marker: 'from standardwebhooks',
      file: 'receiver-library.py',
      command: 'python3',
      skip: PYTHON_LIBRARY_MISSING,
    },
  ];

  test('every JavaScript and Python block of the guide is one of the receivers run here', () => {
    const unrun = BLOCKS.filter(
      (one) => !receivers.some(({ lang, marker }) => one.lang === lang && one.text.includes(marker)),
    );
    assert.deepEqual(unrun, []);
    assert.equal(BLOCKS.length, receivers.length);
  });

  test('Python with standardwebhooks: the receiver compiles (where the library is missing, it is not run)', () => {
    const source = path.join(FOLDER, 'receiver-library.py');
    writeFileSync(source, block('python', 'from standardwebhooks'));
    const compiled = spawnSync('python3', ['-m', 'py_compile', source], { encoding: 'utf8' });
    assert.equal(compiled.status, 0, compiled.stderr);
  });

  for (const { language, lang, marker, file, command, skip = false } of receivers) {
    test(`${language}: an order.placed is handled once, a replay is acknowledged, a forgery refused`, {
      skip,
    }, async () => {
      const source = path.join(FOLDER, file);
      writeFileSync(source, block(lang, marker));
      // The endpoint first, for its secret; the receiver starts with it, as an integrator deploys it.
      const port = await freePort();
      const made = await server.admin(admin, '/webhooks', {
        method: 'POST',
        json: { url: `http://127.0.0.1:${port}/`, events: ['order.placed'] },
      });
      assert.equal(made.status, 201, made.text);
      const { id, secret } = made.body as { id: string; secret: string };
      const receiver = await run(command, source, port, secret);
      try {
        const category = await server.post('/v1/categories', { name: `For ${language}` });
        const pet = await server.post('/v1/pets', {
          name: 'Hook',
          categoryId: (category.body as { id: number }).id,
          status: 'available',
        });
        const order = await server.post('/v1/store/orders', {
          petId: (pet.body as { id: number }).id,
          quantity: 1,
        });
        assert.equal(order.status, 201, order.text);
        const orderId = (order.body as { id: number }).id;

        const delivered = async () => {
          const deliveries = await server.admin(admin, `/webhooks/${id}/deliveries`);
          const [delivery] = deliveries.body as {
            id: number;
            eventId: string;
            state: string;
            lastStatus: number | null;
          }[];
          return delivery?.state === 'delivered' ? delivery : undefined;
        };
        const delivery = await eventually('the order delivered', delivered, 20_000);
        assert.equal(delivery.lastStatus, 204);
        await eventually('the receiver handled it', () =>
          receiver.output().includes(`order ${orderId} placed`),
        );

        // A replay is the same event again: acknowledged, not handled twice.
        const replayed = await server.admin(admin, `/webhooks/${id}/deliveries/${delivery.id}/replay`, {
          method: 'POST',
        });
        assert.equal(replayed.status, 200, replayed.text);
        await eventually(
          'the replay acknowledged',
          async () => {
            const detail = await server.admin(admin, `/webhooks/${id}/deliveries/${delivery.id}`);
            const { log } = detail.body as { log: { status: number | null }[] };
            return log.length === 2 && log[1]?.status === 204;
          },
          20_000,
        );
        // The receiver says so when it drops a repeat: once it has, it has handled the event once only.
        await eventually('the repeat dropped', () =>
          receiver.output().includes(`${delivery.eventId} already handled`),
        );
        assert.equal(receiver.output().split(`order ${orderId} placed`).length - 1, 1, receiver.output());

        // Signed with another secret, or not signed at all: refused.
        const body = JSON.stringify({ id: 'evt_forged', type: 'order.placed', data: { id: 1 } });
        const forged = new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`);
        const at = new Date();
        const headers = {
          'content-type': 'application/json',
          'webhook-id': 'evt_forged',
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': forged.sign('evt_forged', at, body),
        };
        assert.equal((await request(receiver.url, { method: 'POST', headers, body })).status, 400);
        assert.equal((await request(receiver.url, { method: 'POST', body })).status, 400);
        assert.ok(!receiver.output().includes('evt_forged'));
      } finally {
        receiver.stop();
        await server.admin(admin, `/webhooks/${id}`, { method: 'DELETE' });
      }
    });
  }
});
