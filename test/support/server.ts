import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import {
  type AppDeps,
  type ComposeOptions,
  composeApp,
  type RunningServer,
  startServer,
} from '../../src/app/index.js';
import { loadConfig } from '../../src/config/index.js';
import type { Role } from '../../src/contract/index.js';
import { createAdminTokenManager } from '../../src/identity/index.js';
import {
  type ApiKeyRecord,
  type CreateKeyInput,
  createKeyManager,
  generateKey,
  keyDigest,
  randomBase62,
} from '../../src/keys/index.js';
import { createLogger } from '../../src/log/index.js';
import { requestLogFile } from '../../src/storage/index.js';
import { type Backend, backendEnvironment, queryPostgres, querySqlite, SQLITE_MEMORY } from './backends.js';
import { keyRecord } from './key-record.js';

export interface TestServer {
  url: string;
  /** The environment the server was configured with (its DATABASE_URL, REDIS_URL and so on). */
  env: Record<string, string>;
  /** The SQLite file the server uses. */
  file: string;
  /** Every log line the server wrote. */
  logs: string[];
  server: RunningServer;
  deps: AppDeps;
  /** A valid `pro` key, created at start. */
  key: string;
  /** Every key created through `createKey`, to check none leaks. */
  issuedKeys: string[];
  /** Runs a read-only query (portable SQL, no parameters) against the server's storage. */
  query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** Everything stored, as text: the raw SQLite files, or every PostgreSQL table's rows, to search for leaks. */
  storedText(): Promise<string>;
  /** Creates a key in the server's store and makes the running server see it at once. */
  createKey(input: CreateKeyInput): Promise<{ id: string; key: string }>;
  /**
   * Stores a `pro` key with the given fields as they are, past the checks of the key manager (an expiry in
   * the past, say), and makes the running server see it; returns the key.
   */
  insertKey(fields: Partial<ApiKeyRecord>): Promise<string>;
  /** Revokes a key and makes the running server see it at once. */
  revokeKey(id: string): Promise<void>;
  /** Creates an admin token (as `petstore admin-tokens create` does) and makes the running server see it. */
  createAdminToken(name?: string, role?: Role): Promise<{ id: string; token: string }>;
  /** A request to the admin API with `Authorization: Bearer <token>`; `path` is below `/admin/v1`. */
  admin(token: string, path: string, init?: RequestInitLike & { json?: unknown }): Promise<JsonResponse>;
  /** A request to a path of this server, with `Authorization: Bearer <key>` unless headers say otherwise. */
  call(pathAndQuery: string, init?: RequestInitLike): Promise<JsonResponse>;
  /** POSTs a JSON body with the key. */
  post(pathAndQuery: string, body: unknown, headers?: Record<string, string>): Promise<JsonResponse>;
  close(): Promise<void>;
}

export interface RequestInitLike {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** `manual` answers a redirect itself, where fetch would follow it. */
  redirect?: 'follow' | 'manual';
}

/** A fresh temporary directory, removed by the returned function. */
export function tempDir(prefix = 'petstore-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The data directory of a test server that names none: the directory of its SQLite file, where a server may
 * create the file (it creates one nowhere else), else `fallback`.
 */
export function dataDirFor(env: Record<string, string>, fallback: string): string {
  const url = env.DATABASE_URL;
  return url?.startsWith('sqlite:') ? path.dirname(path.resolve(url.slice('sqlite:'.length))) : fallback;
}

/**
 * Starts the real service in this process on port 0 with a new SQLite file, composed exactly as
 * `petstore serve` composes it, capturing its JSON log lines.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  options: ComposeOptions & { configFile?: Record<string, unknown>; backend?: Backend } = {},
): Promise<TestServer> {
  const { dir, remove } = tempDir();
  const file = path.join(dir, 'petstore.db');
  const backend = await backendEnvironment(options.backend ?? SQLITE_MEMORY, file);
  const fileEnv: Record<string, string> = {};
  if (options.configFile !== undefined) {
    fileEnv.PETSTORE_CONFIG = path.join(dir, 'petstore.json');
    writeFileSync(fileEnv.PETSTORE_CONFIG, JSON.stringify(options.configFile));
  }
  const given = { PORT: '0', LOG_LEVEL: 'info', ...backend.env, ...fileEnv, ...env };
  const config = loadConfig({ PETSTORE_DATA_DIR: dataDirFor(given, dir), ...given });
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      callback();
    },
  });
  const logger = createLogger({ level: config.logLevel, destination });
  const deps = await composeApp(config, logger, options);
  const server = await startServer(deps);
  const manager = createKeyManager({ apiKeys: deps.storage.apiKeys, env: config.env, clock: deps.clock });
  const issuedKeys: string[] = [];

  async function createKey(input: CreateKeyInput) {
    const { record, key } = await manager.create(input);
    issuedKeys.push(key);
    await deps.authenticator.refresh();
    return { id: record.id, key };
  }
  const { key } = await createKey({ plan: 'pro', name: 'test' });

  const adminTokens = createAdminTokenManager({ adminTokens: deps.storage.adminTokens, clock: deps.clock });
  async function createAdminToken(name?: string, role: Role = 'owner') {
    const { record, token } = await adminTokens.create(name, role);
    issuedKeys.push(token);
    await deps.adminAuthenticator.refresh();
    return { id: record.id, token };
  }

  async function insertKey(fields: Partial<ApiKeyRecord>) {
    const raw = generateKey(config.env);
    const id = `key_${randomBase62(12)}`;
    const record = keyRecord(id, {
      name: 'inserted',
      plan: 'pro',
      env: config.env,
      prefix: raw.slice(0, 12),
      digest: keyDigest(raw),
      createdAt: new Date(deps.clock.now()).toISOString(),
      ...fields,
    });
    const audit = {
      at: record.createdAt,
      actor: 'test',
      action: 'key.created' as const,
      target: id,
      details: {},
    };
    await deps.storage.apiKeys.insert(record, audit);
    issuedKeys.push(raw);
    await deps.authenticator.refresh();
    return raw;
  }

  const call = (pathAndQuery: string, init: RequestInitLike = {}) =>
    request(`${server.url}${pathAndQuery}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...init.headers },
    });

  const storageUrl = config.storage.kind === 'postgres' ? config.storage.url : undefined;
  async function query<T>(sql: string): Promise<T[]> {
    return storageUrl === undefined ? querySqlite<T>(file, sql) : queryPostgres<T>(storageUrl, sql);
  }

  return {
    url: server.url,
    env: { ...backend.env, ...fileEnv, ...env },
    query,
    async storedText() {
      // The request log's rows reach their store within a flush; they are searched too.
      await deps.requestLog?.flush();
      if (storageUrl === undefined) {
        return [file, requestLogFile(file)]
          .flatMap((base) => ['', '-wal'].map((suffix) => `${base}${suffix}`))
          .map((name) => (existsSync(name) ? readFileSync(name).toString('latin1') : ''))
          .join('\n');
      }
      const tables = [
        'categories',
        'pets',
        'orders',
        'api_keys',
        'api_keys_version',
        'admin_tokens',
        'audit_events',
        'key_usage',
        'key_deprecated_calls',
        'idempotency_records',
        'schema_migrations',
        ...(deps.requestLog === undefined ? [] : ['request_log']),
      ];
      const rows = await Promise.all(tables.map((table) => query(`SELECT * FROM ${table}`)));
      return JSON.stringify(rows);
    },
    file,
    logs,
    server,
    deps,
    key,
    issuedKeys,
    createKey,
    insertKey,
    async revokeKey(id) {
      await manager.revoke(id);
      await deps.authenticator.refresh();
    },
    createAdminToken,
    admin: (token, path, { json, ...init } = {}) =>
      request(`${server.url}/admin/v1${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${token}`,
          ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
          ...init.headers,
        },
        ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
      }),
    call,
    post: (pathAndQuery, body, headers = {}) =>
      call(pathAndQuery, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
    async close() {
      await server.close();
      await backend.cleanup();
      remove();
    },
  };
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is empty or not JSON. */
  body: unknown;
}

/** Sends a request and reads the whole answer. */
export async function request(url: string, init: RequestInitLike = {}): Promise<JsonResponse> {
  const response = await fetch(url, init as RequestInit);
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/**
 * What is served at `path` (`/openapi.json`, `/admin/openapi.json`), which must answer 200, and where from: by
 * `server`, or by a new server of its own, closed again once it answered.
 */
export async function servedText(
  path: string,
  server?: { url: string },
): Promise<{ url: string; text: string }> {
  const own = server === undefined ? await startTestServer() : undefined;
  try {
    const url = `${(server ?? (own as TestServer)).url}${path}`;
    const response = await fetch(url);
    assert.equal(response.status, 200, `GET ${path}`);
    return { url, text: await response.text() };
  } finally {
    await own?.close();
  }
}

/** The JSON document served at `path` (`servedText`), parsed. */
export async function servedDocument<T>(path: string, server?: { url: string }): Promise<T> {
  return JSON.parse((await servedText(path, server)).text) as T;
}

/**
 * A GET over node:http with a caller's agent, reading the whole answer; returns the status. For loads where
 * the number of sockets matters (fetch shares one pool per process).
 */
export function getStatus(url: string, headers: Record<string, string>, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = http.get(url, { agent, headers }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    sent.on('error', reject);
  });
}

export interface HostAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A GET with a chosen Host header, which fetch does not allow to set. */
export function getWithHost(
  baseUrl: string,
  host: string,
  pathAndQuery: string,
  headers: Record<string, string> = {},
): Promise<HostAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const sent = http.get(
      { hostname, port, path: pathAndQuery, headers: { ...headers, host }, agent: false },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    sent.on('error', reject);
  });
}
