import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const ROOT = new URL('../../../', import.meta.url);
const read = (name: string) => JSON.parse(readFileSync(new URL(name, ROOT), 'utf8'));

/** The oldest Node the package supports, by its own `engines` (`^20.15.0 || >=22.14.0`). */
const OLDEST_MAJOR = 20;

/**
 * Installed for the Nodes that can run it, beside an alias for the others: better-sqlite3 13 needs Node 22
 * (Node-API 10), and Node 20 loads better-sqlite3 12 (docs/production.md, "Installing outside the checkout").
 */
const FOR_NEWER_NODES = new Set(['node_modules/better-sqlite3']);

test('no dependency installed for every Node asks for a newer Node than the package supports', () => {
  const { engines } = read('package.json') as { engines: { node: string } };
  assert.equal(engines.node, '^20.15.0 || >=22.14.0', 'the range this check assumes');
  const lock = read('package-lock.json') as {
    packages: Record<string, { dev?: boolean; engines?: { node?: string } }>;
  };
  const tooNew = Object.entries(lock.packages).flatMap(([name, entry]) => {
    if (entry.dev || FOR_NEWER_NODES.has(name)) return [];
    // A lower bound alone (">=22"): the form a dependency that drops a Node takes.
    const floor = /^>=\s*(\d+)(\.\d+)*$/.exec(entry.engines?.node?.trim() ?? '')?.[1];
    return floor !== undefined && Number(floor) > OLDEST_MAJOR ? [`${name} (${entry.engines?.node})`] : [];
  });
  // npm ci on Node 20 would warn EBADENGINE for each (cookie 2, under light-my-request, did).
  assert.deepEqual(tooNew, []);
});
