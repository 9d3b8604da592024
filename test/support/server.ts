import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { type RunningServer, startServer } from '../../src/app/index.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/log/index.js';
import { createStorage } from '../../src/storage/index.js';

export interface TestServer {
  url: string;
  /** The SQLite file the server uses. */
  file: string;
  /** Every log line the server wrote. */
  logs: string[];
  server: RunningServer;
  close(): Promise<void>;
}

/** A fresh temporary directory, removed by the returned function. */
export function tempDir(prefix = 'petstore-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Starts the real service in this process on port 0 with a new SQLite file, exactly as `petstore serve`
 * composes it, capturing its JSON log lines.
 */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const { dir, remove } = tempDir();
  const file = path.join(dir, 'petstore.db');
  const config = loadConfig({ PORT: '0', DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'info', ...env });
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      callback();
    },
  });
  const logger = createLogger({ level: config.logLevel, destination });
  const storage = await createStorage(config.storage);
  const server = await startServer({ config, logger, storage });
  return {
    url: server.url,
    file,
    logs,
    server,
    async close() {
      await server.close();
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
export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<JsonResponse> {
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

/** POSTs a JSON body. */
export function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  return call(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}
