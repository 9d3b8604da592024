import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Value } from '@sinclair/typebox/value';
import type { Role } from '../contract/index.js';
import type { DomainCheckOptions, DomainsFile } from '../domains/index.js';
import type { Environment } from '../keys/index.js';
import type { OidcOptions } from '../people/index.js';
import type { RateLimitPolicy, RateLimitStoreOptions } from '../ratelimit/index.js';
import type { StorageConfig } from '../storage/index.js';
import type { TracingOptions } from '../tracing/index.js';
import type { DeprecationPolicy } from '../versioning/index.js';
import type { WebhookOptions } from '../webhooks/index.js';
import { type Env, EnvSchema } from './env.js';
import { type ConfigFile, deprecationOf, rateLimitPolicy, readConfigFile } from './file.js';
import { packageRoot } from './package.js';
import { defaultOf, descriptionOf, SETTING_NAMES, type Setting, TESTING_AIDS } from './settings.js';

export { DEFAULT_RATE_LIMIT_POLICY } from './defaults.js';
export { readConfigFile } from './file.js';
export { packageBytes, packageFile, packageVersion } from './package.js';
export {
  OPERATOR_SETTINGS,
  SETTING_NAMES,
  type Setting,
  STORAGE_SETTINGS,
  settingsHelp,
  TESTING_AIDS,
} from './settings.js';

/** The public base URLs of the API, each ending in `/v1`, when configured. */
export interface PublicUrls {
  production: string | undefined;
  staging: string | undefined;
}

export interface Config {
  port: number;
  host: string;
  env: Environment;
  storage: StorageConfig;
  /**
   * Where the service keeps its files (`PETSTORE_DATA_DIR`): the default SQLite file, and the first key when
   * no terminal shows it. By default `data/` beside the package in a checkout, and outside the package when
   * it is installed (`resolveDataDir`), wherever a command is run from.
   */
  dataDir: string;
  /** The rule that chose `dataDir`. */
  dataDirOrigin: DataDirOrigin;
  /**
   * Where users reach the API, if the operator said (each ends in `/v1`). Unset, the document's server and
   * the deprecation notice are relative to the request's own origin, so no answer names a host it is not at.
   */
  publicUrls: PublicUrls;
  logLevel: string;
  /** One JSON line per request through the logger (`ACCESS_LOG`, on by default). */
  accessLog: boolean;
  /**
   * A row per answered request of `/v1` and `/admin/v1`, to search (`REQUEST_LOG`, on by default): undefined
   * when off. Kept `days` whole days before today and, on SQLite, at most `maxBytes`.
   */
  requestLog: { days: number; maxBytes: number } | undefined;
  /** The origins browsers may call the API from: `*`, a list, or none (no CORS headers at all). */
  corsOrigins: '*' | readonly string[];
  /** Where spans are exported over OTLP/HTTP; undefined (no OTLP endpoint set) turns tracing off. */
  tracing: TracingOptions | undefined;
  rateLimit: RateLimitPolicy;
  /** Where counters and bans live (this process, or Redis), and what to do when Redis is unreachable. */
  rateLimitStore: RateLimitStoreOptions;
  /** Added to this instance's clock; only for testing that windows do not depend on instance clocks. */
  clockOffsetMs: number;
  /** The dates of the deprecated `GET /pets/{petId}`, and its notice. */
  deprecation: DeprecationPolicy;
  /**
   * Whether `X-Forwarded-For` is believed for the client address (Fastify's `trustProxy`): only behind a
   * proxy that sets it, or anyone could pick the address their anonymous requests are counted under.
   */
  trustProxy: boolean | number | string[];
  /** The `PETSTORE_CONFIG` file, re-read for its domains when it changes and on SIGHUP. */
  configFile: string | undefined;
  /** How custom domains are checked: the DNS target, the CA, the resolver, the TLS front. */
  domainChecks: DomainCheckOptions;
  /** Where webhooks may be sent, and (a testing aid) their retry schedule. */
  webhooks: WebhookOptions;
  /** Sign-in to the console with an OpenID Connect provider (`OIDC_*`); undefined when `OIDC_ISSUER` is unset. */
  oidc: OidcOptions | undefined;
  /** Whether the console takes an admin token to sign in (`CONSOLE_TOKEN_SIGNIN`). */
  consoleTokenSignIn: boolean;
  /**
   * The custom domains of the published reference, as the config file's `domains` block says (its values
   * are checked by the domains capability); undefined when the file sets none.
   */
  domains: DomainsFile | undefined;
}

/**
 * The OpenID Connect settings, when `OIDC_ISSUER` is set: the client id and the role mapping are needed with
 * it, and plain HTTP only for a provider on this machine. Adds what is wrong to `problems`.
 */
function oidcOptions(env: Env, problems: string[]): OidcOptions | undefined {
  if (env.OIDC_ISSUER === undefined) {
    if (env.CONSOLE_TOKEN_SIGNIN === 'off')
      problems.push('CONSOLE_TOKEN_SIGNIN=off needs OIDC_ISSUER: nobody could sign in to the console');
    for (const name of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_ROLES'] as const)
      if (env[name] !== undefined) problems.push(`${name} is set, but OIDC_ISSUER is not`);
    return undefined;
  }
  let issuer: URL | undefined;
  try {
    issuer = new URL(env.OIDC_ISSUER);
  } catch {
    problems.push(`OIDC_ISSUER must be a URL (got ${JSON.stringify(env.OIDC_ISSUER)})`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'];
  if (issuer !== undefined && issuer.protocol === 'http:' && !loopback.includes(issuer.hostname))
    problems.push('OIDC_ISSUER must be https (plain http only for a provider on this machine)');
  if (env.OIDC_CLIENT_ID === undefined) problems.push('OIDC_CLIENT_ID must be set with OIDC_ISSUER');
  if (env.OIDC_ROLES === undefined) {
    problems.push(
      'OIDC_ROLES must be set with OIDC_ISSUER: without it, no group gives a role and nobody gets in',
    );
    return undefined;
  }
  const roles = new Map<string, Role>();
  for (const pair of env.OIDC_ROLES.split(',')) {
    // The schema's pattern holds: each pair is group=role, the role one of the four.
    const at = pair.lastIndexOf('=');
    const group = pair.slice(0, at).trim();
    if (roles.has(group)) problems.push(`OIDC_ROLES gives ${JSON.stringify(group)} a role twice`);
    roles.set(group, pair.slice(at + 1).trim() as Role);
  }
  if (issuer === undefined || env.OIDC_CLIENT_ID === undefined || problems.length > 0) return undefined;
  return {
    issuer: env.OIDC_ISSUER,
    clientId: env.OIDC_CLIENT_ID,
    clientSecret: env.OIDC_CLIENT_SECRET,
    groupsClaim: env.OIDC_GROUPS_CLAIM,
    roles,
    providerName: env.OIDC_PROVIDER_NAME ?? issuer.host,
    ...(env.OIDC_RECHECK_MS === undefined ? {} : { recheckMs: Number(env.OIDC_RECHECK_MS) }),
  };
}

/** A configuration value that cannot be used; its message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Which rule chose the data directory, as `petstore config` names it. */
export type DataDirOrigin = 'PETSTORE_DATA_DIR' | 'checkout' | 'STATE_DIRECTORY' | 'XDG_DATA_HOME' | 'HOME';

/** The data directory and the rule that chose it. */
export interface DataDir {
  dir: string;
  origin: DataDirOrigin;
}

/**
 * The data directory: `PETSTORE_DATA_DIR`; else, in a checkout, `data/` in the package's own directory; else
 * (the package is installed: its directory is inside a `node_modules`) systemd's `STATE_DIRECTORY`, then
 * `$XDG_DATA_HOME/petstore`, then `~/.local/share/petstore`. Found from the package's place and the
 * environment, never the working directory, so that the server and every CLI command agree wherever they are
 * run; never inside an installed package, which an upgrade or `npm uninstall` replaces with the data in it.
 */
export function resolveDataDir(source: NodeJS.ProcessEnv, packageDir: string): DataDir {
  const given = (name: string) => {
    const value = source[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const explicit = given('PETSTORE_DATA_DIR');
  if (explicit !== undefined) return { dir: path.resolve(explicit), origin: 'PETSTORE_DATA_DIR' };
  if (!path.resolve(packageDir).split(path.sep).includes('node_modules')) {
    return { dir: path.join(packageDir, 'data'), origin: 'checkout' };
  }
  // systemd's StateDirectory= sets it (a colon-separated list when the unit names several: ours is first).
  const state = given('STATE_DIRECTORY')?.split(':')[0];
  if (state !== undefined && path.isAbsolute(state)) return { dir: state, origin: 'STATE_DIRECTORY' };
  // The XDG Base Directory rules: a relative XDG_DATA_HOME is invalid and ignored.
  const xdg = given('XDG_DATA_HOME');
  if (xdg !== undefined && path.isAbsolute(xdg)) {
    return { dir: path.join(xdg, 'petstore'), origin: 'XDG_DATA_HOME' };
  }
  const home = given('HOME') ?? os.homedir();
  return { dir: path.join(home, '.local', 'share', 'petstore'), origin: 'HOME' };
}

/**
 * Parses the environment once, failing fast with a message that names every bad variable.
 * @throws ConfigError
 */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const known = Object.fromEntries(
    Object.keys(EnvSchema.properties)
      .map((name) => [name, source[name]] as const)
      // An empty variable counts as unset, as shells and .env files commonly leave them.
      .filter(([, value]) => value !== undefined && value !== ''),
  );
  const withDefaults = Value.Default(EnvSchema, known);
  const problems = [...Value.Errors(EnvSchema, withDefaults)].map((error) => {
    const name = error.path.replace(/^\//, '');
    const expected = EnvSchema.properties[name as keyof Env]?.description ?? error.message;
    return `${name} must be ${expected} (got ${JSON.stringify(known[name])})`;
  });
  const configFile = known.PETSTORE_CONFIG;
  let file: ConfigFile = {};
  if (configFile !== undefined) {
    const read = readConfigFile(configFile);
    problems.push(...read.problems);
    file = read.value;
  }
  const parsed = withDefaults as Env;
  const publicUrls: PublicUrls = {
    production: parsed.PETSTORE_PRODUCTION_URL,
    staging: parsed.PETSTORE_STAGING_URL,
  };
  const ownUrl = parsed.PETSTORE_ENV === 'staging' ? publicUrls.staging : publicUrls.production;
  const deprecation = deprecationOf(file, problems.length === 0 ? ownUrl : undefined);
  problems.push(...deprecation.problems);
  const oidc = oidcOptions(parsed, problems);
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration: ${[...new Set(problems)].join('; ')}`);
  }
  const env = withDefaults as Env;
  const { dir: dataDir, origin: dataDirOrigin } = resolveDataDir(source, packageRoot());
  return {
    port: Number(env.PORT),
    host: env.HOST,
    env: env.PETSTORE_ENV,
    storage: parseDatabaseUrl(env.DATABASE_URL, Number(env.DATABASE_POOL_SIZE), dataDir),
    dataDir,
    dataDirOrigin,
    publicUrls,
    logLevel: env.LOG_LEVEL,
    accessLog: env.ACCESS_LOG === 'on',
    requestLog:
      env.REQUEST_LOG === 'on'
        ? { days: Number(env.REQUEST_LOG_DAYS), maxBytes: Number(env.REQUEST_LOG_MAX_MB) * 1024 * 1024 }
        : undefined,
    corsOrigins:
      env.CORS_ORIGINS === undefined
        ? []
        : env.CORS_ORIGINS === '*'
          ? '*'
          : env.CORS_ORIGINS.split(',').map((origin) => origin.trim().toLowerCase()),
    tracing: tracingOptions(env),
    rateLimit: rateLimitPolicy(file),
    rateLimitStore:
      env.REDIS_URL === undefined
        ? { kind: 'memory' }
        : { kind: 'redis', url: env.REDIS_URL, keyPrefix: env.REDIS_PREFIX, fail: env.RATE_LIMIT_FAIL },
    clockOffsetMs: Number(env.PETSTORE_CLOCK_OFFSET_MS),
    deprecation: deprecation.value,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    configFile,
    domainChecks: {
      target: env.DOMAINS_TARGET?.toLowerCase().replace(/\.$/, ''),
      ca: env.DOMAINS_CA.toLowerCase(),
      resolver: env.DNS_RESOLVER,
      tlsAddress: env.TLS_CHECK_ADDRESS,
      requireTxt: env.DOMAINS_REQUIRE_TXT === 'on',
    },
    domains: file.domains,
    oidc,
    consoleTokenSignIn: env.CONSOLE_TOKEN_SIGNIN === 'on',
    webhooks: {
      policy: { allowPrivate: env.WEBHOOKS_ALLOW_PRIVATE === 'true', resolver: env.DNS_RESOLVER },
      disableAfterMs: Number(env.WEBHOOKS_DISABLE_AFTER_DAYS) * 86_400_000,
      retentionMs: Number(env.WEBHOOKS_RETENTION_DAYS) * 86_400_000,
      ...(env.WEBHOOKS_RETRY_DELAYS_MS === undefined
        ? {}
        : { retryDelaysMs: env.WEBHOOKS_RETRY_DELAYS_MS.split(',').map(Number) }),
      ...(env.WEBHOOKS_LEASE_MS === undefined ? {} : { leaseMs: Number(env.WEBHOOKS_LEASE_MS) }),
    },
  };
}

/**
 * The OTLP/HTTP traces endpoint by the OpenTelemetry variables' own rules: the traces variable is used as
 * given, the general one gets the signal's path `v1/traces` appended.
 */
function tracingOptions(env: Env): TracingOptions | undefined {
  const general = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (general === undefined ? undefined : `${general.replace(/\/+$/, '')}/v1/traces`);
  return url === undefined ? undefined : { url, serviceName: env.OTEL_SERVICE_NAME };
}

/** An address, or an address with a prefix length that fits it (`10.0.0.0/8`, `fd00::/8`). */
function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/');
  const kind = isIP(address);
  if (kind === 0 || extra !== undefined) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (kind === 4 ? 32 : 128));
}

function parseTrustProxy(value: string | undefined): boolean | number | string[] {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^[1-9]$/.test(value)) return Number(value);
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const bad = entries.filter((entry) => !isAddressOrCidr(entry));
  if (bad.length > 0 || entries.length === 0) {
    throw new ConfigError(
      `Invalid configuration: TRUST_PROXY has entries that are not addresses or CIDRs: ${bad.join(', ')}`,
    );
  }
  return entries;
}

function parseDatabaseUrl(url: string | undefined, poolSize: number, dataDir: string): StorageConfig {
  // Unset: the SQLite file of the data directory.
  if (url === undefined) {
    return { kind: 'sqlite', file: path.join(dataDir, 'petstore.db'), isDefault: true, dataDir };
  }
  if (url.startsWith('sqlite:')) {
    // Accept sqlite:/abs/path, sqlite:relative/path and sqlite:///abs/path.
    const file = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    return { kind: 'sqlite', file, isDefault: false, dataDir };
  }
  return { kind: 'postgres', url: checkPostgresUrl(url), poolSize };
}

/**
 * A PostgreSQL URL that names its database. Without one the driver connects to the user's default (the
 * `postgres` system database, often), and the service would make its tables there without a word.
 */
function checkPostgresUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(
      'Invalid configuration: DATABASE_URL is not a URL, such as postgres://user@host:5432/petstore',
    );
  }
  if (parsed.pathname.replace(/^\//, '') === '') {
    throw new ConfigError(
      `Invalid configuration: DATABASE_URL names no database (it ends at ${parsed.host}): add its name after the host, as postgres://user@host:5432/petstore`,
    );
  }
  // The driver (pg 8) takes sslmode=prefer, require and verify-ca as verify-full, and says so in a warning of
  // a dozen lines on every start. Written as what it is, the behaviour is the same (the certificate and the
  // host name are checked) and the start is quiet; docs/production.md says how to ask for libpq's weaker
  // `require` (uselibpqcompat=true), which is left as it is.
  const mode = parsed.searchParams.get('sslmode');
  if (
    (mode === 'prefer' || mode === 'require' || mode === 'verify-ca') &&
    parsed.searchParams.get('uselibpqcompat') !== 'true'
  ) {
    parsed.searchParams.set('sslmode', 'verify-full');
    return parsed.href;
  }
  return url;
}

/** Variables whose values are URLs, which may hold a password: whoever prints them hides it. */
/** Settings that are secrets: `petstore config` says whether one is set, never its value. */
const SECRET_SETTINGS = new Set<string>(['OIDC_CLIENT_SECRET']);

const URL_SETTINGS = new Set<string>([
  'DATABASE_URL',
  'REDIS_URL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
]);

/** How `petstore config` names each rule of the default data directory. */
const DATA_DIR_ORIGINS: Record<DataDirOrigin, string | undefined> = {
  PETSTORE_DATA_DIR: undefined,
  checkout: 'data/ of the checkout',
  STATE_DIRECTORY: 'STATE_DIRECTORY, set by systemd',
  XDG_DATA_HOME: 'XDG_DATA_HOME/petstore',
  HOME: '~/.local/share/petstore',
};

/**
 * Every setting in effect, with where its value came from, as `petstore config` prints it: each environment
 * variable (its value, the default, or what stands in for it), then what the config file may set. Values
 * are as given: whoever prints one marked `url` hides its password. Loads the configuration first, so an
 * invalid one is refused as a start would refuse it.
 * @throws ConfigError
 */
export function describeSettings(source: NodeJS.ProcessEnv = process.env): Setting[] {
  const config = loadConfig(source);
  const given = (name: string) => {
    const value = source[name];
    return value === undefined || value === '' ? undefined : value;
  };
  // What stands in for a variable that has no default of its own.
  const derived: Partial<Record<keyof Env, string>> = {
    PETSTORE_DATA_DIR: config.dataDir,
    ...(config.storage.kind === 'sqlite' ? { DATABASE_URL: `sqlite:${config.storage.file}` } : {}),
  };
  const origins: Partial<Record<keyof Env, string | undefined>> = {
    PETSTORE_DATA_DIR: DATA_DIR_ORIGINS[config.dataDirOrigin],
  };
  // A testing aid is shown only when it is set: it is no setting of an operator's.
  const shown = SETTING_NAMES.filter((name) => !TESTING_AIDS.includes(name) || given(name) !== undefined);
  const settings: Setting[] = shown.map((name) => {
    const value = given(name);
    const fallback = defaultOf(name) ?? derived[name];
    const origin = value === undefined ? origins[name] : undefined;
    return {
      name,
      value:
        value !== undefined && SECRET_SETTINGS.has(name) ? '(set, not shown)' : (value ?? fallback ?? null),
      source: value !== undefined ? 'env' : fallback !== undefined ? 'default' : 'unset',
      ...(origin !== undefined ? { origin } : {}),
      description: descriptionOf(name),
      url: URL_SETTINGS.has(name),
    };
  });
  const file = config.configFile === undefined ? {} : readConfigFile(config.configFile).value;
  const limits = ({ perMinute, perDay }: { perMinute: number; perDay: number }) =>
    `${perMinute} a minute, ${perDay} a day`;
  const { rateLimit, deprecation } = config;
  const fromFile = (name: string, present: boolean, value: string, description: string): Setting => ({
    name,
    value,
    source: present ? 'file' : 'default',
    description,
    url: false,
  });
  settings.push(
    ...(['free', 'pro', 'business'] as const).map((plan) =>
      fromFile(
        `plans.${plan}`,
        file.plans?.[plan] !== undefined,
        limits(rateLimit.plans[plan]),
        `the limits of ${plan} keys`,
      ),
    ),
    fromFile(
      'anonymous',
      file.anonymous !== undefined,
      limits(rateLimit.anonymous),
      'the limits of requests without a valid key, per address',
    ),
    fromFile('admin', file.admin !== undefined, limits(rateLimit.admin), 'the limits of each admin token'),
    fromFile(
      'requestLogReads',
      file.requestLogReads !== undefined,
      limits(rateLimit.requestLogReads),
      "the limits of each key's reads of its own request log (GET /v1/key/requests)",
    ),
    fromFile(
      'ban.after',
      file.ban?.after !== undefined,
      String(rateLimit.ban.after),
      'requests refused in a window before a key is banned',
    ),
    fromFile(
      'ban.durationSeconds',
      file.ban?.durationSeconds !== undefined,
      String(rateLimit.ban.durationMs / 1000),
      'how long a ban lasts',
    ),
    fromFile(
      'deprecation.deprecatedAt',
      file.deprecation?.deprecatedAt !== undefined,
      deprecation.deprecatedAt.toISOString().slice(0, 10),
      'when GET /v1/pets/{petId} was deprecated',
    ),
    fromFile(
      'deprecation.sunsetAt',
      file.deprecation?.sunsetAt !== undefined,
      deprecation.sunsetAt.toISOString().slice(0, 10),
      'when GET /v1/pets/{petId} answers 410',
    ),
    fromFile(
      'deprecation.link',
      file.deprecation?.link !== undefined,
      deprecation.link,
      'the deprecation notice',
    ),
  );
  if (file.domains !== undefined) {
    settings.push(fromFile('domains', true, JSON.stringify(file.domains), 'the custom domains of the file'));
  }
  return settings;
}
