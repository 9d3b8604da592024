import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type AdminTokenCreatedView, ROLES, type Role } from '../../src/contract/index.js';
import { assertError } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { runCli } from '../support/process.js';
import { request, startTestServer, type TestServer } from '../support/server.js';

/**
 * The table of docs/people-and-roles.md, written here on its own: the least role each admin operation needs.
 * The test walks the served document, so an operation missing here (a new one without its role) fails it.
 */
const LEAST_ROLE: Readonly<Record<string, Role>> = {
  createApiKey: 'admin',
  listApiKeys: 'viewer',
  getApiKey: 'viewer',
  updateApiKey: 'admin',
  rotateApiKey: 'admin',
  revokeApiKey: 'admin',
  unbanApiKey: 'support',
  listAdminTokens: 'viewer',
  createAdminToken: 'owner',
  revokeAdminToken: 'owner',
  listPeople: 'owner',
  endPersonSessions: 'owner',
  listAuditEvents: 'viewer',
  listRequests: 'viewer',
  getRequest: 'viewer',
  startSession: 'viewer',
  getSession: 'viewer',
  endSession: 'viewer',
  getUsage: 'viewer',
  listKeyUsage: 'viewer',
  listDomains: 'viewer',
  getDomainSettings: 'viewer',
  addDomain: 'admin',
  getDomain: 'viewer',
  verifyDomain: 'admin',
  removeDomain: 'admin',
  listWebhooks: 'viewer',
  createWebhook: 'admin',
  getWebhook: 'viewer',
  updateWebhook: 'admin',
  deleteWebhook: 'admin',
  rotateWebhookSecret: 'owner',
  testWebhook: 'admin',
  listWebhookDeliveries: 'viewer',
  getWebhookDelivery: 'viewer',
  replayWebhookDelivery: 'admin',
  replayFailedWebhookDeliveries: 'admin',
};

/** Whether `held` may do what needs `needed`: the roles are ordered, owner first. */
const allows = (held: Role, needed: Role) => ROLES.indexOf(held) <= ROLES.indexOf(needed);

/** Values for the path parameters, well formed, of nothing that exists: no request changes anything. */
const PARAMS: Readonly<Record<string, string>> = {
  id: 'key_AAAAAAAAAAAA',
  name: 'api.example.com',
  requestId: 'no-such-request',
  deliveryId: '1',
};
const WEBHOOK_ID = 'we_00000000000000000000';

interface Documented {
  operationId: string;
  method: string;
  path: string;
  role: unknown;
}

interface AuditEventView {
  id: number;
  at: string;
  actor: string;
  actorKind: string;
  actorName: string | null;
  action: string;
  target: string;
  details: Record<string, unknown>;
}

for (const backend of BACKENDS) {
  describe(`roles (${backend.name})`, () => {
    let server: TestServer;
    const tokens = new Map<Role, { id: string; token: string }>();
    let documented: Documented[];

    before(async () => {
      server = await startTestServer({}, { backend });
      for (const role of ROLES) tokens.set(role, await server.createAdminToken(`${role} token`, role));
      const document = (await request(`${server.url}/admin/openapi.json`)).body as {
        paths: Record<string, Record<string, { operationId: string; 'x-petstore-role'?: unknown }>>;
      };
      documented = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => method !== 'head')
          .map(([method, operation]) => ({
            operationId: operation.operationId,
            method: method.toUpperCase(),
            path,
            role: operation['x-petstore-role'],
          })),
      );
    });
    after(() => server.close());

    const tokenOf = (role: Role) => (tokens.get(role) as { token: string }).token;

    test('the document names the role of every operation, and it is the table’s', () => {
      assert.deepEqual(
        documented.map((operation) => operation.operationId).sort(),
        Object.keys(LEAST_ROLE).sort(),
        'every operation of the document is in the table, and only those',
      );
      for (const operation of documented)
        assert.equal(operation.role, LEAST_ROLE[operation.operationId], operation.operationId);
    });

    test('every operation with every role: 403 insufficient_role naming the role exactly below it', async () => {
      for (const operation of documented) {
        const path = operation.path
          .replace('/webhooks/{id}', `/webhooks/${WEBHOOK_ID}`)
          .replace('/admin-tokens/{id}', '/admin-tokens/adm_AAAAAAAAAAAA')
          .replace(/\{(\w+)\}/g, (_, name: string) => PARAMS[name] as string);
        const needed = LEAST_ROLE[operation.operationId] as Role;
        for (const role of ROLES) {
          const answer = await server.admin(tokenOf(role), path, {
            method: operation.method,
            ...(operation.method === 'GET' ? {} : { json: {} }),
          });
          const what = `${role} ${operation.method} ${path}: ${answer.status} ${answer.text}`;
          if (allows(role, needed)) {
            assert.notEqual(answer.status, 403, what);
            assert.ok(answer.status < 500, what);
          } else {
            assertError(answer, 403, 'insufficient_role');
            const message = (answer.body as { message: string }).message;
            assert.match(message, new RegExp(`^${operation.operationId} needs the ${needed} role`), what);
            assert.match(message, new RegExp(`this token has the ${role} role$`), what);
          }
        }
      }
    });

    test('a refusal is audited as access.refused, with who, what and the role it needed', async () => {
      const viewer = tokens.get('viewer') as { id: string; token: string };
      const refused = await server.admin(viewer.token, '/keys', { method: 'POST', json: { plan: 'free' } });
      assertError(refused, 403, 'insufficient_role');
      assert.equal((await server.admin(tokenOf('owner'), '/keys')).status, 200);
      const events = (await server.admin(tokenOf('viewer'), `/audit?actor=${viewer.id}&order=desc&limit=1`))
        .body as AuditEventView[];
      assert.deepEqual(
        events.map(({ actor, actorKind, actorName, action, target, details }) => ({
          actor,
          actorKind,
          actorName,
          action,
          target,
          details,
        })),
        [
          {
            actor: viewer.id,
            actorKind: 'token',
            actorName: 'viewer token',
            action: 'access.refused',
            target: 'createApiKey',
            details: { method: 'POST', route: '/admin/v1/keys', role: 'viewer', needs: 'admin' },
          },
        ],
      );
      const created = await server.admin(tokenOf('admin'), '/keys', {
        method: 'POST',
        json: { plan: 'free' },
      });
      assert.equal(created.status, 201, created.text);
      server.issuedKeys.push((created.body as { key: string }).key);
    });

    test('a console session acts with its token’s role', async () => {
      const started = await request(`${server.url}/admin/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokenOf('support')}` },
      });
      assert.equal(started.status, 201, started.text);
      const cookie = (started.headers.get('set-cookie') as string).split(';')[0] as string;
      const secret = (started.body as { secret: string }).secret;
      const asSession = (path: string, body?: unknown) =>
        request(`${server.url}/admin/v1${path}`, {
          method: 'POST',
          headers: {
            cookie,
            'x-petstore-session': secret,
            origin: server.url,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const refused = await asSession('/keys', { plan: 'free' });
      assertError(refused, 403, 'insufficient_role');
      assert.match((refused.body as { message: string }).message, /this token has the support role/);
      const [entry] = (
        await server.admin(tokenOf('owner'), `/audit?actor=${tokens.get('support')?.id}&order=desc&limit=1`)
      ).body as AuditEventView[];
      assert.equal(entry?.action, 'access.refused');
      assert.equal(entry?.details.session, true, 'the refusal says it came from a console session');
      // Support may lift a ban: the operation is let through (404: no such key).
      assertError(await asSession('/keys/key_AAAAAAAAAAAA/unban'), 404, 'not_found');
    });

    test('a viewer sees the request log without client addresses, and may not search by one; support may', async () => {
      const support = await server.admin(tokenOf('support'), '/requests?limit=5');
      assert.equal(support.status, 200, support.text);
      const supportRows = support.body as { client: string | null }[];
      assert.ok(supportRows.length > 0);
      assert.ok(
        supportRows.every((row) => row.client === '127.0.0.1'),
        support.text,
      );

      const viewer = await server.admin(tokenOf('viewer'), '/requests?limit=5');
      assert.equal(viewer.status, 200, viewer.text);
      const viewerRows = viewer.body as { client: string | null; requestId: string }[];
      assert.ok(viewerRows.length > 0);
      assert.ok(
        viewerRows.every((row) => row.client === null),
        viewer.text,
      );
      const one = await server.admin(tokenOf('viewer'), `/requests/${viewerRows[0]?.requestId}`);
      assert.equal((one.body as { client: string | null }).client, null, one.text);
      const exported = await server.admin(tokenOf('viewer'), '/requests?format=ndjson');
      assert.equal(exported.status, 200);
      const lines = exported.text.trim().split('\n');
      assert.ok(lines.length > 0 && lines.every((line) => JSON.parse(line).client === null));
      assert.doesNotMatch(exported.text, /127\.0\.0\.1/);

      const search = await server.admin(tokenOf('viewer'), '/requests?client=127.0.0.1');
      assertError(search, 403, 'insufficient_role');
      assert.match((search.body as { message: string }).message, /needs the support role or above/);
      assert.equal((await server.admin(tokenOf('support'), '/requests?client=127.0.0.1')).status, 200);
    });

    test('the audit filters by kind of actor and exports a filtered view as NDJSON and CSV', async () => {
      const owner = tokens.get('owner') as { id: string; token: string };
      const kinds = new Set(
        ((await server.admin(owner.token, '/audit?actorKind=token&limit=500')).body as AuditEventView[]).map(
          (event) => event.actorKind,
        ),
      );
      assert.deepEqual([...kinds], ['token']);
      const cli = (await server.admin(owner.token, '/audit?actorKind=cli&limit=500'))
        .body as AuditEventView[];
      assert.ok(cli.length >= ROLES.length, 'the tokens made as the CLI makes them');
      assert.ok(cli.every((event) => event.actor === 'cli' && event.actorKind === 'cli'));
      assert.deepEqual(
        cli.filter((event) => event.action === 'admin_token.created').map((event) => event.details.role),
        [...ROLES],
      );

      const filter = `actorKind=token&actor=${tokens.get('viewer')?.id}`;
      const page = (await server.admin(owner.token, `/audit?${filter}&limit=500`)).body as AuditEventView[];
      assert.ok(page.length > 0);
      const ndjson = await server.admin(owner.token, `/audit?${filter}&format=ndjson&limit=1`);
      assert.equal(ndjson.status, 200, ndjson.text);
      assert.match(ndjson.headers.get('content-type') ?? '', /^application\/x-ndjson/);
      assert.match(
        ndjson.headers.get('content-disposition') ?? '',
        /^attachment; filename="audit-.*\.ndjson"$/,
      );
      assert.deepEqual(
        ndjson.text
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line)),
        page,
        'every event of the filter, its limit aside',
      );

      const csv = await server.admin(owner.token, `/audit?${filter}&format=csv`);
      assert.equal(csv.status, 200, csv.text);
      assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
      const [header, ...rows] = csv.text.trim().split('\n');
      assert.equal(header, 'id,at,actorKind,actor,actorName,actorSubject,actorEmail,action,target,details');
      assert.equal(rows.length, page.length);
      assert.ok(rows[0]?.startsWith(`${page[0]?.id},${page[0]?.at},token,${page[0]?.actor},viewer token,`));
      assert.match(rows[0] as string, /,"\{""method"":""[A-Z]+""/, 'details as JSON in a quoted cell');
    });

    test('an owner makes a token of any role through the API, shown once, accepted at once; revoking it ends it', async () => {
      const made = await server.admin(tokenOf('owner'), '/admin-tokens', {
        method: 'POST',
        json: { name: 'support desk', role: 'support' },
      });
      assert.equal(made.status, 201, made.text);
      const created = made.body as AdminTokenCreatedView;
      server.issuedKeys.push(created.token);
      assert.equal(created.role, 'support');
      assert.match(created.token, /^ps_admin_[0-9A-Za-z]{32}$/);
      assert.equal(
        (await server.admin(created.token, '/keys/key_AAAAAAAAAAAA/unban', { method: 'POST' })).status,
        404,
      );
      assertError(
        await server.admin(created.token, '/keys', { method: 'POST', json: { plan: 'free' } }),
        403,
        'insufficient_role',
      );
      const listed = (await server.admin(tokenOf('viewer'), '/admin-tokens')).body as Record<
        string,
        unknown
      >[];
      const row = listed.find((token) => token.id === created.id);
      assert.deepEqual(Object.keys(row ?? {}).sort(), [
        'createdAt',
        'createdBy',
        'id',
        'name',
        'prefix',
        'revokedAt',
        'role',
      ]);
      // Made by the owner's token; the owner's was made by the CLI.
      assert.deepEqual(row?.createdBy, { kind: 'token', id: tokens.get('owner')?.id, name: 'owner token' });
      assert.deepEqual(created.createdBy, row?.createdBy);
      assert.deepEqual(listed.find((token) => token.id === tokens.get('owner')?.id)?.createdBy, {
        kind: 'cli',
        id: 'cli',
        name: null,
      });
      assert.ok(!JSON.stringify(listed).includes(created.token), 'never the token itself');

      const revoked = await server.admin(tokenOf('owner'), `/admin-tokens/${created.id}/revoke`, {
        method: 'POST',
      });
      assert.equal(revoked.status, 200, revoked.text);
      assert.notEqual((revoked.body as { revokedAt: string | null }).revokedAt, null);
      assert.deepEqual((revoked.body as { createdBy: unknown }).createdBy, created.createdBy);
      assertError(await server.admin(created.token, '/keys'), 401, 'invalid_api_key');
      assertError(
        await server.admin(tokenOf('owner'), '/admin-tokens/adm_AAAAAAAAAAAA/revoke', { method: 'POST' }),
        404,
        'not_found',
      );
      const audited = (await server.admin(tokenOf('owner'), `/audit?target=${created.id}`))
        .body as AuditEventView[];
      assert.deepEqual(
        audited.map((event) => [event.action, event.actor, event.details.role]),
        [
          ['admin_token.created', tokens.get('owner')?.id, 'support'],
          ['admin_token.revoked', tokens.get('owner')?.id, undefined],
        ],
      );
    });

    test('petstore admin-tokens create --role: the role is kept and listed; an unknown role is refused', async () => {
      const made = await runCli(
        ['admin-tokens', 'create', '--name', 'cli viewer', '--role', 'viewer', '--json'],
        server.env,
      );
      assert.equal(made.code, 0, made.stderr);
      const created = JSON.parse(made.stdout) as { id: string; role: string; token: string };
      server.issuedKeys.push(created.token);
      assert.equal(created.role, 'viewer');
      const listed = await runCli(['admin-tokens', 'list', '--json'], server.env);
      const row = (JSON.parse(listed.stdout) as { tokens: { id: string; role: string }[] }).tokens.find(
        (token) => token.id === created.id,
      );
      assert.equal(row?.role, 'viewer');
      assert.deepEqual((row as { createdBy?: unknown } | undefined)?.createdBy, {
        kind: 'cli',
        id: 'cli',
        name: null,
      });
      // The running server reads the new token by itself (a token made a moment ago is rechecked).
      assertError(
        await server.admin(created.token, '/keys', { method: 'POST', json: { plan: 'free' } }),
        403,
        'insufficient_role',
      );

      const refused = await runCli(['admin-tokens', 'create', '--role', 'root'], server.env);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /--role must be one of owner, admin, support, viewer \(got root\)/);
    });
  });
}
