import { isIP } from 'node:net';
import path from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { DomainCheckOptions, DomainsFile } from '../domains/index.js';
import type { Environment } from '../keys/index.js';
import { printableUrl } from '../log/index.js';
import type { RateLimitPolicy, RateLimitStoreOptions } from '../ratelimit/index.js';
import type { StorageConfig } from '../storage/index.js';
import type { TracingOptions } from '../tracing/index.js';
import type { DeprecationPolicy } from '../versioning/index.js';
import { type ConfigFile, deprecationOf, rateLimitPolicy, readConfigFile } from './file.js';
import { packageRoot } from './package.js';

export { DEFAULT_RATE_LIMIT_POLICY } from './defaults.js';
export { readConfigFile } from './file.js';
export { packageFile, packageVersion } from './package.js';

/** A domain name of at least two labels, with an optional trailing dot. */
const DOMAIN_NAME =
  '^(?=.{1,254}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.?$';

/**
 * The environment variables the service reads (DESIGN.md section 2). This is the only place that reads
 * `process.env`; everything else receives a `Config`.
 */
const EnvSchema = Type.Object({
  PORT: Type.String({
    // 0 to 65535 in decimal, nothing else: "80.5", "8080abc" and "-1" are refused rather than rounded.
    pattern: '^(6553[0-5]|655[0-2]\\d|65[0-4]\\d{2}|6[0-4]\\d{3}|[1-5]\\d{4}|\\d{1,4})$',
    default: '8080',
    description: 'a TCP port, 0 to 65535',
  }),
  HOST: Type.String({
    minLength: 1,
    default: '127.0.0.1',
    description: 'an address or host name to listen on',
  }),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^(sqlite:.+|postgres(ql)?://.+)$',
      description: 'sqlite:/path/file.db or postgres://user@host/db',
    }),
  ),
  PETSTORE_DATA_DIR: Type.Optional(
    Type.String({ minLength: 1, description: 'a directory for the SQLite file and the first key' }),
  ),
  PETSTORE_ENV: Type.Union([Type.Literal('production'), Type.Literal('staging')], {
    default: 'production',
    description: 'production or staging',
  }),
  PETSTORE_PRODUCTION_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s/]+(/[^\\s]*)?/v1$',
      description: 'an http(s) URL ending in /v1',
    }),
  ),
  PETSTORE_STAGING_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s/]+(/[^\\s]*)?/v1$',
      description: 'an http(s) URL ending in /v1',
    }),
  ),
  DATABASE_POOL_SIZE: Type.String({
    pattern: '^([1-9]|[1-9]\\d|100)$',
    default: '10',
    description: 'the PostgreSQL connections per instance, 1 to 100',
  }),
  REDIS_URL: Type.Optional(
    Type.String({ pattern: '^rediss?://.+$', description: 'redis://host:port or rediss://host:port' }),
  ),
  REDIS_PREFIX: Type.String({
    pattern: '^[A-Za-z0-9:_.-]{1,64}$',
    default: 'petstore:rl:',
    description: 'a key prefix of up to 64 letters, digits and :_.-',
  }),
  RATE_LIMIT_FAIL: Type.Union([Type.Literal('open'), Type.Literal('closed')], {
    default: 'open',
    description: 'open or closed',
  }),
  PETSTORE_CLOCK_OFFSET_MS: Type.String({
    pattern: '^-?\\d{1,10}$',
    default: '0',
    description: "a whole number of milliseconds (a testing aid to skew this instance's clock)",
  }),
  PETSTORE_CONFIG: Type.Optional(
    Type.String({ minLength: 1, description: 'the path of a JSON config file' }),
  ),
  TRUST_PROXY: Type.Optional(
    Type.String({
      pattern: '^(true|false|[1-9]|[0-9a-fA-F:.,/ ]+)$',
      description:
        'true, false, a hop count from 1 to 9, or a comma-separated list of proxy addresses or CIDRs',
    }),
  ),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info', description: 'fatal, error, warn, info, debug, trace or silent' },
  ),
  ACCESS_LOG: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description: 'on or off',
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s]+$',
      description: 'the http(s) base URL of an OTLP/HTTP receiver, such as http://collector:4318',
    }),
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s]+$',
      description:
        'the http(s) URL that OTLP/HTTP traces are sent to, such as http://collector:4318/v1/traces',
    }),
  ),
  OTEL_SERVICE_NAME: Type.String({
    minLength: 1,
    maxLength: 200,
    default: 'petstore',
    description: 'the service name of the spans, 1 to 200 characters',
  }),
  DOMAINS_TARGET: Type.Optional(
    Type.String({
      pattern: DOMAIN_NAME,
      description: 'the domain name customers point their CNAME at, such as proxy.petstore.example',
    }),
  ),
  DOMAINS_CA: Type.String({
    pattern: DOMAIN_NAME,
    default: 'letsencrypt.org',
    description: "the domain name of the TLS front's certificate authority, as CAA records name it",
  }),
  DOMAINS_REQUIRE_TXT: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'off',
    description: 'on or off',
  }),
  DNS_RESOLVER: Type.Optional(
    Type.String({
      pattern: '^(\\d{1,3}(\\.\\d{1,3}){3}|\\[[0-9A-Fa-f:.]+\\])(:\\d{1,5})?$',
      description: 'a DNS server address with an optional port, such as 127.0.0.1:53 or [::1]:53',
    }),
  ),
  TLS_CHECK_ADDRESS: Type.String({
    pattern: '^([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\]):\\d{1,5}$',
    default: '127.0.0.1:443',
    description: 'host:port of the TLS front, such as 127.0.0.1:443',
  }),
  CORS_ORIGINS: Type.Optional(
    Type.String({
      // `*`, or origins such as https://app.example.com or http://localhost:3000, comma-separated.
      pattern: '^(\\*|https?://[A-Za-z0-9.-]+(:\\d{1,5})?( *, *https?://[A-Za-z0-9.-]+(:\\d{1,5})?)*)$',
      description:
        '*, or a comma-separated list of origins such as https://app.example.com (scheme, host and port only)',
    }),
  ),
});

type Env = Static<typeof EnvSchema>;

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
   * no terminal shows it. By default `data/` beside the package, wherever a command is run from.
   */
  dataDir: string;
  /**
   * Where users reach the API, if the operator said (each ends in `/v1`). Unset, the document's server and
   * the deprecation notice are relative to the request's own origin, so no answer names a host it is not at.
   */
  publicUrls: PublicUrls;
  logLevel: string;
  /** One JSON line per request through the logger (`ACCESS_LOG`, on by default). */
  accessLog: boolean;
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
  /**
   * The custom domains of the published reference, as the config file's `domains` block says (its values
   * are checked by the domains capability); undefined when the file sets none.
   */
  domains: DomainsFile | undefined;
}

/** A configuration value that cannot be used; its message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * The data directory: `PETSTORE_DATA_DIR`, else `data/` in the package's own directory, not the working
 * directory, so that the server and every CLI command find the same files wherever they are run.
 */
function dataDirOf(value: string | undefined): string {
  return value === undefined ? path.join(packageRoot(), 'data') : path.resolve(value);
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
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration: ${[...new Set(problems)].join('; ')}`);
  }
  const env = withDefaults as Env;
  const dataDir = dataDirOf(env.PETSTORE_DATA_DIR);
  return {
    port: Number(env.PORT),
    host: env.HOST,
    env: env.PETSTORE_ENV,
    storage: parseDatabaseUrl(env.DATABASE_URL, Number(env.DATABASE_POOL_SIZE), dataDir),
    dataDir,
    publicUrls,
    logLevel: env.LOG_LEVEL,
    accessLog: env.ACCESS_LOG === 'on',
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
  if (url === undefined) return { kind: 'sqlite', file: path.join(dataDir, 'petstore.db'), isDefault: true };
  if (url.startsWith('sqlite:')) {
    // Accept sqlite:/abs/path, sqlite:relative/path and sqlite:///abs/path.
    const file = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    return { kind: 'sqlite', file, isDefault: false };
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
      `Invalid configuration: DATABASE_URL names no database (${printableUrl(url)}): add its name after the host, as postgres://user@host:5432/petstore`,
    );
  }
  return url;
}
