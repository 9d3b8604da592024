import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { breakingChanges, NOTICE_DAYS } from '../../src/contract/compatibility.js';
import { VERSIONING_POLICY } from '../../src/contract/policy.js';
import { request, startTestServer, type TestServer } from '../support/server.js';

// biome-ignore lint/suspicious/noExplicitAny: the tests reach into and edit documents at arbitrary depths.
type Json = Record<string, any>;

const ROOT = new URL('../../../', import.meta.url);
const read = (name: string) => readFileSync(fileURLToPath(new URL(name, ROOT)), 'utf8');
/** The released contract: the document 1.0.0 served, committed as it was. */
const RELEASED = JSON.parse(read('contract/openapi-1.0.0.json')) as Json;
const DAY = 86_400_000;

const notAllowed = (changes: ReturnType<typeof breakingChanges>) =>
  changes.filter((change) => change.allowedBecause === undefined);

describe('the versioning policy, enforced against the released contract', () => {
  let server: TestServer;
  let served: Json;
  before(async () => {
    server = await startTestServer();
    served = (await request(`${server.url}/openapi.json`)).body as Json;
  });
  after(() => server.close());

  test('the document the service serves breaks nothing the policy does not allow', () => {
    const disallowed = notAllowed(breakingChanges(RELEASED, served, Date.now()));
    assert.deepEqual(
      disallowed.map((change) => `${change.operation} ${change.where}: ${change.change}`),
      [],
    );
  });

  test('a deliberate breaking change fails the gate, naming what broke', () => {
    const broken = structuredClone(served);
    delete broken.components.schemas.NewCategory.properties.description;
    broken.components.schemas.Pet.properties.status.enum = ['available', 'sold'];
    broken.components.schemas.NewCategory.properties.name.maxLength = 50;
    delete broken.paths['/categories'].get.responses['304'];
    const found = notAllowed(breakingChanges(RELEASED, broken, Date.now())).map(
      (change) => `${change.operation} ${change.where}: ${change.change}`,
    );
    assert.ok(found.includes('POST /categories request body.description: removed'), found.join('\n'));
    assert.ok(found.includes('POST /categories request body.name: maxLength 100 -> 50'), found.join('\n'));
    assert.ok(found.includes('GET /pets response 200[].status: value "pending" removed'), found.join('\n'));
    assert.ok(found.includes('GET /categories response 304: removed'), found.join('\n'));
  });

  test('an additive change passes: a new optional field, operation, status and error code', () => {
    const grown = structuredClone(served);
    grown.components.schemas.NewCategory.properties.color = { type: 'string', maxLength: 20 };
    grown.components.schemas.Category.properties.color = { type: 'string' };
    grown.paths['/categories/{categoryId}'] = { get: structuredClone(served.paths['/categories'].get) };
    grown.paths['/categories'].get.responses['418'] = served.paths['/categories'].get.responses['400'];
    grown.components.schemas.Error.properties.code.enum.push('teapot');
    assert.deepEqual(notAllowed(breakingChanges(RELEASED, grown, Date.now())), []);
  });

  test('experimental operations may break at once; deprecated ones only with their notice', () => {
    const removed = structuredClone(served);
    delete removed.paths['/store/orders'].post;
    delete removed.paths['/pets/{petId}'].get.responses['404'];
    // Ten days more than the notice before the sunset, not today: from 180 days before the configured sunset
    // on, the notice could no longer be given and this would fail with the calendar.
    const sunset = Date.parse(served.paths['/pets/{petId}'].get['x-sunset']);
    const inTime = sunset - (NOTICE_DAYS.stable + 10) * DAY;
    const changes = breakingChanges(RELEASED, removed, inTime);
    const order = changes.find((change) => change.operation === 'POST /store/orders');
    assert.equal(order?.change, 'removed');
    assert.equal(order?.allowedBecause, 'the operation is experimental', 'as the release marked it');
    const deprecated = changes.find((change) => change.operation === 'GET /pets/{petId}');
    assert.match(deprecated?.allowedBecause ?? '', /deprecated, with its sunset/);
    // Ten days before its sunset, the notice a stable operation needs has not been given since now.
    const late = sunset - 10 * DAY;
    const tooLate = breakingChanges(RELEASED, removed, late).find(
      (change) => change.operation === 'GET /pets/{petId}',
    );
    assert.equal(tooLate?.allowedBecause, undefined);

    const experimental = structuredClone(served);
    experimental.components.schemas.NewOrder.properties.quantity.maximum = 10;
    const narrowed = breakingChanges(RELEASED, experimental, inTime).find(
      (change) => change.operation === 'POST /store/orders',
    );
    assert.equal(narrowed?.change, 'maximum 1000 -> 10');
    assert.equal(narrowed?.allowedBecause, 'the operation is experimental');
    assert.equal(NOTICE_DAYS.stable, 180);
  });

  test("info.version is the changelog's newest release, a minor version above the released one", () => {
    const newest = /^## (\d+\.\d+\.\d+) /m.exec(read('CHANGELOG.md'))?.[1];
    assert.equal(served.info.version, newest);
    const [major, minor] = String(served.info.version).split('.').map(Number);
    const [releasedMajor, releasedMinor] = String(RELEASED.info.version).split('.').map(Number);
    assert.equal(major, releasedMajor, 'a breaking change would be /v2, not a new version of /v1');
    assert.ok(
      (minor ?? 0) > (releasedMinor ?? 0),
      'additive changes since the release raise the minor version',
    );
  });

  test('the policy and the changelog are in the reference, and the policy in the API guide as well', () => {
    assert.ok(served.info.description.includes(`## Versioning policy\n${VERSIONING_POLICY}`));
    // The newest entry first, as the changelog has it.
    assert.ok(
      served.info.description.includes(`## Changelog\n\n### ${served.info.version} `),
      'the changelog in the reference starts with the version the document says',
    );
    assert.ok(
      read('docs/api.md').includes(VERSIONING_POLICY),
      'docs/api.md, "Versioning policy", is the same text',
    );
  });
});
