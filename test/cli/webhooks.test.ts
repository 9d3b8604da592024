import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { verifyWebhook } from '@petstore-api/client';
import { Sqlite } from '../../src/storage/index.js';
import { eventually } from '../support/assertions.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { inParallel, runCli, type ServerProcess, spawnServer } from '../support/process.js';
import { tempDir } from '../support/server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** A public address for the test zone's names: nothing is sent to it, as no server runs beside these tests. */
const PUBLIC = '93.184.216.34';
const UNKNOWN_ID = 'we_00000000000000000000';
const SECRET = /whsec_[A-Za-z0-9+/=]+/g;

interface Endpoint {
  id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  previousSecretUntil: string | null;
  secret?: string;
}

interface Delivery {
  id: number;
  eventId: string;
  eventType: string;
  state: string;
  attempts: number;
  lastStatus: number | null;
}

/** The one JSON value a `--json` run printed, on its one line. */
function parsed<T>(result: { code: number | null; stdout: string; stderr: string }): T {
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, 1, 'exactly one JSON line');
  return JSON.parse(lines[0] as string) as T;
}

describe('petstore webhooks', () => {
  const { dir, remove } = tempDir('petstore-webhooks-cli-');
  const file = path.join(dir, 'webhooks.db');
  let dns: TestDnsServer;
  let env: Record<string, string>;
  const cli = (...args: string[]) => runCli(['webhooks', ...args], env);

  /** The webhook tables and the audit log as stored, read in this process: what a refused command leaves. */
  function stored(): unknown {
    const db = new Sqlite(file, { readonly: true, fileMustExist: true });
    try {
      const all = (table: string) => db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all();
      return ['webhook_endpoints', 'webhook_deliveries', 'audit_events'].map(all);
    } finally {
      db.close();
    }
  }

  /** The secret an endpoint signs with now, as stored. */
  function storedSecret(id: string): string {
    const db = new Sqlite(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT secret FROM webhook_endpoints WHERE id = ?').get(id) as { secret: string })
        .secret;
    } finally {
      db.close();
    }
  }

  /** Runs `add --json` and returns the endpoint it made, with its secret. */
  async function add(...args: string[]): Promise<Endpoint> {
    return parsed<Endpoint>(await cli('add', ...args, '--json'));
  }

  async function shown(id: string): Promise<Endpoint> {
    return parsed<Endpoint>(await cli('show', id, '--json'));
  }

  before(async () => {
    // The names' answers come from a DNS server of the test's own (DNS_RESOLVER): the URL checks ask no
    // other, and a name resolving to a private address is refused whatever the machine's network.
    dns = await startDnsServer(
      new Map([
        ['hooks.test', { A: [PUBLIC] }],
        ['inside.test', { A: ['10.0.0.5'] }],
      ]),
    );
    env = { DATABASE_URL: `sqlite:${file}`, DNS_RESOLVER: dns.address };
    const migrated = await runCli(['migrate'], env);
    assert.equal(migrated.code, 0, migrated.stderr);
  });
  after(async () => {
    await dns.close();
    remove();
  });

  test('add prints the secret once; list and show never do', async () => {
    const result = await cli(
      'add',
      'https://hook:pa55@hooks.test/in',
      '--events',
      'pet.created, order.placed',
      '--description',
      'orders',
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '');
    const id = /^Added webhook endpoint (we_[0-9a-f]{20}) /.exec(result.stdout)?.[1] as string;
    assert.ok(id, result.stdout);
    const secrets = result.stdout.match(SECRET) ?? [];
    assert.equal(secrets.length, 1, 'the secret is printed once');
    assert.equal(secrets[0], storedSecret(id), 'the secret printed is the one it signs with');
    assert.match(result.stdout, /\n\n {2}whsec_\S+\n\nStore it now: it will not be shown again\./);
    assert.ok(!result.stdout.includes('pa55'), "the URL's password is not shown");

    const views = [
      await cli('list'),
      await cli('list', '--json'),
      await cli('show', id),
      await cli('show', id, '--json'),
    ];
    for (const view of views) {
      assert.equal(view.code, 0, view.stderr);
      assert.doesNotMatch(view.stdout, /whsec_/, 'no secret is shown after add');
      assert.ok(!view.stdout.includes('pa55'));
    }
    const listed = parsed<Endpoint[]>(views[1] as (typeof views)[1]);
    const endpoint = listed.find((entry) => entry.id === id);
    assert.deepEqual(endpoint, {
      ...endpoint,
      url: 'https://***:***@hooks.test/in',
      description: 'orders',
      events: ['order.placed', 'pet.created'],
      enabled: true,
      disabledReason: null,
      failingSince: null,
      previousSecretUntil: null,
    });
    assert.equal(Object.hasOwn(endpoint as Endpoint, 'secret'), false);
    assert.match(
      views[0]?.stdout ?? '',
      new RegExp(
        `^${id} {2}enabled {2}https://\\*\\*\\*:\\*\\*\\*@hooks\\.test/in {2}order\\.placed,pet\\.created {2}"orders"$`,
        'm',
      ),
    );
    assert.match(
      views[2]?.stdout ?? '',
      new RegExp(`^${id}: enabled\\n {2}URL: https://\\*\\*\\*:\\*\\*\\*@hooks\\.test/in\\n`),
    );
  });

  test('add --json prints one object with the secret; update changes what it names, audited by cli', async () => {
    const made = await add('https://hooks.test/a', '--events', 'key.created');
    assert.match(made.id, /^we_[0-9a-f]{20}$/);
    assert.match(made.secret ?? '', /^whsec_/);
    assert.equal(made.secret, storedSecret(made.id));

    const updated = parsed<Endpoint>(
      await cli(
        'update',
        made.id,
        '--url',
        'https://hooks.test/b',
        '--events',
        'key.revoked,key.rotated',
        '--description',
        'keys',
        '--json',
      ),
    );
    assert.equal(updated.url, 'https://hooks.test/b');
    assert.deepEqual(updated.events, ['key.revoked', 'key.rotated']);
    assert.equal(updated.description, 'keys');
    assert.equal(updated.secret, undefined);
    const human = await cli('update', made.id, '--description', '');
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`^Updated ${made.id}: enabled\\n`));
    assert.equal((await shown(made.id)).description, '');

    const audit = parsed<{ events: { actor: string; action: string }[] }>(
      await runCli(['audit', 'list', '--target', made.id, '--json'], env),
    );
    assert.deepEqual(
      audit.events.map((event) => `${event.actor} ${event.action}`),
      ['cli webhook.created', 'cli webhook.updated', 'cli webhook.updated'],
    );
  });

  test('disable makes it disabled (manual) and refuses a test event; enable takes it back', async () => {
    const made = await add('https://hooks.test/toggle', '--events', 'pet.created');
    const disabled = await cli('disable', made.id);
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.match(disabled.stdout, new RegExp(`^Disabled ${made.id}: its deliveries wait`));
    const off = await shown(made.id);
    assert.equal(off.enabled, false);
    assert.equal(off.disabledReason, 'manual');
    assert.match((await cli('list')).stdout, new RegExp(`^${made.id} {2}disabled \\(manual\\) `, 'm'));

    const refused = await cli('test', made.id);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      `petstore: ${made.id} is disabled by an operator: enable it first (petstore webhooks enable ${made.id}), then send a test event\n`,
    );
    assert.deepEqual(parsed<Delivery[]>(await cli('deliveries', made.id, '--json')), [], 'nothing queued');

    const enabled = await cli('enable', made.id);
    assert.equal(enabled.code, 0, enabled.stderr);
    const on = await shown(made.id);
    assert.equal(on.enabled, true);
    assert.equal(on.disabledReason, null);
  });

  test('test queues a delivery that deliveries lists; replay makes it due again, one or every failed one', async () => {
    const made = await add('https://hooks.test/deliveries', '--events', 'order.placed,pet.created');
    const sent = parsed<{ eventId: string; type: string }>(await cli('test', made.id, '--json'));
    assert.match(sent.eventId, /^evt_[0-9a-f]{32}$/);
    assert.equal(sent.type, 'order.placed', "the endpoint's first type by default");
    const human = await cli('test', made.id, '--type', 'pet.created');
    assert.equal(human.code, 0, human.stderr);
    assert.match(
      human.stdout,
      new RegExp(`^Queued test event evt_[0-9a-f]{32} \\(pet\\.created\\) for ${made.id}\\.`),
    );

    const deliveries = parsed<Delivery[]>(await cli('deliveries', made.id, '--json'));
    assert.deepEqual(
      deliveries.map((delivery) => [delivery.eventType, delivery.state, delivery.attempts]),
      [
        ['pet.created', 'pending', 0],
        ['order.placed', 'pending', 0],
      ],
      'newest first; pending, as no server runs to send them',
    );
    const first = deliveries[1] as Delivery;
    assert.equal(first.eventId, sent.eventId);
    assert.equal(parsed<Delivery[]>(await cli('deliveries', made.id, '--limit', '1', '--json')).length, 1);
    assert.deepEqual(parsed<Delivery[]>(await cli('deliveries', made.id, '--state', 'failed', '--json')), []);
    assert.equal(
      parsed<Delivery[]>(await cli('deliveries', made.id, '--since', '1h', '--state', 'pending', '--json'))
        .length,
      2,
    );
    assert.deepEqual(
      parsed<Delivery[]>(await cli('deliveries', made.id, '--since', '2999-01-01T00:00:00Z', '--json')),
      [],
    );
    const table = await cli('deliveries', made.id);
    assert.match(
      table.stdout,
      new RegExp(`^${first.id} {2}\\S+ {2}order\\.placed {2}pending {2}attempts 0 .* ${sent.eventId}$`, 'm'),
    );

    const replayed = await cli('replay', made.id, String(first.id));
    assert.equal(replayed.code, 0, replayed.stderr);
    assert.match(
      replayed.stdout,
      new RegExp(`^Delivery ${first.id} of ${made.id} \\(${sent.eventId}\\) is due again now`),
    );
    const again = parsed<Delivery>(await cli('replay', made.id, String(first.id), '--json'));
    assert.equal(again.eventId, sent.eventId, 'the same event id');
    assert.equal(again.state, 'pending');
    const missing = await cli('replay', made.id, '999999');
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, `petstore: ${made.id} has no delivery 999999\n`);

    // One delivery given up (as ten failed attempts leave it), for replay --failed-since to find.
    const db = new Sqlite(file);
    try {
      db.prepare("UPDATE webhook_deliveries SET state = 'failed', next_attempt_at = NULL WHERE id = ?").run(
        first.id,
      );
    } finally {
      db.close();
    }
    assert.deepEqual(
      parsed<Delivery[]>(await cli('deliveries', made.id, '--state', 'failed', '--json')).map(
        (delivery) => delivery.id,
      ),
      [first.id],
    );
    const none = await cli('replay', made.id, '--failed-since', '2999-01-01T00:00:00Z');
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stdout, /has failed; nothing to replay\.\n$/);
    assert.deepEqual(parsed(await cli('replay', made.id, '--failed-since', '1h', '--json')), { replayed: 1 });
    assert.deepEqual(parsed<Delivery[]>(await cli('deliveries', made.id, '--state', 'failed', '--json')), []);
  });

  test('rotate-secret prints the new secret once and until when the old one signs', async () => {
    const made = await add('https://hooks.test/rotate', '--events', 'pet.created');
    const rotated = await cli('rotate-secret', made.id);
    assert.equal(rotated.code, 0, rotated.stderr);
    const secrets = rotated.stdout.match(SECRET) ?? [];
    assert.equal(secrets.length, 1);
    assert.notEqual(secrets[0], made.secret);
    assert.equal(secrets[0], storedSecret(made.id));
    assert.match(rotated.stdout, /Store it now: it will not be shown again\./);
    const until = /beside the new one until (\S+): deploy/.exec(rotated.stdout)?.[1] as string;
    assert.ok(Math.abs(Date.parse(until) - (Date.now() + 86_400_000)) < 60_000, until);
    const view = await shown(made.id);
    assert.equal(view.previousSecretUntil, until);
    const human = await cli('show', made.id);
    assert.match(human.stdout, new RegExp(`signs too until ${until}`));
    assert.doesNotMatch(human.stdout, /whsec_/);

    const json = parsed<Endpoint>(await cli('rotate-secret', made.id, '--json'));
    assert.match(json.secret ?? '', /^whsec_/);
    assert.equal(json.secret, storedSecret(made.id));
  });

  test('remove deletes it with its deliveries; then it is unknown', async () => {
    const made = await add('https://hooks.test/gone', '--events', 'pet.created');
    await cli('test', made.id);
    const removed = await cli('remove', made.id);
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(
      removed.stdout,
      `Removed ${made.id} with its deliveries and their log: nothing more is sent to it.\n`,
    );
    const listed = parsed<Endpoint[]>(await cli('list', '--json'));
    assert.ok(!listed.some((entry) => entry.id === made.id));
    const again = await cli('remove', made.id);
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `petstore: no webhook endpoint has the id ${made.id}\n`);
  });

  test('descriptions are printed with control characters escaped; the JSON says exactly what is stored', async () => {
    const description = 'evil\n\u001b[2Jline\u202eend';
    const made = await add(
      'https://hooks.test/escape',
      '--events',
      'pet.created',
      '--description',
      description,
    );
    const unprintable = /(?!\n)[\p{Cc}\p{Cf}]/u;
    for (const args of [['list'], ['show', made.id]]) {
      const result = await cli(...args);
      assert.doesNotMatch(result.stdout, unprintable, args.join(' '));
      assert.match(result.stdout, /"evil\\u\{a\}\\u\{1b\}\[2Jline\\u\{202e\}end"/, args.join(' '));
    }
    const json = await cli('show', made.id, '--json');
    assert.doesNotMatch(json.stdout, unprintable);
    assert.equal(parsed<Endpoint>(json).description, description);
  });

  test('an unknown endpoint id: each action says so on stderr and exits 1', async () => {
    const before = stored();
    const cases = [
      ['show', UNKNOWN_ID],
      ['update', UNKNOWN_ID, '--description', 'x'],
      ['enable', UNKNOWN_ID],
      ['disable', UNKNOWN_ID],
      ['remove', UNKNOWN_ID],
      ['rotate-secret', UNKNOWN_ID],
      ['test', UNKNOWN_ID],
      ['deliveries', UNKNOWN_ID],
      ['replay', UNKNOWN_ID, '1'],
      ['replay', UNKNOWN_ID, '--failed-since', '1h'],
    ];
    const results = await inParallel(cases, (args) => cli(...args));
    results.forEach((result, index) => {
      const label = cases[index]?.join(' ');
      assert.equal(result.code, 1, `${label}: ${result.stderr}`);
      assert.equal(result.stderr, `petstore: no webhook endpoint has the id ${UNKNOWN_ID}\n`, label);
      assert.equal(result.stdout, '', label);
    });
    assert.deepEqual(stored(), before, 'nothing changed');
  });

  describe('wrong arguments: one line, the problem and where the usage is, exit 2, nothing stored', () => {
    let id = '';
    let snapshot: unknown;
    let results: Awaited<ReturnType<typeof cli>>[] = [];
    const wrong: [string, () => string[], RegExp][] = [
      ['no action', () => [], /webhooks needs an action: list, add, show, update, enable, disable, remove/],
      ['an unknown action', () => ['frobnicate'], /unknown webhooks action: frobnicate/],
      ['an unknown option', () => ['list', '--colour'], /unknown option --colour/],
      ['add without a URL', () => ['add', '--events', 'pet.created'], /webhooks add takes one URL/],
      ['add without --events', () => ['add', 'https://hooks.test/x'], /webhooks add needs --events/],
      [
        'an unknown event type',
        () => ['add', 'https://hooks.test/x', '--events', 'pet.created,pet.flown'],
        /events: "pet\.flown" is not an event type/,
      ],
      [
        'every event type as *, which the catalogue does not name',
        () => ['add', 'https://hooks.test/x', '--events', '*'],
        /events: "\*" is not an event type/,
      ],
      [
        'no event type',
        () => ['add', 'https://hooks.test/x', '--events', ','],
        /events: name at least one event type/,
      ],
      [
        'a URL that is not one',
        () => ['add', 'hooks.test/x', '--events', 'pet.created'],
        /url: the URL is not an absolute URL/,
      ],
      [
        'an ftp URL',
        () => ['add', 'ftp://hooks.test/x', '--events', 'pet.created'],
        /url: the URL must be http:\/\/ or https:\/\//,
      ],
      [
        'a loopback URL without WEBHOOKS_ALLOW_PRIVATE',
        () => ['add', 'http://127.0.0.1:9/x', '--events', 'pet.created'],
        /url: 127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback address: webhooks are sent only to public addresses \(WEBHOOKS_ALLOW_PRIVATE=true allows it\)/,
      ],
      [
        'a name resolving to a private address',
        () => ['add', 'https://inside.test/x', '--events', 'pet.created'],
        /url: inside\.test resolves to 10\.0\.0\.5, a private address/,
      ],
      [
        'a private URL as an update',
        () => ['update', id, '--url', 'http://169.254.169.254/latest/meta-data/'],
        /url: 169\.254\.169\.254 resolves to 169\.254\.169\.254, a linkLocal address/,
      ],
      [
        'update without a change',
        () => ['update', id],
        /webhooks update needs --url, --events or --description/,
      ],
      ['show without an id', () => ['show'], /webhooks show takes one endpoint id/],
      ['remove with two ids', () => ['remove', id, id], /webhooks remove takes one endpoint id/],
      [
        'a test event of an unknown type',
        () => ['test', id, '--type', 'pet.sold'],
        /type: "pet\.sold" is not an event type/,
      ],
      [
        'an unknown delivery state',
        () => ['deliveries', id, '--state', 'lost'],
        /--state takes pending, delivered, failed \(got lost\)/,
      ],
      ['a limit of 0', () => ['deliveries', id, '--limit', '0'], /--limit must be 1 to 500 \(got 0\)/],
      [
        'a limit over the page',
        () => ['deliveries', id, '--limit', '501'],
        /--limit must be 1 to 500 \(got 501\)/,
      ],
      [
        'a since that is no time',
        () => ['deliveries', id, '--since', 'yesterday'],
        /--since takes a duration back from now \(15m, 2h, 7d\) or an RFC 3339 time .*\(got yesterday\)/,
      ],
      [
        'a day that does not exist',
        () => ['replay', id, '--failed-since', '2026-02-30T00:00:00Z'],
        /--failed-since takes a duration back from now .*\(got 2026-02-30T00:00:00Z\)/,
      ],
      [
        'replay without a delivery or --failed-since',
        () => ['replay', id],
        /webhooks replay takes <id> <deliveryId>, or <id> --failed-since <time>/,
      ],
      [
        'replay with both',
        () => ['replay', id, '1', '--failed-since', '1h'],
        /webhooks replay takes <id> <deliveryId>, or/,
      ],
      [
        'a delivery id that is no number',
        () => ['replay', id, 'first'],
        /a delivery id is a positive whole number.*\(got first\)/,
      ],
    ];
    // Every case runs in a process of its own, a few at a time, before the tests look at their results.
    before(async () => {
      id = (await add('https://hooks.test/wrong', '--events', 'pet.created')).id;
      snapshot = stored();
      results = await inParallel(wrong, ([, args]) => cli(...args()));
    });
    wrong.forEach(([label, , message], index) => {
      test(label, () => {
        const result = results[index];
        assert.equal(result?.code, 2, result?.stderr);
        assert.match(result.stderr, message);
        assert.match(result.stderr, /^petstore: [^\n]+ \(see 'petstore webhooks --help'\)\n$/);
        assert.equal(result.stdout, '');
      });
    });
    test('none of them stored or audited anything', () => {
      assert.deepEqual(stored(), snapshot);
    });
  });
});

describe('petstore webhooks with a server running: a test event reaches the receiver, signed with the secret add printed', () => {
  const { dir, remove } = tempDir('petstore-webhooks-e2e-');
  const env = { DATABASE_URL: `sqlite:${path.join(dir, 'e2e.db')}`, WEBHOOKS_ALLOW_PRIVATE: 'true' };
  let server: ServerProcess;
  let receiver: WebhookReceiver;

  before(async () => {
    receiver = await startWebhookReceiver();
    server = await spawnServer(env);
  });
  after(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    await receiver.close();
    remove();
  });

  test('add, test: the running server delivers it, and deliveries says delivered with status 200', async () => {
    const made = parsed<Endpoint>(
      await runCli(['webhooks', 'add', `${receiver.url}/cli`, '--events', 'pet.created', '--json'], env),
    );
    const sent = parsed<{ eventId: string }>(await runCli(['webhooks', 'test', made.id, '--json'], env));
    // The server polls the outbox each second: the event comes when it comes, and the wait is for that.
    await eventually('the receiver gets the test event', () => receiver.received.length > 0, 15_000);
    const arrived = receiver.received[0];
    assert.equal(arrived?.path, '/cli');
    assert.equal(arrived?.headers['webhook-id'], sent.eventId);
    const event = verifyWebhook(arrived?.body ?? '', arrived?.headers ?? {}, made.secret as string);
    assert.equal(event.id, sent.eventId);
    assert.equal(event.type, 'pet.created');
    assert.deepEqual(event.data, { test: true, endpoint: made.id });

    const delivered = await eventually(
      'deliveries says delivered',
      async () => {
        const [delivery] = parsed<Delivery[]>(
          await runCli(['webhooks', 'deliveries', made.id, '--json'], env),
        );
        return delivery?.state === 'delivered' && delivery;
      },
      15_000,
    );
    assert.equal(delivered.lastStatus, 200);
    assert.equal(delivered.attempts, 1);
  });
});
