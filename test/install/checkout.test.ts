import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const CHECKOUT = fileURLToPath(new URL('../../..', import.meta.url));

test('npm ci leaves no install script undecided, and the README gives the reason of each decision', (t) => {
  // npm 11 lists what allowScripts does not decide (and warns of it at `npm ci`); npm 12 skips those scripts.
  const listed = spawnSync('npm', ['install-scripts', 'ls'], { cwd: CHECKOUT, encoding: 'utf8' });
  if (listed.status !== 0 && /Unknown command/i.test(listed.stderr + listed.stdout)) {
    t.skip('this npm has no install-scripts command (npm 11.16 added it), nor any warning to explain');
    return;
  }
  assert.equal(listed.status, 0, listed.stderr);
  const undecided = [...listed.stdout.matchAll(/^\s+(@?[^@\s]+)@\S+ \(/gm)].map((match) => match[1]);
  assert.deepEqual(undecided, [], listed.stdout);

  const { allowScripts } = JSON.parse(readFileSync(path.join(CHECKOUT, 'package.json'), 'utf8')) as {
    allowScripts: Record<string, boolean>;
  };
  const readme = readFileSync(path.join(CHECKOUT, 'README.md'), 'utf8');
  for (const name of Object.keys(allowScripts))
    assert.ok(readme.includes(`\`${name}\``), `the README says why ${name}'s install script is decided so`);
});
