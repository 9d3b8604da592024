import type { Migration } from '../migration.js';
import { OLDEST_RELEASE_SERVING, RECORDS_OLDEST_RELEASE, type SchemaState, schemaOf } from '../schema.js';
import type { Database } from './driver.js';

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'categories',
    // AUTOINCREMENT: ids increase and are never reused, even after the highest row is gone.
    sql: `
      CREATE TABLE categories (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        description TEXT CHECK (description IS NULL OR length(description) <= 1000)
      ) STRICT;
    `,
  },
  {
    version: 2,
    name: 'api keys',
    // Only the digest of a key is stored. The version row changes with every create or revoke, so servers
    // can notice a change with one primary-key read instead of rereading every key.
    sql: `
      CREATE TABLE api_keys (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        plan       TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
        per_minute INTEGER CHECK (per_minute > 0),
        per_day    INTEGER CHECK (per_day > 0),
        env        TEXT NOT NULL CHECK (env IN ('production', 'staging')),
        prefix     TEXT NOT NULL,
        digest     TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        revoked_at TEXT,
        CHECK ((plan = 'enterprise') = (per_minute IS NOT NULL AND per_day IS NOT NULL)),
        CHECK (plan = 'enterprise' OR (per_minute IS NULL AND per_day IS NULL))
      ) STRICT;
      CREATE TABLE api_keys_version (
        id      INTEGER PRIMARY KEY CHECK (id = 1),
        version INTEGER NOT NULL
      ) STRICT;
      INSERT INTO api_keys_version (id, version) VALUES (1, 0);
    `,
  },
  {
    version: 3,
    name: 'api key unbans',
    // `keys unban` records the time here; servers see the change through the version and lift the ban in
    // their rate-limit store, which the CLI cannot reach when it lives in a server's memory.
    sql: 'ALTER TABLE api_keys ADD COLUMN unbanned_at TEXT;',
  },
  {
    version: 4,
    name: 'pets and orders',
    sql: `
      CREATE TABLE pets (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        category_id INTEGER NOT NULL REFERENCES categories (id),
        status      TEXT NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
      ) STRICT;
      CREATE INDEX pets_by_category ON pets (category_id);
      CREATE TABLE orders (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        pet_id     INTEGER NOT NULL REFERENCES pets (id),
        quantity   INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 1000),
        status     TEXT NOT NULL CHECK (status IN ('placed', 'approved', 'delivered')),
        created_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX orders_by_creation ON orders (created_at, id);
    `,
  },
  {
    version: 5,
    name: 'idempotency records',
    // One stored answer per (API key, Idempotency-Key); created_at in milliseconds, for expiry and purging.
    sql: `
      CREATE TABLE idempotency_records (
        api_key_id      TEXT NOT NULL,
        idempotency_key TEXT NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
        request_digest  TEXT NOT NULL,
        status          INTEGER NOT NULL,
        body            TEXT NOT NULL,
        created_at      INTEGER NOT NULL,
        PRIMARY KEY (api_key_id, idempotency_key)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX idempotency_records_by_age ON idempotency_records (created_at);
    `,
  },
  {
    version: 6,
    name: 'domain verifications',
    // A domain's last successful `domains verify`: the TLS ask check issues certificates only for these.
    sql: `
      CREATE TABLE domain_verifications (
        domain      TEXT PRIMARY KEY CHECK (length(domain) BETWEEN 1 AND 253),
        target      TEXT NOT NULL,
        verified_at TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 7,
    name: 'api key bans',
    // When the limiter's last ban of a key ends, for `keys list`: the ban itself lives in the rate-limit
    // store (a server's memory, or Redis), which the CLI cannot always reach.
    sql: 'ALTER TABLE api_keys ADD COLUMN banned_until TEXT;',
  },
  {
    version: 8,
    name: 'key lifecycle, admin tokens, audit, usage',
    // Scopes are stored space-separated; the budget is the rate-limit subject a rotation hands on (a key
    // never rotated is its own). The audit record refuses to be changed or shortened, whoever asks.
    sql: `
      ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL
        DEFAULT 'categories:read categories:write pets:read pets:write orders:read orders:write';
      ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
      ALTER TABLE api_keys ADD COLUMN replaced_by TEXT;
      ALTER TABLE api_keys ADD COLUMN budget_id TEXT;
      ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
      UPDATE api_keys SET budget_id = id;
      CREATE INDEX api_keys_by_budget ON api_keys (budget_id);
      CREATE TABLE admin_tokens (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        prefix     TEXT NOT NULL,
        digest     TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      ) STRICT;
      CREATE TABLE audit_events (
        id      INTEGER PRIMARY KEY AUTOINCREMENT,
        at      TEXT NOT NULL,
        actor   TEXT NOT NULL,
        action  TEXT NOT NULL,
        target  TEXT NOT NULL,
        details TEXT NOT NULL
      ) STRICT;
      CREATE INDEX audit_events_by_target ON audit_events (target, id);
      CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
        BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
      CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
        BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
      CREATE TABLE key_usage (
        key_id        TEXT NOT NULL,
        day           TEXT NOT NULL,
        success       INTEGER NOT NULL,
        client_errors INTEGER NOT NULL,
        rate_limited  INTEGER NOT NULL,
        server_errors INTEGER NOT NULL,
        PRIMARY KEY (key_id, day)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE key_deprecated_calls (
        key_id         TEXT NOT NULL,
        operation_id   TEXT NOT NULL,
        calls          INTEGER NOT NULL,
        last_called_at TEXT NOT NULL,
        PRIMARY KEY (key_id, operation_id)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 9,
    name: 'custom domains with states',
    sql: `
      CREATE TABLE domains (
        name                   TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 253),
        source                 TEXT NOT NULL CHECK (source IN ('file', 'api')),
        is_primary             INTEGER NOT NULL CHECK (is_primary IN (0, 1)),
        redirect_to            TEXT,
        redirect_status        INTEGER,
        state                  TEXT NOT NULL,
        reason                 TEXT NOT NULL,
        fix                    TEXT,
        token                  TEXT NOT NULL,
        added_at               TEXT NOT NULL,
        state_since            TEXT NOT NULL,
        checked_at             TEXT,
        next_check_at          TEXT NOT NULL,
        last_check             TEXT,
        certificate_issuer     TEXT,
        certificate_expires_at TEXT
      ) STRICT;
      CREATE UNIQUE INDEX domains_one_primary ON domains (is_primary) WHERE is_primary = 1;
      CREATE INDEX domains_by_next_check ON domains (next_check_at);
      CREATE TABLE domains_version (
        id      INTEGER PRIMARY KEY CHECK (id = 1),
        version INTEGER NOT NULL
      ) STRICT;
      INSERT INTO domains_version (id, version) VALUES (1, 0);
      INSERT INTO domains (name, source, is_primary, state, reason, token, added_at, state_since, checked_at,
                           next_check_at, last_check)
        SELECT domain, 'api', 0, 'verified', 'Verified with petstore domains verify', lower(hex(randomblob(16))),
               verified_at, verified_at, verified_at, verified_at, 'passed'
        FROM domain_verifications;
      DROP TABLE domain_verifications;
    `,
  },
  {
    version: 10,
    name: 'hourly key usage, and console sessions',
    sql: `
      CREATE TABLE key_usage_hourly (
        key_id        TEXT NOT NULL,
        hour          TEXT NOT NULL,
        success       INTEGER NOT NULL,
        client_errors INTEGER NOT NULL,
        rate_limited  INTEGER NOT NULL,
        server_errors INTEGER NOT NULL,
        PRIMARY KEY (key_id, hour)
      ) STRICT;
      CREATE INDEX key_usage_hourly_by_hour ON key_usage_hourly (hour);
      CREATE INDEX key_usage_by_day ON key_usage (day);
      CREATE TABLE admin_sessions (
        digest       TEXT PRIMARY KEY,
        token_id     TEXT NOT NULL,
        created_at   TEXT NOT NULL,
        last_seen_at TEXT NOT NULL,
        expires_at   TEXT NOT NULL,
        ended_at     TEXT
      ) STRICT;
      CREATE INDEX admin_sessions_by_token ON admin_sessions (token_id);
    `,
  },
  {
    version: 11,
    name: 'the oldest release that serves each schema version',
    sql: 'ALTER TABLE schema_migrations ADD COLUMN oldest_release TEXT',
  },
  {
    version: 12,
    name: 'webhook endpoints, and the outbox of their events',
    sql: `
      CREATE TABLE webhook_endpoints (
        id                    TEXT PRIMARY KEY,
        url                   TEXT NOT NULL,
        description           TEXT NOT NULL,
        enabled               INTEGER NOT NULL,
        disabled_reason       TEXT,
        secret                TEXT NOT NULL,
        previous_secret       TEXT,
        previous_secret_until INTEGER,
        created_at            INTEGER NOT NULL,
        updated_at            INTEGER NOT NULL,
        failing_since         INTEGER
      ) STRICT;
      CREATE TABLE webhook_subscriptions (
        event_type  TEXT NOT NULL,
        endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        PRIMARY KEY (event_type, endpoint_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX webhook_subscriptions_by_endpoint ON webhook_subscriptions (endpoint_id);
      CREATE TABLE webhook_events (
        id         TEXT PRIMARY KEY,
        type       TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        payload    TEXT NOT NULL
      ) STRICT;
      CREATE TABLE webhook_deliveries (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id        TEXT NOT NULL REFERENCES webhook_events (id),
        endpoint_id     TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        state           TEXT NOT NULL,
        attempts        INTEGER NOT NULL,
        tries           INTEGER NOT NULL,
        next_attempt_at INTEGER,
        lease_until     INTEGER,
        last_status     INTEGER,
        created_at      INTEGER NOT NULL,
        updated_at      INTEGER NOT NULL
      ) STRICT;
      CREATE UNIQUE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id, endpoint_id);
      CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id);
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
      CREATE TABLE webhook_attempts (
        delivery_id     INTEGER NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        attempt         INTEGER NOT NULL,
        at              INTEGER NOT NULL,
        status          INTEGER,
        latency_ms      REAL NOT NULL,
        excerpt         TEXT NOT NULL,
        error           TEXT,
        next_attempt_at INTEGER,
        PRIMARY KEY (delivery_id, attempt)
      ) STRICT;
    `,
  },
  {
    version: 13,
    name: 'a role for each admin token; tokens made before roles are owners',
    sql: "ALTER TABLE admin_tokens ADD COLUMN role TEXT NOT NULL DEFAULT 'owner' CHECK (role IN ('owner', 'admin', 'support', 'viewer'))",
  },
  {
    version: 14,
    name: 'people who sign in with OpenID Connect, their console sessions, and the sign-ins under way',
    sql: `
      CREATE TABLE people (
        id               TEXT PRIMARY KEY,
        issuer           TEXT NOT NULL,
        subject          TEXT NOT NULL,
        email            TEXT,
        name             TEXT,
        role             TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'support', 'viewer')),
        first_sign_in_at TEXT NOT NULL,
        last_sign_in_at  TEXT NOT NULL,
        UNIQUE (issuer, subject)
      ) STRICT;
      CREATE TABLE oidc_logins (
        state      TEXT PRIMARY KEY,
        binding    TEXT NOT NULL,
        verifier   TEXT NOT NULL,
        nonce      TEXT NOT NULL,
        created_at TEXT NOT NULL
      ) STRICT;
      CREATE TABLE admin_sessions_14 (
        digest        TEXT PRIMARY KEY,
        token_id      TEXT,
        created_at    TEXT NOT NULL,
        last_seen_at  TEXT NOT NULL,
        expires_at    TEXT NOT NULL,
        ended_at      TEXT,
        person_id     TEXT REFERENCES people (id),
        role          TEXT CHECK (role IN ('owner', 'admin', 'support', 'viewer')),
        refresh_token TEXT,
        checked_at    TEXT,
        CHECK ((token_id IS NULL) <> (person_id IS NULL))
      ) STRICT;
      INSERT INTO admin_sessions_14 (digest, token_id, created_at, last_seen_at, expires_at, ended_at)
        SELECT digest, token_id, created_at, last_seen_at, expires_at, ended_at FROM admin_sessions;
      DROP TABLE admin_sessions;
      ALTER TABLE admin_sessions_14 RENAME TO admin_sessions;
      CREATE INDEX admin_sessions_by_token ON admin_sessions (token_id);
      CREATE INDEX admin_sessions_by_person ON admin_sessions (person_id);
    `,
  },
  {
    version: 15,
    name: 'who made each admin token: a person, a token or the command line; those made before, from the audit',
    // The actor of the token's `admin_token.created` entry, which every release since admin tokens came
    // (schema 8, with the audit) has appended in the token's own transaction, and which nobody can change
    // or delete: the backfill is exact. Null only for a token an instance of 1.3 makes during a rolling
    // upgrade (it names the columns it writes; its only way to make one is its command line).
    sql: `
      ALTER TABLE admin_tokens ADD COLUMN created_by TEXT;
      UPDATE admin_tokens SET created_by = (
        SELECT actor FROM audit_events
        WHERE action = 'admin_token.created' AND target = admin_tokens.id
        ORDER BY id LIMIT 1
      );
      CREATE INDEX admin_tokens_by_creator ON admin_tokens (created_by);
    `,
  },
];

/**
 * Brings the schema up to the newest version. `BEGIN IMMEDIATE` takes the write lock first, so a server
 * and a CLI starting at once cannot both apply the same migration.
 */
export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
  ) STRICT`);
  const applied: number[] = [];
  const current = db.prepare<[], { version: number | null }>(
    'SELECT max(version) AS version FROM schema_migrations',
  );
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const migration of migrations) {
    db.exec('BEGIN IMMEDIATE');
    try {
      if ((current.get()?.version ?? 0) < migration.version) {
        db.exec(migration.sql);
        record.run(migration.version, migration.name, new Date().toISOString());
        applied.push(migration.version);
      }
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }
  if ((current.get()?.version ?? 0) >= RECORDS_OLDEST_RELEASE) {
    const note = db.prepare<[string, number]>(
      'UPDATE schema_migrations SET oldest_release = ? WHERE version = ? AND oldest_release IS NULL',
    );
    db.transaction(() => {
      for (const migration of migrations) {
        const release = OLDEST_RELEASE_SERVING[migration.version];
        if (release !== undefined) note.run(release, migration.version);
      }
    })();
  }
  return applied;
}

/** The schema of an open database (version 0 when it has none). */
export function readSchema(db: Database): SchemaState {
  const table = db
    .prepare<[], number>("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .pluck()
    .get();
  if (table === undefined) return { version: 0, oldestRelease: '0.0.0' };
  return schemaOf(
    db
      .prepare<[], { version: number; oldest_release?: string | null }>('SELECT * FROM schema_migrations')
      .all(),
  );
}
