import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HTTP_TIMEOUTS } from '../../src/app/index.js';
import { CLI } from '../support/process.js';
import { tempDir } from '../support/server.js';

const UNIT = fileURLToPath(new URL('../../../deploy/petstore.service', import.meta.url));
const SYSTEMD_ANALYZE = '/usr/bin/systemd-analyze';

/** The unit's `[Service]` settings, each name with its values in order. */
function serviceSettings(text: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let section = '';
  for (const line of text.split('\n')) {
    const header = /^\[(\w+)\]$/.exec(line);
    if (header !== null) section = header[1] ?? '';
    const setting = /^(\w+)=(.*)$/.exec(line);
    if (section === 'Service' && setting !== null) {
      const [, name = '', value = ''] = setting;
      settings.set(name, [...(settings.get(name) ?? []), value]);
    }
  }
  return settings;
}

describe('deploy/petstore.service', () => {
  const text = readFileSync(UNIT, 'utf8');
  const settings = serviceSettings(text);
  const one = (name: string) => {
    const values = settings.get(name);
    assert.equal(values?.length, 1, `${name}= is set once in [Service]`);
    return values[0];
  };

  test('runs node itself on the installed CLI, supervised and confined as docs/production.md says', () => {
    // node itself, not npm or a shell, so that SIGTERM reaches the server and its exit status reaches systemd.
    assert.match(
      one('ExecStart') ?? '',
      /^\/usr\/bin\/node --max-semi-space-size=32 \/usr\/lib\/node_modules\/@petstore-api\/server\/dist\/src\/cli\/main\.js serve$/,
    );
    const wanted: Record<string, string> = {
      Restart: 'on-failure',
      DynamicUser: 'yes',
      StateDirectory: 'petstore',
      ProtectSystem: 'strict',
      NoNewPrivileges: 'yes',
      EnvironmentFile: '-/etc/petstore/env',
      KillSignal: 'SIGTERM',
    };
    for (const [name, value] of Object.entries(wanted)) assert.equal(one(name), value, name);
    // systemd must not SIGKILL a server that is still draining.
    const stop = /^(\d+)s$/.exec(one('TimeoutStopSec') ?? '');
    assert.ok(stop !== null, 'TimeoutStopSec in seconds');
    assert.ok(
      Number(stop[1]) * 1000 > HTTP_TIMEOUTS.drain + 5_000,
      'TimeoutStopSec well above the drain bound',
    );
    // Nothing overrides the data directory that StateDirectory= gives (STATE_DIRECTORY).
    const environment = settings.get('Environment') ?? [];
    assert.ok(!environment.some((value) => value.includes('PETSTORE_DATA_DIR')), 'no PETSTORE_DATA_DIR');
  });

  test('systemd-analyze verify accepts it, without a warning', (t) => {
    if (!existsSync(SYSTEMD_ANALYZE)) {
      t.diagnostic(`${SYSTEMD_ANALYZE} is missing (Debian's systemd package): the unit is not verified here`);
      t.skip('systemd-analyze is not installed');
      return;
    }
    const { dir, remove } = tempDir('petstore-unit-');
    try {
      // The same unit with ExecStart on this machine's node and this checkout's CLI, which verify checks exist.
      const file = path.join(dir, 'petstore.service');
      const execStart = `ExecStart=${process.execPath} --max-semi-space-size=32 ${CLI} serve`;
      writeFileSync(file, text.replace(/^ExecStart=.*$/m, execStart));
      const result = spawnSync(SYSTEMD_ANALYZE, ['verify', file], { encoding: 'utf8', timeout: 30_000 });
      // verify exits 0 on unknown keys and bad values, only warning: any line about the file is a failure.
      assert.equal(result.status, 0, result.stderr);
      const about = result.stderr.split('\n').filter((line) => line.includes('petstore.service'));
      assert.deepEqual(about, []);
    } finally {
      remove();
    }
  });
});
