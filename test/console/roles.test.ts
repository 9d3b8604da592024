import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { textOf } from '../support/browser.js';
import { type ConsoleHarness, createTokenOnPage, inspectPage, signIn, startConsole } from './harness.js';

/**
 * The console offers what the session's role allows, and nothing else: a viewer reads every page without a
 * button that would be refused; an admin gets the changes but not the owner's secret rotation.
 */
describe('the console follows the role', () => {
  let h: ConsoleHarness;
  let keyId = '';
  let webhookId = '';

  before(async () => {
    h = await startConsole(undefined, { env: { WEBHOOKS_ALLOW_PRIVATE: 'true' } });
    // Something on every page, made by the owner's token as software would.
    const key = await h.server.admin(h.token, '/keys', {
      method: 'POST',
      json: { plan: 'free', name: 'shop' },
    });
    assert.equal(key.status, 201, key.text);
    keyId = (key.body as { id: string }).id;
    h.server.issuedKeys.push((key.body as { key: string }).key);
    const webhook = await h.server.admin(h.token, '/webhooks', {
      method: 'POST',
      json: { url: 'http://127.0.0.1:9/hooks', events: ['order.placed'] },
    });
    assert.equal(webhook.status, 201, webhook.text);
    webhookId = (webhook.body as { id: string }).id;
    const domain = await h.server.admin(h.token, '/domains', {
      method: 'POST',
      json: { name: 'api.shop.test' },
    });
    assert.equal(domain.status, 201, domain.text);
  });
  after(() => h?.close());

  const heading = (name: string | RegExp) => h.page.getByRole('heading', { level: 1, name }).waitFor();
  const count = (name: string | RegExp) => h.page.getByRole('button', { name }).count();

  async function signInAs(role: 'viewer' | 'admin') {
    const { token } = await h.server.createAdminToken(`${role} person`, role);
    await h.open('/console/keys');
    await signIn(h.page, token);
    await h.page.getByText(`Signed in with the admin token ${role} person (${role})`).waitFor();
  }

  test('a viewer reads keys, webhooks and domains, and is offered no change', async () => {
    await signInAs('viewer');
    await heading('API keys');
    await h.page.getByRole('link', { name: 'shop' }).waitFor();
    assert.equal(await count('Create key'), 0);
    await inspectPage(h.page, 'roles-viewer-keys');

    await h.open(`/console/keys/${keyId}`);
    await heading('shop');
    for (const name of ['Edit', 'Rotate', 'Revoke', 'Unban']) assert.equal(await count(name), 0, name);

    await h.open('/console/webhooks');
    await heading('Webhooks');
    // A viewer sees the URL's path masked: a webhook URL's path or query can be a capability.
    await h.page.getByRole('link', { name: 'http://127.0.0.1:9/***' }).waitFor();
    assert.equal(await count('Add endpoint'), 0);

    await h.open(`/console/webhooks/${webhookId}`);
    await heading('http://127.0.0.1:9/***');
    await h.page.getByRole('heading', { name: 'Deliveries' }).waitFor();
    assert.equal(await count(/^Actions for/), 0, 'no menu of actions');
    assert.equal(await count('Send test event'), 0);
    assert.equal(await count('Replay failed'), 0);
    await inspectPage(h.page, 'roles-viewer-webhook');

    await h.open('/console/domains');
    await heading('Domains');
    await h.page.getByRole('link', { name: 'api.shop.test' }).waitFor();
    assert.equal(await h.page.getByLabel('Domain or subdomain').count(), 0, 'no form to add a domain');
    assert.equal(await count(/^Actions for/), 0);
    await h.open('/console/domains/api.shop.test');
    await heading('api.shop.test');
    assert.equal(await count(/^(Verify|Re-verify)$/), 0);

    await h.open('/console/admin-tokens');
    await heading('Admin tokens');
    await h.page.getByRole('row', { name: /viewer person/ }).waitFor();
    assert.equal(await count('Create token'), 0);
    assert.equal(await count(/^Revoke /), 0);

    // A page the role cannot open, by its URL: what is lacking and who gives it, in words; nothing is asked.
    const asked: string[] = [];
    h.page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    await h.open('/console/people');
    await heading('People');
    const said = await textOf(h.page.locator('main'));
    // The role the console names is the one the admin document gives the page's operation.
    const document = (await (await fetch(`${h.server.url}/admin/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string; 'x-petstore-role'?: string }>>;
    };
    const needed = Object.values(document.paths)
      .flatMap((item) => Object.values(item))
      .find((operation) => operation.operationId === 'listPeople')?.['x-petstore-role'];
    assert.equal(needed, 'owner');
    assert.match(said, /The People page needs the owner role\. You are signed in with the viewer role/);
    assert.match(said, /An owner can make you an admin token of the owner role/);
    assert.doesNotMatch(said, /listPeople/);
    assert.ok(!asked.includes('/admin/v1/people'), asked.join());
    await inspectPage(h.page, 'roles-viewer-people');
    await h.page.getByRole('button', { name: 'Sign out' }).click();
  });

  test('an admin is offered the changes, but not rotating a signing secret, which is the owner’s', async () => {
    await signInAs('admin');
    await heading('API keys');
    await h.page.getByRole('button', { name: 'Create key' }).waitFor();
    await h.open(`/console/webhooks/${webhookId}`);
    await heading('http://127.0.0.1:9/hooks');
    await h.page.getByRole('button', { name: 'Send test event' }).waitFor();
    await h.page.getByRole('button', { name: 'Actions for http://127.0.0.1:9/hooks' }).click();
    const items = await h.page.getByRole('menuitem').allTextContents();
    assert.deepEqual(
      items.map((item) => item.trim()),
      ['Edit', 'Disable', 'Remove'],
    );
    await h.page.keyboard.press('Escape');
    await h.open('/console/admin-tokens');
    await heading('Admin tokens');
    assert.equal(await count('Create token'), 0, 'making tokens is the owner’s');
    await h.page.getByRole('button', { name: 'Sign out' }).click();
  });

  test('an owner makes a support token on Admin tokens, shown once, that works at once; revoking it ends it', async () => {
    await h.open('/console/admin-tokens');
    await signIn(h.page, h.token);
    await heading('Admin tokens');
    const roles = await h.page.getByLabel('Role').locator('option').allTextContents();
    assert.deepEqual(
      roles.map((text) => text.split(':')[0]),
      ['owner', 'admin', 'support', 'viewer'],
    );
    const token = await createTokenOnPage(h.page, 'support desk', 'support');
    h.server.issuedKeys.push(token);
    await h.page
      .getByRole('row', { name: /support desk/ })
      .getByRole('cell', { name: 'support', exact: true })
      .waitFor();
    await inspectPage(h.page, 'roles-owner-admin-tokens');
    assert.equal(
      (await h.server.admin(token, '/keys/key_AAAAAAAAAAAA/unban', { method: 'POST' })).status,
      404,
    );
    assert.equal(
      (await h.server.admin(token, '/keys', { method: 'POST', json: { plan: 'free' } })).status,
      403,
    );

    await h.page.getByRole('button', { name: 'Done' }).click();
    assert.ok(!(await h.page.content()).includes(token), 'the token is gone from the page');
    await h.page.getByRole('button', { name: 'Revoke support desk' }).click();
    await h.page.getByRole('dialog').getByRole('button', { name: 'Revoke token' }).click();
    await h.page
      .getByRole('row', { name: /support desk/ })
      .getByText(/^Revoked /)
      .waitFor();
    assert.equal((await h.server.admin(token, '/keys')).status, 401);
    assert.deepEqual(h.failures, []);
  });

  test('the audit log filters by kind of actor and exports the filtered view', async () => {
    await h.open('/console/audit?actorKind=token');
    await heading('Audit log');
    assert.equal(await h.page.getByLabel('Kind of actor').inputValue(), 'token');
    await h.page
      .getByRole('row', { name: /access\.refused/ })
      .first()
      .waitFor();
    const texts = await h.page.locator('table tbody tr').allTextContents();
    assert.ok(texts.length > 0 && texts.every((text) => !/\bcli\b/.test(text)), texts.join('\n'));
    await inspectPage(h.page, 'roles-audit');
    const [download] = await Promise.all([
      h.page.waitForEvent('download'),
      h.page.getByRole('button', { name: 'CSV' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'audit.csv');
    const text = readFileSync((await download.path()) as string, 'utf8');
    const [header, ...rows] = text.trim().split('\n');
    assert.equal(header, 'id,at,actorKind,actor,actorName,actorSubject,actorEmail,action,target,details');
    assert.ok(rows.length > 0 && rows.every((row) => row.split(',')[2] === 'token'), text);
    assert.deepEqual(h.failures, []);
  });
});
