import { type Config, OPERATOR_SETTINGS, STORAGE_SETTINGS, settingsHelp } from '../config/index.js';
import {
  ACTOR_KINDS,
  AUDIT_PAGE,
  DELIVERY_PAGE,
  EVENT_TYPES,
  REQUESTS_PAGE,
  ROLE_MEANING,
  ROLES,
  SCOPES,
} from '../contract/index.js';
import type { OptionSpec } from './args.js';

// The CLI's grammar in one table, made of the very option specs the commands' parsers use, so that a test
// can hold the docs to it without a copy that could drift. Importing it runs nothing (main.ts does).

export const MIGRATE_USAGE = `Usage: petstore migrate [--check]

Creates the database of DATABASE_URL if needed and brings its schema up to date, then exits (servers also
bring the schema up to date at start; concurrent runs are safe). On PostgreSQL the database is created with
CREATE DATABASE as the URL's user, connected to the server's postgres database; a user without that right
gets the createdb command to run instead. A server never creates a PostgreSQL database, nor a SQLite file
outside the data directory: migrate creates that file (readable by this user only), in a directory that
must exist.

  --check   Change nothing: say which schema the database is at and which releases made it, and exit 0
            when it is up to date for this release (or newer and still served by it), 1 when a migration
            is due or the database is missing.

Reads:
${settingsHelp(STORAGE_SETTINGS)}`;

/** The options of `petstore migrate`. */
export const MIGRATE_OPTIONS = { check: { type: 'boolean' } } as const satisfies OptionSpec;

export const KEYS_USAGE = `Usage:
  petstore keys create --plan free|pro|business|enterprise [--name NAME]
                       [--per-minute N --per-day N] [--scopes a,b]
                       [--expires-in 30d | --expires-at 2027-01-31T00:00:00Z] [--json]
  petstore keys list [--json]
  petstore keys show <id> [--json]
  petstore keys rotate <id> [--grace 24h] [--json]
  petstore keys expire <id>
  petstore keys revoke <id> [--yes]
  petstore keys unban <id>

Enterprise keys need both --per-minute and --per-day (a day at least a minute); other plans use their
plan's limits. Scopes: ${SCOPES.join(', ')} (every one by default). Names are 1 to 100 characters
without control or invisible characters. Durations are a whole number and s, m, h or d (0 for none).
A key is printed once, when it is created or rotated: only its digest is stored. A rotated key keeps working
for the grace period (default 0: it stops at once), then is refused; the two share one rate-limit budget.
A key is rotated once. expire ends a key now (and a rotated key's grace with it); revoke refuses it for good,
with every key rotated from it (whoever holds a leaked key may have rotated it to a key of their own): it
names them and asks first, on a terminal, or takes --yes; without either it refuses, and changes nothing.
It says Revoked only once each reads revoked after the change (else it fails with exit 1). To end only a
rotated key's grace and keep its successor, expire it instead.
The commands use the database a server made (DATABASE_URL) and never create one; each change is audited.

Reads:
${settingsHelp([...STORAGE_SETTINGS, 'PETSTORE_ENV'])}`;

/** The options of each `keys` action: the grammar the parser uses and the docs are checked against. */
export const KEYS_OPTIONS = {
  create: {
    plan: { type: 'string' },
    name: { type: 'string' },
    'per-minute': { type: 'string' },
    'per-day': { type: 'string' },
    scopes: { type: 'string' },
    'expires-in': { type: 'string' },
    'expires-at': { type: 'string' },
    json: { type: 'boolean' },
  },
  list: { json: { type: 'boolean' } },
  show: { json: { type: 'boolean' } },
  rotate: { grace: { type: 'string' }, json: { type: 'boolean' } },
  expire: {},
  revoke: { yes: { type: 'boolean' } },
  unban: {},
} as const satisfies Record<string, OptionSpec>;

export const ADMIN_TOKENS_USAGE = `Usage:
  petstore admin-tokens create [--name NAME] [--role ROLE] [--json]
  petstore admin-tokens list [--json]
  petstore admin-tokens revoke <id>

An admin token (ps_admin_…) authenticates software to the admin API under /admin/v1 (its document is at
/admin/openapi.json). It is printed once, at creation: only its digest is stored. Its role says what it may
do (default owner; the command line acts as an owner itself):
${ROLES.map((role) => `  ${role.padEnd(8)} ${ROLE_MEANING[role]}`).join('\n')}
Each admin operation names the least role it needs; a token without it gets 403 insufficient_role. A revoked token is
refused by every server within 5 seconds; revoke says so only once the token reads revoked after the change
(else it fails with exit 1). Each change is audited.

Reads:
${settingsHelp(STORAGE_SETTINGS)}`;

export const AUDIT_USAGE = `Usage:
  petstore audit list [--target ID] [--actor ID] [--actor-kind KIND] [--after ID] [--limit N] [--json]

Every change to API keys, admin tokens, custom domains and webhook endpoints, and every request refused for
its role, oldest first: when, who (an admin token id, an API key id, cli, config, checker or webhooks),
what, to which id or domain, and what changed. Never a key or a token. --actor-kind is one of
${ACTOR_KINDS.join(', ')}. One page at a time, as GET /admin/v1/audit: --limit 1 to ${AUDIT_PAGE.max}
(default ${AUDIT_PAGE.default}), and --after the last id of the page before for the next.

Reads:
${settingsHelp(STORAGE_SETTINGS)}`;

/** The options of each `admin-tokens` action: the grammar the parser uses and the docs are checked against. */
export const ADMIN_TOKENS_OPTIONS = {
  create: { name: { type: 'string' }, role: { type: 'string' }, json: { type: 'boolean' } },
  list: { json: { type: 'boolean' } },
  revoke: {},
} as const satisfies Record<string, OptionSpec>;

/** The options of `audit`'s one action, `list`. */
export const AUDIT_OPTIONS = {
  list: {
    target: { type: 'string' },
    actor: { type: 'string' },
    'actor-kind': { type: 'string' },
    after: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  },
} as const satisfies Record<string, OptionSpec>;

export const REQUESTS_USAGE = `Usage: petstore requests [--key ID] [--status 404|4xx] [--since 15m|TIME] [--id REQUEST_ID]
                         [--api v1|admin] [--limit N] [--follow] [--json]

The request log: answered requests of /v1 and /admin/v1, the newest --limit (1 to ${REQUESTS_PAGE.max}, default
${REQUESTS_PAGE.default}) of the filter, printed oldest first: time, method and path, status and error code, the key
(or admin token, or client address), duration and request id. --since takes a duration back from now (15m,
2h, 7d) or an RFC 3339 time; --id finds the request a customer quotes from an Error body; --api v1 keeps
the API's requests alone, --api admin the admin API's (the console's among them). --follow then
prints each new row as it lands, from every instance, until interrupted. --json prints a JSON object a row.
It reads the request log of the database a server uses (docs/request-log.md).

Reads:
${settingsHelp(STORAGE_SETTINGS)}`;

/** The options of `petstore requests`. */
export const REQUESTS_OPTIONS = {
  key: { type: 'string' },
  status: { type: 'string' },
  since: { type: 'string' },
  id: { type: 'string' },
  api: { type: 'string' },
  limit: { type: 'string' },
  follow: { type: 'boolean' },
  json: { type: 'boolean' },
} as const satisfies OptionSpec;

export const CONFIG_USAGE = `Usage: petstore config [--json]

Prints every setting in effect and where its value comes from: env (the environment), file (the
PETSTORE_CONFIG file), default (the service's own), or unset. Passwords in URLs are shown as ***. An invalid
configuration is refused as a start would refuse it, with every problem named. --json prints one object.

Settings of the environment:
${settingsHelp(OPERATOR_SETTINGS)}

The PETSTORE_CONFIG file may set plans.free, plans.pro, plans.business, anonymous, admin (each
{"perMinute", "perDay"}), ban.after, ban.durationSeconds, deprecation.deprecatedAt, deprecation.sunsetAt,
deprecation.link and domains (see docs/configuration.md).`;

/** The options of `petstore config`. */
export const CONFIG_OPTIONS = { json: { type: 'boolean' } } as const satisfies OptionSpec;

export const COPY_USAGE = `Usage: petstore copy --from <DATABASE_URL> --to <DATABASE_URL> [--json]

Copies everything of one Pet Store database into another: API keys (hashes, plans, limits, scopes, expiry,
rotation links), admin tokens and console sessions, categories, pets and orders with their ids, idempotency
records, domains with their state, usage and the audit log. Either side may be sqlite:/path/file.db or
postgres://user@host/db. Stop the servers first.

The target is created and migrated if needed and must hold no data (a new SQLite file is readable by this
user only, in a directory that must exist); the source must be at this release's schema (run 'petstore
migrate' on it first). A SQLite source or target must hold exactly the tables, columns, indexes and
triggers this release's migrations make, and no view: an object added, changed or missing is named in the
refusal, before anything is written. Progress goes to stderr. The copy is one transaction on the target,
committed only after every table's row count and SHA-256 checksum match the source's: a copy that fails
leaves the target empty. Generated ids continue above the copied ones.`;

/** The options of `petstore copy`. */
export const COPY_OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  json: { type: 'boolean' },
} as const satisfies OptionSpec;

export const DOMAINS_USAGE = `Usage:
  petstore domains add <domain> [--primary] [--redirect-to <domain> [--status 301]] [--json]
  petstore domains list [--json]
  petstore domains status <domain> [--json]
  petstore domains verify <domain> [--target <dns target>] [--resolver host:port] [--ca letsencrypt.org]
                          [--wait [seconds]] [--json]
  petstore domains remove <domain>

Custom domains of the published reference. add stores a domain as pending and prints the DNS records its
owner adds: a CNAME to the DNS target (DOMAINS_TARGET; an apex needs ALIAS/ANAME instead) and a TXT record
_petstore-challenge.<domain> holding a token (required with DOMAINS_REQUIRE_TXT=on). Every running server
re-checks domains on a schedule (each minute at first, backing off to daily) and moves each through
pending, verified (DNS right), active (a certificate is served; TLS_CHECK_ADDRESS), misconfigured (DNS moved
away) and certificate_failed (no certificate 30 minutes after verification). status shows the state, why,
and the fix; verify checks now (a new 30 minutes for the certificate), and for a domain not added, checks
its DNS once and records nothing. remove stops serving it and issuing certificates for it on every server
at once. --json prints the same object the admin API returns.
Exit codes: 0 done (verify: verified or active), 1 not (or not found), 2 wrong arguments.

Reads:
${settingsHelp([
  ...STORAGE_SETTINGS,
  'DOMAINS_TARGET',
  'DOMAINS_CA',
  'DOMAINS_REQUIRE_TXT',
  'DNS_RESOLVER',
  'TLS_CHECK_ADDRESS',
  'HOST',
  'PETSTORE_PRODUCTION_URL',
  'PETSTORE_STAGING_URL',
])}`;

/**
 * The options of each `domains` action: the grammar the parsers use and the docs are checked against.
 * verify's `--wait` takes an optional value, which parseOptions cannot express: takeWait reads it first,
 * and parseOptions gets the rest of verify's options (VERIFY_PARSED).
 */
export const DOMAINS_OPTIONS = {
  add: {
    primary: { type: 'boolean' },
    'redirect-to': { type: 'string' },
    status: { type: 'string' },
    json: { type: 'boolean' },
  },
  list: { json: { type: 'boolean' } },
  status: { json: { type: 'boolean' } },
  verify: {
    target: { type: 'string' },
    resolver: { type: 'string' },
    ca: { type: 'string' },
    wait: { type: 'string' },
    json: { type: 'boolean' },
  },
  remove: { json: { type: 'boolean' } },
} as const satisfies Record<string, OptionSpec>;

/** Words joined with commas into lines of at most `width` characters, each indented by two spaces. */
function wrapped(words: readonly string[], width = 108): string {
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    const next = line === '' ? `  ${word}` : `${line}, ${word}`;
    if (next.length > width && line !== '') {
      lines.push(`${line},`);
      line = `  ${word}`;
    } else line = next;
  }
  return [...lines, line].join('\n');
}

export const WEBHOOKS_USAGE = `Usage:
  petstore webhooks list [--json]
  petstore webhooks add <url> --events a,b [--description TEXT] [--json]
  petstore webhooks show <id> [--json]
  petstore webhooks update <id> [--url URL] [--events a,b] [--description TEXT] [--json]
  petstore webhooks enable|disable|remove <id>
  petstore webhooks rotate-secret <id> [--json]
  petstore webhooks test <id> [--type TYPE] [--json]
  petstore webhooks deliveries <id> [--state pending|delivered|failed] [--since 15m|TIME] [--limit N]
                               [--json]
  petstore webhooks replay <id> <deliveryId> [--json]
  petstore webhooks replay <id> --failed-since 24h|TIME [--json]

Endpoints the service POSTs signed events to (docs/webhooks.md). add prints the endpoint's signing secret
(whsec_…) once, and rotate-secret a new one once: it is never shown again, and after a rotation the secret
before it keeps signing beside it for 24 hours. A URL is http:// or https://, and one whose host resolves to
a loopback, private or link-local address is refused unless WEBHOOKS_ALLOW_PRIVATE=true.
disable makes an endpoint's deliveries wait, enable sends them again; remove deletes it with its deliveries
and their log. test (an event of --type, the endpoint's first type by default) and replay queue deliveries:
every running server looks for due ones each second and sends them, and none is sent while no server runs.
deliveries lists the delivery log, newest first: --limit 1 to ${DELIVERY_PAGE.max} (default ${DELIVERY_PAGE.default}). replay sends one
delivery again with the same event id, or every failed one made since --failed-since. --since and
--failed-since take a duration back from now (15m, 2h, 7d) or an RFC 3339 time. --json prints what the
admin API answers. Each change is audited, by cli.
Exit codes: 0 done, 1 not (no such endpoint or delivery, a disabled endpoint to test, an attempt under
way), 2 wrong arguments.

Event types, for --events (comma-separated) and --type:
${wrapped(EVENT_TYPES)}

Reads:
${settingsHelp([...STORAGE_SETTINGS, 'WEBHOOKS_ALLOW_PRIVATE', 'DNS_RESOLVER'])}`;

/** The options of each `webhooks` action: the grammar the parser uses and the docs are checked against. */
export const WEBHOOKS_OPTIONS = {
  list: { json: { type: 'boolean' } },
  add: { events: { type: 'string' }, description: { type: 'string' }, json: { type: 'boolean' } },
  show: { json: { type: 'boolean' } },
  update: {
    url: { type: 'string' },
    events: { type: 'string' },
    description: { type: 'string' },
    json: { type: 'boolean' },
  },
  enable: {},
  disable: {},
  remove: {},
  'rotate-secret': { json: { type: 'boolean' } },
  test: { type: { type: 'string' }, json: { type: 'boolean' } },
  deliveries: {
    state: { type: 'string' },
    since: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  },
  replay: { 'failed-since': { type: 'string' }, json: { type: 'boolean' } },
} as const satisfies Record<string, OptionSpec>;

export const BACKUP_USAGE = `Usage: petstore backup <file> [--json]

Copies the SQLite database of DATABASE_URL to <file> while servers run and write: SQLite's online backup,
the database as of one moment, with every create acknowledged before the command started. The copy is
checked (PRAGMA integrity_check) before success is reported, readable by this user only from its first
byte (the temporary file too), and written under a temporary name beside <file> then linked into place: an
existing <file> is never overwritten, and a failed backup leaves nothing. Prints one line with the file,
its size and its schema version; --json one object.
PostgreSQL: use pg_dump (docs/upgrades-and-backups.md, "Backups").

Reads:
${settingsHelp(STORAGE_SETTINGS)}`;

export const RESTORE_USAGE = `Usage: petstore restore <file> [--json]

Replaces the SQLite database of DATABASE_URL with <file>, a backup made by 'petstore backup', for a stopped
service: refused while any server or command has the database open. <file> must pass SQLite's integrity
check and hold a Pet Store schema this release serves (the rule 'serve' applies), with exactly the tables,
columns, indexes and triggers this release's migrations make at its version, and no view (a newer schema
may add tables, columns and indexes only): an object added, changed or missing is named in the refusal.
It is copied beside the database (readable by this user only), fsynced and renamed over it, and the old
-wal and -shm are removed, so a refusal or a failure leaves the database as it was. The database's
directory must exist (the data directory is created). <file> itself is not changed.
PostgreSQL: use pg_restore (docs/upgrades-and-backups.md, "Backups").

Reads:
${settingsHelp(STORAGE_SETTINGS)}`;

/** The options of `petstore backup`. */
export const BACKUP_OPTIONS = { json: { type: 'boolean' } } as const satisfies OptionSpec;

/** The options of `petstore restore`: the same as backup's. */
export const RESTORE_OPTIONS = BACKUP_OPTIONS;

export const SERVE_USAGE = `Usage: petstore serve

Starts the HTTP API (the default command) and serves until SIGTERM or SIGINT, which drain it. With
DATABASE_URL unset the data is in petstore.db in the data directory, created on the first start (the
directory 0700, the file 0600) with one API key, shown once (on the terminal, or in first-api-key.txt
there; another database's first key goes to a file named after it, and an existing file is never
overwritten). A server creates a SQLite file only in the data directory: one named elsewhere must exist
('petstore migrate' creates it), and a directory that does not exist is refused. 'petstore config' prints
every setting in effect and where it comes from.

Reads:
${settingsHelp(OPERATOR_SETTINGS)}`;

/** serve takes no arguments at all: main.ts refuses any ("serve takes no arguments: …"). */
export const SERVE_OPTIONS = {} as const satisfies OptionSpec;

/** A command's usage text (its `--help`) and its options: either its own, or each action's. */
export type CommandGrammar =
  | { readonly usage: string; readonly options: OptionSpec }
  | { readonly usage: string; readonly actions: Readonly<Record<string, OptionSpec>> };

export type CommandName =
  | 'serve'
  | 'migrate'
  | 'keys'
  | 'admin-tokens'
  | 'audit'
  | 'requests'
  | 'config'
  | 'copy'
  | 'domains'
  | 'webhooks'
  | 'backup'
  | 'restore';

/**
 * A command of `petstore` that reads the configuration: its arguments (those after its name), the
 * configuration, where it writes; it answers its exit code.
 */
export type Command = (
  args: string[],
  config: Config,
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
) => number | Promise<number>;

/** Every command of `petstore`, its usage text and its grammar. */
export const COMMANDS: Readonly<Record<CommandName, CommandGrammar>> = {
  serve: { usage: SERVE_USAGE, options: SERVE_OPTIONS },
  migrate: { usage: MIGRATE_USAGE, options: MIGRATE_OPTIONS },
  keys: { usage: KEYS_USAGE, actions: KEYS_OPTIONS },
  'admin-tokens': { usage: ADMIN_TOKENS_USAGE, actions: ADMIN_TOKENS_OPTIONS },
  audit: { usage: AUDIT_USAGE, actions: AUDIT_OPTIONS },
  requests: { usage: REQUESTS_USAGE, options: REQUESTS_OPTIONS },
  config: { usage: CONFIG_USAGE, options: CONFIG_OPTIONS },
  copy: { usage: COPY_USAGE, options: COPY_OPTIONS },
  domains: { usage: DOMAINS_USAGE, actions: DOMAINS_OPTIONS },
  webhooks: { usage: WEBHOOKS_USAGE, actions: WEBHOOKS_OPTIONS },
  backup: { usage: BACKUP_USAGE, options: BACKUP_OPTIONS },
  restore: { usage: RESTORE_USAGE, options: RESTORE_OPTIONS },
};

/** The command of that name, if there is one (never a property of Object.prototype, such as `toString`). */
export function commandNamed(name: string): CommandGrammar | undefined {
  return Object.hasOwn(COMMANDS, name) ? COMMANDS[name as CommandName] : undefined;
}

/**
 * The options `petstore <command> [<action>]` takes, or undefined when there is no such command or action:
 * a command with actions needs one, a command without takes none.
 */
export function grammarOf(command: string, action?: string): OptionSpec | undefined {
  const grammar = commandNamed(command);
  if (grammar === undefined) return undefined;
  if ('options' in grammar) return action === undefined ? grammar.options : undefined;
  if (action === undefined || !Object.hasOwn(grammar.actions, action)) return undefined;
  return grammar.actions[action];
}
