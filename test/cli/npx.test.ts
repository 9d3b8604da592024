import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tempDir } from '../support/server.js';

const run = promisify(execFile);
const CHECKOUT = fileURLToPath(new URL('../../..', import.meta.url));
const npxMissing = spawnSync('npx', ['--version'], { encoding: 'utf8' }).status !== 0;

/**
 * A bound on behaviour, not a benchmark: npx used to build the whole checkout again (its `prepare`) on its
 * first run in a checkout, minutes before the command's first line; it takes a few seconds now.
 */
const BOUND_MS = 20_000;

describe('npx petstore in the checkout (DESIGN.md, the README)', {
  skip: npxMissing && 'npx is missing',
}, () => {
  const { dir, remove } = tempDir('petstore-npx-');
  // npm's cache empty and offline, as on npx's first run in a fresh checkout: it may fetch nothing, and cannot
  // use what an earlier run left there.
  const env = {
    ...process.env,
    npm_config_cache: path.join(dir, 'npm-cache'),
    npm_config_offline: 'true',
    PETSTORE_DATA_DIR: path.join(dir, 'data'),
    DATABASE_URL: '',
    REDIS_URL: '',
    PETSTORE_CONFIG: '',
  };
  const npx = (args: string[]) =>
    run('npx', ['petstore', ...args], { cwd: CHECKOUT, env, timeout: BOUND_MS, killSignal: 'SIGKILL' });
  after(() => remove());

  test('its first run starts in seconds, and runs the checkout’s own build, linked from npx’s cache', async () => {
    assert.match((await npx(['--version'])).stdout, /^petstore \d+\.\d+\.\d+/);
    // npx keeps a project's own command in its cache as a link to the project: this very checkout.
    const [installed] = readdirSync(path.join(dir, 'npm-cache', '_npx'));
    assert.ok(installed !== undefined);
    const linked = path.join(dir, 'npm-cache', '_npx', installed, 'node_modules', '@petstore-api', 'server');
    assert.equal(realpathSync(linked), realpathSync(CHECKOUT));
  });

  test('migrate, then keys create --json as DESIGN.md writes it, each within the same bound', async () => {
    await npx(['migrate']);
    const { stdout } = await npx(['keys', 'create', '--plan', 'free', '--name', 'npx', '--json']);
    const created = JSON.parse(stdout) as { id: string; key: string; plan: string };
    assert.equal(created.plan, 'free');
    assert.match(created.key, /^ps_live_/);
  });
});
