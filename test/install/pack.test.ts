import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnServer } from '../support/process.js';
import { tempDir } from '../support/server.js';

const run = promisify(execFile);
const CHECKOUT = fileURLToPath(new URL('../../..', import.meta.url));
const npmMissing = spawnSync('npm', ['--version'], { encoding: 'utf8' }).status !== 0;

/** The version of a package installed under `root`/node_modules. */
const versionOf = (root: string, name: string) =>
  (
    JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

describe('npm pack, installed into a prefix, run from an empty directory', {
  skip: npmMissing && 'npm is not installed',
}, () => {
  const { dir, remove } = tempDir('petstore-install-');
  const prefix = path.join(dir, 'prefix');
  const bin = path.join(prefix, 'node_modules', '.bin', 'petstore');
  const empty = path.join(dir, 'empty');
  const xdg = path.join(dir, 'xdg');
  // Nothing of the test's own environment chooses the data directory or the database.
  const env = {
    HOME: path.join(dir, 'home'),
    XDG_DATA_HOME: xdg,
    STATE_DIRECTORY: '',
    PETSTORE_DATA_DIR: '',
    DATABASE_URL: '',
    REDIS_URL: '',
    PETSTORE_CONFIG: '',
  };
  let files: string[] = [];
  /** What npm printed on stderr while installing the tarball. */
  let installWarnings = '';

  before(async () => {
    for (const sub of ['home', 'empty']) mkdirSync(path.join(dir, sub));
    // The tests run from the build, so dist is there: --ignore-scripts skips `prepare` building it again.
    const packed = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
      cwd: CHECKOUT,
      maxBuffer: 16 * 1024 * 1024,
    });
    const [manifest] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    assert.ok(manifest !== undefined);
    files = manifest.files.map((file) => file.path);
    // Dependencies from npm's cache where it has them (`npm ci` filled it with their tarballs), else from the
    // registry: resolving the package's ranges needs each dependency's metadata, which `npm ci` never fetches,
    // so a cache that only `npm ci` filled cannot serve `--offline`. About 15 s. Install scripts are skipped
    // because better-sqlite3's would compile SQLite for a minute; its addon is taken from the checkout instead,
    // built for this very Node by `npm ci`, once the versions are checked to be the same.
    const installed = await run(
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        path.join(dir, manifest.filename),
      ],
      { cwd: empty, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
    );
    installWarnings = installed.stderr;
    for (const name of ['better-sqlite3', 'better-sqlite3-node20']) {
      const built = path.join(CHECKOUT, 'node_modules', name, 'build');
      if (!existsSync(built)) continue;
      assert.equal(
        versionOf(prefix, name),
        versionOf(CHECKOUT, name),
        `${name}: the same version as the checkout`,
      );
      cpSync(built, path.join(prefix, 'node_modules', name, 'build'), { recursive: true });
    }
  });
  after(() => remove());

  test('the tarball holds the build, the changelog, the contract, the guides and deploy/, not the tests', () => {
    for (const file of [
      'dist/src/cli/main.js',
      'dist/src/app/index.js',
      // The client package's build, which `@petstore-api/server/client` still exports.
      'packages/client/dist/index.js',
      'packages/client/dist/index.d.ts',
      'CHANGELOG.md',
      'package.json',
      'deploy/petstore.service',
      'deploy/Caddyfile',
      'docs/production.md',
    ])
      assert.ok(files.includes(file), file);
    assert.ok(
      files.some((file) => file.startsWith('contract/')),
      'the contract',
    );
    if (existsSync(path.join(CHECKOUT, 'dist', 'console'))) {
      assert.ok(
        files.some((file) => file.startsWith('dist/console/')),
        'the console',
      );
    }
    assert.deepEqual(
      files.filter(
        (file) =>
          file.startsWith('dist/test/') ||
          file.startsWith('src/') ||
          (file.startsWith('packages/') && !file.startsWith('packages/client/dist/')),
      ),
      [],
    );
  });

  test('@petstore-api/server/client, the name 1.3 documented, still gives the client', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const { createClient, verifyWebhook } = await import('@petstore-api/server/client'); " +
          "console.log(typeof createClient, typeof verifyWebhook, typeof createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' }).listPets);",
      ],
      { cwd: prefix },
    );
    assert.equal(stdout.trim(), 'function function function');
  });

  test('every warning of the install, and every install script npm asks approval for, is one the docs explain', async () => {
    // The install section of docs/production.md, up to the next heading.
    const guide = readFileSync(path.join(CHECKOUT, 'docs', 'production.md'), 'utf8');
    const section = /## Installing outside the checkout\n([\s\S]*?)\n## /.exec(guide)?.[1] ?? '';
    const explained = (name: string) => section.includes(`\`${name}@`) || section.includes(`\`${name}\``);
    const warnings = installWarnings.split('\n').filter((line) => line.startsWith('npm warn'));
    const kinds = new Set(warnings.map((line) => line.split(' ')[2]));
    for (const kind of kinds)
      assert.ok(kind === 'EBADENGINE', `a warning the docs do not explain: ${kind}\n${installWarnings}`);
    // EBADENGINE blocks name their package as `package: 'name@version'`.
    for (const [, name] of installWarnings.matchAll(/package: '(@?[^@']+)@[^']+'/g)) {
      assert.ok(
        explained(name as string),
        `EBADENGINE for ${name}, which docs/production.md does not explain`,
      );
    }
    // The scripts npm 11 runs without an approval; the install above skipped them (--ignore-scripts), npm
    // lists them. (npm 10 has no such command, and nothing to explain.)
    const listed = await run('npm', ['install-scripts', 'ls'], { cwd: prefix }).catch(() => undefined);
    for (const [, name] of (listed?.stdout ?? '').matchAll(/^\s+(@?[^@\s]+)@\S+ \(/gm)) {
      assert.ok(
        explained(name as string),
        `an install script of ${name}, which docs/production.md does not explain`,
      );
    }
    assert.ok(explained('@petstore-api/server'), "the package's own prepare is explained");
  });

  test('makes a key, serves it, and keeps it across a restart, with its data under XDG_DATA_HOME', async () => {
    const cli = (args: string[]) => run(bin, args, { cwd: empty, env: { ...process.env, ...env } });
    assert.match((await cli(['--version'])).stdout, /^petstore \d+\.\d+\.\d+/);
    const config = JSON.parse((await cli(['config', '--json'])).stdout) as {
      settings: { name: string; value: string; origin?: string }[];
    };
    const dataDir = config.settings.find((setting) => setting.name === 'PETSTORE_DATA_DIR');
    assert.deepEqual(
      [dataDir?.value, dataDir?.origin],
      [path.join(xdg, 'petstore'), 'XDG_DATA_HOME/petstore'],
    );
    await cli(['migrate']);
    const created = JSON.parse((await cli(['keys', 'create', '--plan', 'free', '--json'])).stdout) as {
      key: string;
    };
    for (const round of ['first start', 'after a restart']) {
      const server = await spawnServer({ ...env, PORT: '0' }, { cwd: empty, command: [bin, 'serve'] });
      try {
        const answer = await fetch(`${server.url}/v1/categories`, {
          headers: { authorization: `Bearer ${created.key}` },
        });
        assert.equal(answer.status, 200, `${round}: ${server.output.join('\n')}`);
        // The guides come with the package: the reference links them.
        const guide = await fetch(`${server.url}/docs/guides/production`);
        assert.equal(guide.status, 200);
        assert.match(await guide.text(), /<h1 id="production">Production<\/h1>/);
      } finally {
        server.child.kill('SIGTERM');
        assert.deepEqual(await server.exited, { code: 0, signal: null }, round);
      }
    }
    assert.ok(
      readdirSync(path.join(xdg, 'petstore')).includes('petstore.db'),
      'the database under XDG_DATA_HOME',
    );
    const inPrefix = spawnSync('find', [prefix, '-name', 'petstore.db*'], { encoding: 'utf8' }).stdout;
    assert.equal(inPrefix, '', 'nothing of the data in the prefix');
  });
});
