import type { PoolClient } from 'pg';
import type { Migration } from '../migration.js';
import { OLDEST_RELEASE_SERVING, RECORDS_OLDEST_RELEASE, type SchemaState, schemaOf } from '../schema.js';
import type { Queryable } from './transaction.js';

/** The same versions as the SQLite migrations, in PostgreSQL's dialect. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'categories',
    sql: `
      CREATE TABLE categories (
        id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name        TEXT NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
        description TEXT CHECK (description IS NULL OR char_length(description) <= 1000)
      );
    `,
  },
  {
    version: 2,
    name: 'api keys',
    sql: `
      CREATE TABLE api_keys (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
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
      );
      CREATE TABLE api_keys_version (
        id      INTEGER PRIMARY KEY CHECK (id = 1),
        version BIGINT NOT NULL
      );
      INSERT INTO api_keys_version (id, version) VALUES (1, 0);
    `,
  },
  {
    version: 3,
    name: 'api key unbans',
    sql: 'ALTER TABLE api_keys ADD COLUMN unbanned_at TEXT;',
  },
  {
    version: 4,
    name: 'pets and orders',
    sql: `
      CREATE TABLE pets (
        id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name        TEXT NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
        category_id BIGINT NOT NULL REFERENCES categories (id),
        status      TEXT NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
      );
      CREATE INDEX pets_by_category ON pets (category_id);
      CREATE TABLE orders (
        id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        pet_id     BIGINT NOT NULL REFERENCES pets (id),
        quantity   INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 1000),
        status     TEXT NOT NULL CHECK (status IN ('placed', 'approved', 'delivered')),
        created_at TIMESTAMPTZ NOT NULL
      );
      CREATE INDEX orders_by_creation ON orders (created_at, id);
    `,
  },
  {
    version: 5,
    name: 'idempotency records',
    sql: `
      CREATE TABLE idempotency_records (
        api_key_id      TEXT NOT NULL,
        idempotency_key TEXT NOT NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 255),
        request_digest  TEXT NOT NULL,
        status          INTEGER NOT NULL,
        body            TEXT NOT NULL,
        created_at      BIGINT NOT NULL,
        PRIMARY KEY (api_key_id, idempotency_key)
      );
      CREATE INDEX idempotency_records_by_age ON idempotency_records (created_at);
    `,
  },
  {
    version: 6,
    name: 'domain verifications',
    sql: `
      CREATE TABLE domain_verifications (
        domain      TEXT PRIMARY KEY CHECK (char_length(domain) BETWEEN 1 AND 253),
        target      TEXT NOT NULL,
        verified_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 7,
    name: 'api key bans',
    sql: 'ALTER TABLE api_keys ADD COLUMN banned_until TEXT;',
  },
  {
    version: 8,
    name: 'key lifecycle, admin tokens, audit, usage',
    sql: `
      ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL
        DEFAULT 'categories:read categories:write pets:read pets:write orders:read orders:write';
      ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
      ALTER TABLE api_keys ADD COLUMN replaced_by TEXT;
      ALTER TABLE api_keys ADD COLUMN budget_id TEXT;
      ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
      UPDATE api_keys SET budget_id = id;
      ALTER TABLE api_keys ALTER COLUMN budget_id SET NOT NULL;
      CREATE INDEX api_keys_by_budget ON api_keys (budget_id);
      CREATE TABLE admin_tokens (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
        prefix     TEXT NOT NULL,
        digest     TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE TABLE audit_events (
        id      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at      TEXT NOT NULL,
        actor   TEXT NOT NULL,
        action  TEXT NOT NULL,
        target  TEXT NOT NULL,
        details TEXT NOT NULL
      );
      CREATE INDEX audit_events_by_target ON audit_events (target, id);
      CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'audit_events is append-only'; END;
      $$;
      CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_events
        FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
      CREATE TABLE key_usage (
        key_id        TEXT NOT NULL,
        day           TEXT NOT NULL,
        success       BIGINT NOT NULL,
        client_errors BIGINT NOT NULL,
        rate_limited  BIGINT NOT NULL,
        server_errors BIGINT NOT NULL,
        PRIMARY KEY (key_id, day)
      );
      CREATE TABLE key_deprecated_calls (
        key_id         TEXT NOT NULL,
        operation_id   TEXT NOT NULL,
        calls          BIGINT NOT NULL,
        last_called_at TEXT NOT NULL,
        PRIMARY KEY (key_id, operation_id)
      );
    `,
  },
  {
    version: 9,
    name: 'custom domains with states',
    sql: `
      CREATE TABLE domains (
        name                   TEXT PRIMARY KEY CHECK (char_length(name) BETWEEN 1 AND 253),
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
      );
      CREATE UNIQUE INDEX domains_one_primary ON domains (is_primary) WHERE is_primary = 1;
      CREATE INDEX domains_by_next_check ON domains (next_check_at);
      CREATE TABLE domains_version (
        id      INTEGER PRIMARY KEY CHECK (id = 1),
        version INTEGER NOT NULL
      );
      INSERT INTO domains_version (id, version) VALUES (1, 0);
      INSERT INTO domains (name, source, is_primary, state, reason, token, added_at, state_since, checked_at,
                           next_check_at, last_check)
        SELECT domain, 'api', 0, 'verified', 'Verified with petstore domains verify', md5(random()::text || clock_timestamp()::text),
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
        success       BIGINT NOT NULL,
        client_errors BIGINT NOT NULL,
        rate_limited  BIGINT NOT NULL,
        server_errors BIGINT NOT NULL,
        PRIMARY KEY (key_id, hour)
      );
      CREATE INDEX key_usage_hourly_by_hour ON key_usage_hourly (hour);
      CREATE INDEX key_usage_by_day ON key_usage (day);
      CREATE TABLE admin_sessions (
        digest       TEXT PRIMARY KEY,
        token_id     TEXT NOT NULL,
        created_at   TEXT NOT NULL,
        last_seen_at TEXT NOT NULL,
        expires_at   TEXT NOT NULL,
        ended_at     TEXT
      );
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
        previous_secret_until BIGINT,
        created_at            BIGINT NOT NULL,
        updated_at            BIGINT NOT NULL,
        failing_since         BIGINT
      );
      CREATE TABLE webhook_subscriptions (
        event_type  TEXT NOT NULL,
        endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        PRIMARY KEY (event_type, endpoint_id)
      );
      CREATE INDEX webhook_subscriptions_by_endpoint ON webhook_subscriptions (endpoint_id);
      CREATE TABLE webhook_events (
        id         TEXT PRIMARY KEY,
        type       TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        payload    TEXT NOT NULL
      );
      CREATE TABLE webhook_deliveries (
        id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event_id        TEXT NOT NULL REFERENCES webhook_events (id),
        endpoint_id     TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        state           TEXT NOT NULL,
        attempts        INTEGER NOT NULL,
        tries           INTEGER NOT NULL,
        next_attempt_at BIGINT,
        lease_until     BIGINT,
        last_status     INTEGER,
        created_at      BIGINT NOT NULL,
        updated_at      BIGINT NOT NULL
      );
      CREATE UNIQUE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id, endpoint_id);
      CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id);
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
      CREATE TABLE webhook_attempts (
        delivery_id     BIGINT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        attempt         INTEGER NOT NULL,
        at              BIGINT NOT NULL,
        status          INTEGER,
        latency_ms      DOUBLE PRECISION NOT NULL,
        excerpt         TEXT NOT NULL,
        error           TEXT,
        next_attempt_at BIGINT,
        PRIMARY KEY (delivery_id, attempt)
      );
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
      );
      CREATE TABLE oidc_logins (
        state      TEXT PRIMARY KEY,
        binding    TEXT NOT NULL,
        verifier   TEXT NOT NULL,
        nonce      TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      ALTER TABLE admin_sessions
        ALTER COLUMN token_id DROP NOT NULL,
        ADD COLUMN person_id TEXT REFERENCES people (id),
        ADD COLUMN role TEXT CHECK (role IN ('owner', 'admin', 'support', 'viewer')),
        ADD COLUMN refresh_token TEXT,
        ADD COLUMN checked_at TEXT,
        ADD CONSTRAINT admin_sessions_one_principal CHECK ((token_id IS NULL) <> (person_id IS NULL));
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

/** The schema of a database (version 0 when it has none). */
export async function readSchema(client: Queryable): Promise<SchemaState> {
  const { rows } = await client.query<{ table: string | null }>(
    "SELECT to_regclass('schema_migrations')::text AS table",
  );
  if (rows[0]?.table == null) return { version: 0, oldestRelease: '0.0.0' };
  const versions = await client.query<{ version: number; oldest_release?: string | null }>(
    'SELECT * FROM schema_migrations',
  );
  return schemaOf(versions.rows);
}

/** An arbitrary constant naming the migration lock among PostgreSQL's advisory locks. */
const MIGRATION_LOCK = 7_420_113_001;

/**
 * Brings the schema up to the newest version. An advisory lock serialises instances that start at once:
 * the first applies the migrations, the others wait, then find nothing left to do.
 */
export async function migrate(
  client: PoolClient,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM schema_migrations',
    );
    const current = rows[0]?.version ?? 0;
    const applied: number[] = [];
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          migration.version,
          migration.name,
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      applied.push(migration.version);
    }
    if (Math.max(current, ...applied) >= RECORDS_OLDEST_RELEASE) {
      for (const migration of migrations) {
        const release = OLDEST_RELEASE_SERVING[migration.version];
        if (release === undefined) continue;
        await client.query(
          'UPDATE schema_migrations SET oldest_release = $1 WHERE version = $2 AND oldest_release IS NULL',
          [release, migration.version],
        );
      }
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
}
