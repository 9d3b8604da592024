import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Tokens } from 'marked';
import { SETTING_NAMES } from '../../src/config/index.js';
import { ADMIN_API, ROLES } from '../../src/contract/index.js';
import { ERROR_STATUS } from '../../src/errors/index.js';
import { documentation, REPOSITORY, tokensOf } from '../support/markdown.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** The rows of every table of a Markdown text, each a list of its cells' raw text. */
function tableRows(markdown: string): string[][] {
  return tokensOf(markdown).flatMap((token) =>
    token.type === 'table' ? (token as Tokens.Table).rows.map((row) => row.map((cell) => cell.text)) : [],
  );
}

/** The names in backticks of a cell, such as `rate_limit_exceeded`, `api_key_banned`. */
const codeNames = (cell: string | undefined) =>
  [...(cell ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1]);

const guide = (name: string) => readFileSync(path.join(REPOSITORY, 'docs', name), 'utf8');

describe('the guides say what the service does', () => {
  test('every setting the service reads is in a table of the guides, and every variable of their tables is one', () => {
    const documented = documentation()
      .flatMap((file) => tableRows(file.text))
      .flatMap((row) => codeNames(row[0]))
      .filter((name) => /^[A-Z][A-Z0-9_]+$/.test(name ?? ''));
    assert.deepEqual(
      SETTING_NAMES.filter((name) => !documented.includes(name)),
      [],
      'settings no guide documents',
    );
    assert.deepEqual(
      documented.filter((name) => !(SETTING_NAMES as readonly string[]).includes(name ?? '')),
      [],
      'variables the guides document that the service does not read',
    );
  });

  test("the API guide's error table is the service's: every code, with its status", () => {
    const rows = tableRows(guide('api.md')).filter((row) => /^\d{3}$/.test(row[1] ?? ''));
    const documented = Object.fromEntries(
      rows.flatMap((row) => codeNames(row[0]).map((code) => [code, Number(row[1])])),
    );
    assert.deepEqual(documented, { ...ERROR_STATUS });
  });

  test("the roles guide's table is the admin document's: every operation, under the least role it names", () => {
    // The rows that start with a role; operation ids are the camelCase names in backticks.
    const documented = Object.fromEntries(
      tableRows(guide('people-and-roles.md'))
        .filter((row) => (ROLES as readonly (string | undefined)[]).includes(codeNames(row[0])[0]))
        .flatMap((row) =>
          codeNames(row[1])
            .filter((name) => /^[a-z]+[A-Z]\w+$/.test(name ?? ''))
            .map((operation) => [operation, codeNames(row[0])[0]]),
        ),
    );
    assert.deepEqual(
      documented,
      Object.fromEntries(ADMIN_API.operations.map((operation) => [operation.operationId, operation.role])),
    );
  });

  describe('metrics', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(async () => {
      await server?.close();
    });

    test("the observability guide's metrics table names every petstore_ metric /metrics serves, and no other", async () => {
      const served = [
        ...(await (await fetch(`${server.url}/metrics`)).text()).matchAll(/^# HELP (petstore_\w+)/gm),
      ]
        .map((match) => match[1])
        .sort();
      const documented = tableRows(guide('observability.md'))
        .flatMap((row) => codeNames(row[0]))
        .filter((name) => name?.startsWith('petstore_'))
        .map((name) => name?.replace(/\{.*$/, ''))
        .sort();
      assert.ok(served.length >= 10, `only ${served.length} metrics`);
      assert.deepEqual(documented, served);
    });
  });
});
