import { type Static, Type } from '@sinclair/typebox';

/** A domain name of at least two labels, with an optional trailing dot. */
const DOMAIN_NAME =
  '^(?=.{1,254}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.?$';

/** Whole days, 1 to 366 (a leap year). */
const DAYS = '^([1-9]|[1-9]\\d|[1-2]\\d\\d|3[0-5]\\d|36[0-6])$';
/** Whole days, 7 to 366. */
const WEEK_OR_MORE = '^([7-9]|[1-9]\\d|[1-2]\\d\\d|3[0-5]\\d|36[0-6])$';

/** A switch, `on` or `off`, and its default; `description` where it says more than that. */
const onOff = (byDefault: 'on' | 'off', description = 'on or off') =>
  Type.Union([Type.Literal('on'), Type.Literal('off')], { default: byDefault, description });

/** One `group=role` of `OIDC_ROLES`: a group's name (no `=` or `,`; spaces inside it kept) and a role. */
const GROUP_ROLE = ' *[^=, ][^=,]*= *(owner|admin|support|viewer) *';

/**
 * The environment variables the service reads (DESIGN.md section 2), each with what it must be and its
 * default. Only `loadConfig` reads `process.env`; everything else receives a `Config`.
 */
export const EnvSchema = Type.Object({
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
  ACCESS_LOG: onOff('on'),
  REQUEST_LOG: onOff('on'),
  REQUEST_LOG_DAYS: Type.String({
    pattern: DAYS,
    default: '7',
    description: 'the whole days the request log keeps before today, 1 to 366',
  }),
  REQUEST_LOG_MAX_MB: Type.String({
    pattern: '^[1-9]\\d{0,6}$',
    default: '1024',
    description: "the most megabytes of the request log's SQLite file, 1 to 9999999",
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
  DOMAINS_REQUIRE_TXT: onOff('off'),
  WEBHOOKS_ALLOW_PRIVATE: Type.Union([Type.Literal('true'), Type.Literal('false')], {
    default: 'false',
    description: 'true or false: true lets webhook endpoints be loopback, private or link-local addresses',
  }),
  WEBHOOKS_DISABLE_AFTER_DAYS: Type.String({
    pattern: DAYS,
    default: '5',
    description: 'the days a webhook endpoint fails every attempt before it is disabled, 1 to 366',
  }),
  WEBHOOKS_RETENTION_DAYS: Type.String({
    pattern: WEEK_OR_MORE,
    default: '30',
    description:
      'the days a delivered or failed webhook delivery and its attempts are kept, 7 to 366 (a key.expiring ' +
      'notice is kept past the expiry it tells of, so it is never sent twice)',
  }),
  WEBHOOKS_RETRY_DELAYS_MS: Type.Optional(
    Type.String({
      pattern: '^\\d{1,10}(,\\d{1,10}){0,19}$',
      description: 'milliseconds between webhook attempts, comma-separated (a testing aid)',
    }),
  ),
  WEBHOOKS_LEASE_MS: Type.Optional(
    Type.String({
      pattern: '^[1-9]\\d{2,7}$',
      description: "milliseconds a claimed webhook delivery stays this instance's (a testing aid)",
    }),
  ),
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
  OIDC_ISSUER: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s]+$',
      description:
        'the issuer URL of an OpenID Connect provider, such as https://login.example.com (https, or http on this machine)',
    }),
  ),
  OIDC_CLIENT_ID: Type.Optional(
    Type.String({ minLength: 1, maxLength: 500, description: 'the client id the provider gave the console' }),
  ),
  OIDC_CLIENT_SECRET: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'the client secret the provider gave the console (unset for a public client)',
    }),
  ),
  OIDC_GROUPS_CLAIM: Type.String({
    pattern: '^[A-Za-z0-9_:./-]{1,100}$',
    default: 'groups',
    description: 'the claim of the ID token or userinfo that lists a person’s groups',
  }),
  OIDC_ROLES: Type.Optional(
    Type.String({
      pattern: `^${GROUP_ROLE}( *, *${GROUP_ROLE})*$`,
      description:
        'group=role pairs, comma-separated, such as petstore-owners=owner,petstore-support=support',
    }),
  ),
  OIDC_PROVIDER_NAME: Type.Optional(
    Type.String({
      pattern: '^[^<>&"]{1,60}$',
      description:
        'the provider’s name on the sign-in button, "Sign in with <name>" (default: the issuer’s host)',
    }),
  ),
  OIDC_RECHECK_MS: Type.Optional(
    Type.String({
      pattern: '^[1-9]\\d{2,8}$',
      description:
        'a testing aid: how often, in ms, a person’s session is checked with their provider (5 minutes)',
    }),
  ),
  CONSOLE_TOKEN_SIGNIN: onOff(
    'on',
    'on or off: whether the console takes an admin token to sign in (the CLI’s tokens work either way)',
  ),
  CORS_ORIGINS: Type.Optional(
    Type.String({
      // `*`, or origins such as https://app.example.com or http://localhost:3000, comma-separated.
      pattern: '^(\\*|https?://[A-Za-z0-9.-]+(:\\d{1,5})?( *, *https?://[A-Za-z0-9.-]+(:\\d{1,5})?)*)$',
      description:
        '*, or a comma-separated list of origins such as https://app.example.com (scheme, host and port only)',
    }),
  ),
});

export type Env = Static<typeof EnvSchema>;
