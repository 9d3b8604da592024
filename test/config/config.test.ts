import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  ConfigError,
  describeSettings,
  loadConfig,
  OPERATOR_SETTINGS,
  resolveDataDir,
  type Setting,
  TESTING_AIDS,
} from '../../src/config/index.js';
import { runCli } from '../support/process.js';
import { tempDir } from '../support/server.js';

/** The least OpenID Connect settings that stand. */
const OIDC = {
  OIDC_ISSUER: 'https://sso.example.com/realms/company',
  OIDC_CLIENT_ID: 'petstore-console',
  OIDC_ROLES: 'staff=viewer',
} as const;

describe('configuration', () => {
  test('defaults', () => {
    assert.deepEqual(loadConfig({}), {
      port: 8080,
      host: '127.0.0.1',
      env: 'production',
      // Beside the package, not in the working directory: dist/test/unit/ is three levels below it.
      storage: {
        kind: 'sqlite',
        file: fileURLToPath(new URL('../../../data/petstore.db', import.meta.url)),
        isDefault: true,
        dataDir: fileURLToPath(new URL('../../../data', import.meta.url)),
      },
      dataDir: fileURLToPath(new URL('../../../data', import.meta.url)),
      dataDirOrigin: 'checkout',
      publicUrls: { production: undefined, staging: undefined },
      logLevel: 'info',
      accessLog: true,
      requestLog: { days: 7, maxBytes: 1024 * 1024 * 1024 },
      corsOrigins: [],
      tracing: undefined,
      // Written out, as the spec's plan table gives them: read back from src/config/defaults.ts, they could not fail.
      rateLimit: {
        plans: {
          free: { perMinute: 60, perDay: 1_000 },
          pro: { perMinute: 300, perDay: 10_000 },
          business: { perMinute: 1_000, perDay: 100_000 },
        },
        anonymous: { perMinute: 60, perDay: 1_000 },
        admin: { perMinute: 600, perDay: 50_000 },
        requestLogReads: { perMinute: 30, perDay: 2_000 },
        ban: { after: 60, durationMs: 900_000 },
      },
      deprecation: {
        deprecatedAt: new Date('2026-11-01T00:00:00Z'),
        sunsetAt: new Date('2027-06-30T00:00:00Z'),
        link: '/docs#deprecations',
      },
      rateLimitStore: { kind: 'memory' },
      clockOffsetMs: 0,
      trustProxy: false,
      configFile: undefined,
      domainChecks: {
        target: undefined,
        ca: 'letsencrypt.org',
        resolver: undefined,
        tlsAddress: '127.0.0.1:443',
        requireTxt: false,
      },
      domains: undefined,
      webhooks: {
        policy: { allowPrivate: false, resolver: undefined },
        disableAfterMs: 5 * 86_400_000,
        retentionMs: 30 * 86_400_000,
      },
      oidc: undefined,
      consoleTokenSignIn: true,
    });
  });

  test('OpenID Connect: the role mapping is read, the provider named by its host unless told, the secret never shown', () => {
    const config = loadConfig({
      ...OIDC,
      OIDC_CLIENT_SECRET: 'shh',
      OIDC_ROLES: 'Pet Store Owners=owner, support = support',
    });
    assert.deepEqual(config.oidc, {
      issuer: 'https://sso.example.com/realms/company',
      clientId: 'petstore-console',
      clientSecret: 'shh',
      groupsClaim: 'groups',
      roles: new Map([
        ['Pet Store Owners', 'owner'],
        ['support', 'support'],
      ]),
      providerName: 'sso.example.com',
    });
    assert.equal(config.consoleTokenSignIn, true);
    const shown = describeSettings({ ...OIDC, OIDC_CLIENT_SECRET: 'shh' }).find(
      (setting) => setting.name === 'OIDC_CLIENT_SECRET',
    );
    assert.equal(shown?.value, '(set, not shown)');
  });

  test('values are parsed and DATABASE_URL picks the storage', () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '0.0.0.0',
      PETSTORE_ENV: 'staging',
      DATABASE_URL: 'sqlite:/tmp/x.db',
      PETSTORE_PRODUCTION_URL: 'https://api.example.com/v1',
    });
    assert.equal(config.port, 0);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.env, 'staging');
    const dataDir = config.dataDir;
    assert.deepEqual(config.storage, { kind: 'sqlite', file: '/tmp/x.db', isDefault: false, dataDir });
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite:///var/db/p.db' }).storage, {
      kind: 'sqlite',
      file: '/var/db/p.db',
      isDefault: false,
      dataDir,
    });
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite:rel/p.db' }).storage, {
      kind: 'sqlite',
      file: 'rel/p.db',
      isDefault: false,
      dataDir,
    });
    assert.deepEqual(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).storage, {
      kind: 'postgres',
      url: 'postgres://u@h/db',
      poolSize: 10,
    });
    // The driver's own reading of sslmode=require (verify-full), written so: no warning of its at start.
    const url = (env: string) => (loadConfig({ DATABASE_URL: env }).storage as { url: string }).url;
    assert.equal(url('postgres://u@h/db?sslmode=require'), 'postgres://u@h/db?sslmode=verify-full');
    assert.equal(url('postgres://u@h/db?sslmode=prefer&x=1'), 'postgres://u@h/db?sslmode=verify-full&x=1');
    assert.equal(url('postgres://u@h/db?sslmode=disable'), 'postgres://u@h/db?sslmode=disable');
    assert.equal(
      url('postgres://u@h/db?uselibpqcompat=true&sslmode=require'),
      'postgres://u@h/db?uselibpqcompat=true&sslmode=require',
    );
    assert.deepEqual(
      loadConfig({ REDIS_URL: 'redis://127.0.0.1:6380', RATE_LIMIT_FAIL: 'closed' }).rateLimitStore,
      {
        kind: 'redis',
        url: 'redis://127.0.0.1:6380',
        keyPrefix: 'petstore:rl:',
        fail: 'closed',
      },
    );
    // The OpenTelemetry variables' own rules: the general endpoint gets the signal's path, the traces one is used as given.
    assert.deepEqual(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing, {
      url: 'http://collector:4318/v1/traces',
      serviceName: 'petstore',
    });
    assert.deepEqual(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/in',
        OTEL_SERVICE_NAME: 'petstore-eu',
      }).tracing,
      { url: 'https://traces.example.com/in', serviceName: 'petstore-eu' },
    );
  });

  test('the webhooks keep their deliveries and disable failing endpoints after the days set', () => {
    const { webhooks } = loadConfig({ WEBHOOKS_DISABLE_AFTER_DAYS: '2', WEBHOOKS_RETENTION_DAYS: '90' });
    assert.deepEqual([webhooks.disableAfterMs, webhooks.retentionMs], [2 * 86_400_000, 90 * 86_400_000]);
  });

  const bad: [Record<string, string>, RegExp][] = [
    [{ PORT: 'eighty' }, /PORT must be a TCP port/],
    [{ PORT: '70000' }, /PORT must be a TCP port/],
    [{ PORT: '80.5' }, /PORT/],
    [{ PETSTORE_ENV: 'prod' }, /PETSTORE_ENV must be production or staging/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must be sqlite:/],
    [
      { PETSTORE_PRODUCTION_URL: 'https://api.example.com/v2' },
      /PETSTORE_PRODUCTION_URL must be an http\(s\) URL ending in \/v1/,
    ],
    [{ PETSTORE_STAGING_URL: 'ftp://x/v1' }, /PETSTORE_STAGING_URL/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      /OTEL_EXPORTER_OTLP_ENDPOINT must be the http\(s\) base URL/,
    ],
    [{ REDIS_URL: 'http://x' }, /REDIS_URL must be redis:\/\/host:port/],
    [{ RATE_LIMIT_FAIL: 'maybe' }, /RATE_LIMIT_FAIL must be open or closed/],
    [{ DATABASE_POOL_SIZE: '0' }, /DATABASE_POOL_SIZE/],
    [
      { WEBHOOKS_DISABLE_AFTER_DAYS: '0' },
      /WEBHOOKS_DISABLE_AFTER_DAYS must be the days a webhook endpoint fails/,
    ],
    [{ WEBHOOKS_RETENTION_DAYS: '6' }, /WEBHOOKS_RETENTION_DAYS must be the days a delivered or failed/],
    [{ WEBHOOKS_ALLOW_PRIVATE: 'yes' }, /WEBHOOKS_ALLOW_PRIVATE must be true or false: true lets/],
    [{ CONSOLE_TOKEN_SIGNIN: 'off' }, /CONSOLE_TOKEN_SIGNIN=off needs OIDC_ISSUER: nobody could sign in/],
    [{ OIDC_CLIENT_ID: 'console' }, /OIDC_CLIENT_ID is set, but OIDC_ISSUER is not/],
    [
      { ...OIDC, OIDC_ISSUER: 'http://sso.example.com' },
      /OIDC_ISSUER must be https \(plain http only for a provider on this machine\)/,
    ],
    [{ ...OIDC, OIDC_ROLES: '' }, /OIDC_ROLES must be set with OIDC_ISSUER/],
    [{ ...OIDC, OIDC_ROLES: 'staff=superuser' }, /OIDC_ROLES must be group=role pairs/],
    [{ ...OIDC, OIDC_ROLES: 'staff=admin,staff=viewer' }, /OIDC_ROLES gives "staff" a role twice/],
    [{ ...OIDC, OIDC_CLIENT_ID: '' }, /OIDC_CLIENT_ID must be set with OIDC_ISSUER/],
  ];
  for (const [env, message] of bad) {
    test(`refuses ${JSON.stringify(env)} naming the variable`, () => {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, message);
          return true;
        },
      );
    });
  }

  describe('the config file', () => {
    const { dir, remove } = tempDir('petstore-config-');
    after(remove);
    const withFile = (name: string, bytes: string | Buffer) => {
      const file = path.join(dir, name);
      writeFileSync(file, bytes);
      return () => loadConfig({ PETSTORE_CONFIG: file });
    };

    test('bytes that are not UTF-8 are refused, not read as U+FFFD', () => {
      const load = withFile(
        'latin1.json',
        Buffer.concat([
          Buffer.from('{"deprecation":{"link":"https://x.test/'),
          Buffer.from([0xe9]),
          Buffer.from('"}}'),
        ]),
      );
      assert.throws(
        load,
        /PETSTORE_CONFIG .*latin1\.json cannot be read as JSON: the file is not UTF-8 text/,
      );
    });

    test('each problem once, naming the file and the field, and an unknown field lists the known ones', () => {
      const load = withFile(
        'typos.json',
        JSON.stringify({
          plans: { prro: { perMinute: 1, perDay: 2 } },
          anonymous: { perMinute: 0 },
          ban: { after: 'x' },
          bogus: 1,
        }),
      );
      const file = path.join(dir, 'typos.json');
      assert.throws(load, (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(error.message.replace('Invalid configuration: ', '').split('; ').sort(), [
          `PETSTORE_CONFIG ${file}: anonymous.perDay is required`,
          `PETSTORE_CONFIG ${file}: anonymous.perMinute must be at least 1 (got 0)`,
          `PETSTORE_CONFIG ${file}: ban.after must be a whole number (got "x")`,
          `PETSTORE_CONFIG ${file}: bogus is not a setting: the file takes plans, anonymous, admin, requestLogReads, deprecation, ban, domains`,
          `PETSTORE_CONFIG ${file}: plans.prro is not a setting: plans takes free, pro, business (enterprise limits are set per key)`,
        ]);
        return true;
      });
    });

    test('a day limit below the minute limit is refused, naming the field', () => {
      const load = withFile(
        'limits.json',
        JSON.stringify({
          plans: { pro: { perMinute: 100, perDay: 10 } },
          anonymous: { perMinute: 5, perDay: 4 },
        }),
      );
      assert.throws(load, (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(
          error.message,
          /plans\.pro\.perDay \(10\) must be at least plans\.pro\.perMinute \(100\)/,
        );
        assert.match(error.message, /anonymous\.perDay \(4\) must be at least anonymous\.perMinute \(5\)/);
        return true;
      });
      const equal = withFile('equal.json', JSON.stringify({ plans: { pro: { perMinute: 10, perDay: 10 } } }));
      assert.deepEqual(equal().rateLimit.plans.pro, { perMinute: 10, perDay: 10 });
    });
  });

  test('sslmode=require starts without the driver’s warning of a dozen lines', async () => {
    const answer = await runCli(['migrate', '--check'], {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=require',
    });
    assert.equal(answer.code, 1, answer.stderr);
    assert.doesNotMatch(answer.stderr, /SECURITY WARNING|Warning:/);
  });

  test('a bad value stops `petstore serve` with exit 1 and a message naming the variable', async () => {
    const result = await runCli(['serve'], { PORT: 'abc' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /PORT must be a TCP port, 0 to 65535 \(got "abc"\)/);
  });

  test('petstore config prints every setting, its value and its source, with passwords hidden', async () => {
    const { dir, remove } = tempDir('petstore-config-command-');
    try {
      const file = path.join(dir, 'petstore.json');
      writeFileSync(file, JSON.stringify({ plans: { free: { perMinute: 5, perDay: 50 } } }));
      const env = {
        DATABASE_URL: 'postgres://app:s3cret@db.example:5432/petstore',
        REDIS_URL: 'redis://:hunter2@cache.example:6379',
        PORT: '9090',
        PETSTORE_CONFIG: file,
      };
      const json = await runCli(['config', '--json'], env);
      assert.equal(json.code, 0, json.stderr);
      const settings = (JSON.parse(json.stdout) as { settings: Setting[] }).settings;
      const named = Object.fromEntries(settings.map((setting) => [setting.name, setting]));
      assert.deepEqual(
        settings.slice(0, OPERATOR_SETTINGS.length).map((setting) => setting.name),
        [...OPERATOR_SETTINGS],
        'every variable of an operator, in order; no testing aid',
      );
      const aided = await runCli(['config', '--json'], { ...env, PETSTORE_CLOCK_OFFSET_MS: '1500' });
      const aid = (JSON.parse(aided.stdout) as { settings: Setting[] }).settings.find(
        (setting) => setting.name === 'PETSTORE_CLOCK_OFFSET_MS',
      );
      assert.deepEqual([aid?.value, aid?.source], ['1500', 'env'], 'a testing aid that is set is shown');
      assert.deepEqual(
        ['DATABASE_URL', 'REDIS_URL', 'PORT', 'HOST', 'CORS_ORIGINS', 'plans.free', 'plans.pro'].map(
          (name) => [name, named[name]?.value, named[name]?.source],
        ),
        [
          ['DATABASE_URL', 'postgres://app:***@db.example:5432/petstore', 'env'],
          ['REDIS_URL', 'redis://:***@cache.example:6379', 'env'],
          ['PORT', '9090', 'env'],
          ['HOST', '127.0.0.1', 'default'],
          ['CORS_ORIGINS', null, 'unset'],
          ['plans.free', '5 a minute, 50 a day', 'file'],
          ['plans.pro', '300 a minute, 10000 a day', 'default'],
        ],
      );
      const table = await runCli(['config'], env);
      assert.equal(table.code, 0);
      assert.match(table.stdout, /^DATABASE_URL +postgres:\/\/app:\*\*\*@db\.example:5432\/petstore +env$/m);
      if (process.env.PETSTORE_DATA_DIR === undefined) {
        assert.match(table.stdout, /^PETSTORE_DATA_DIR +\S+\/data +default \(data\/ of the checkout\)$/m);
        assert.equal(named.PETSTORE_DATA_DIR?.origin, 'data/ of the checkout');
      }
      assert.doesNotMatch(`${json.stdout}${table.stdout}`, /s3cret|hunter2/);
      const refused = await runCli(['config'], { PORT: 'abc' });
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /PORT must be a TCP port/);
    } finally {
      remove();
    }
  });

  test('the data directory: data/ in a checkout, outside the package once installed', () => {
    const checkout = '/srv/petstore';
    const installed = '/usr/lib/node_modules/@petstore-api/server';
    const all = { STATE_DIRECTORY: '/var/lib/petstore', XDG_DATA_HOME: '/home/a/.data', HOME: '/home/a' };
    assert.deepEqual(resolveDataDir(all, checkout), { dir: '/srv/petstore/data', origin: 'checkout' });
    assert.deepEqual(resolveDataDir({ ...all, PETSTORE_DATA_DIR: '/d' }, installed), {
      dir: '/d',
      origin: 'PETSTORE_DATA_DIR',
    });
    assert.deepEqual(resolveDataDir(all, installed), { dir: '/var/lib/petstore', origin: 'STATE_DIRECTORY' });
    // A unit with several state directories: systemd lists them in the unit's order.
    assert.equal(
      resolveDataDir({ STATE_DIRECTORY: '/var/lib/petstore:/var/lib/other' }, installed).dir,
      '/var/lib/petstore',
    );
    assert.deepEqual(resolveDataDir({ ...all, STATE_DIRECTORY: '' }, installed), {
      dir: '/home/a/.data/petstore',
      origin: 'XDG_DATA_HOME',
    });
    // A relative XDG_DATA_HOME is invalid by the XDG rules, and ignored.
    assert.deepEqual(resolveDataDir({ XDG_DATA_HOME: 'rel', HOME: '/home/a' }, installed), {
      dir: '/home/a/.local/share/petstore',
      origin: 'HOME',
    });
    // A project's own node_modules counts as installed too: its data never goes where npm ci deletes it.
    const dependency = '/srv/app/node_modules/@petstore-api/server';
    assert.equal(resolveDataDir({ HOME: '/home/a' }, dependency).dir, '/home/a/.local/share/petstore');
  });

  test('each command says in --help what it reads; serve and config name every variable', async () => {
    for (const command of ['serve', 'config']) {
      const help = (await runCli([command, '--help'], {})).stdout;
      for (const name of OPERATOR_SETTINGS)
        assert.match(help, new RegExp(`^  ${name} `, 'm'), `${command}: ${name}`);
      for (const name of TESTING_AIDS) assert.doesNotMatch(help, new RegExp(name), `${command}: ${name}`);
    }
    for (const [command, names] of [
      ['migrate', ['DATABASE_URL', 'PETSTORE_DATA_DIR']],
      ['keys', ['DATABASE_URL', 'PETSTORE_ENV']],
      ['admin-tokens', ['DATABASE_URL']],
      ['audit', ['DATABASE_URL']],
      [
        'domains',
        ['DATABASE_URL', 'DOMAINS_TARGET', 'DOMAINS_REQUIRE_TXT', 'DNS_RESOLVER', 'TLS_CHECK_ADDRESS'],
      ],
    ] as const) {
      const help = (await runCli([command, '--help'], {})).stdout;
      assert.match(help, /\nReads:\n/, command);
      for (const name of names) assert.match(help, new RegExp(`^  ${name} `, 'm'), `${command}: ${name}`);
    }
  });

  test('unknown commands exit 2 with one line pointing at the usage', async () => {
    const result = await runCli(['frobnicate'], {});
    assert.equal(result.code, 2);
    assert.equal(result.stderr, "petstore: unknown command: frobnicate (see 'petstore --help')\n");
  });
});
