import fs from 'node:fs';
import path from 'node:path';
import { composeApp, startServer } from '../app/index.js';
import type { Config } from '../config/index.js';
import { createKeyManager, type IssuedKey } from '../keys/index.js';
import { createLogger, type Logger, printableUrl } from '../log/index.js';
import type { Storage } from '../storage/index.js';

/** The file the first key of the default database is written to when no terminal shows it, in the data directory. */
export const FIRST_KEY_FILE = 'first-api-key.txt';

/**
 * The name of the first key's file for the database the configuration names: `first-api-key.txt` for the
 * default database, else named after the database (`first-api-key.orders.txt` for `sqlite:/srv/orders.db`,
 * `first-api-key.petstore.txt` for `postgres://…/petstore`), so that the first start of another database
 * does not meet the default one's file.
 */
export function firstKeyFileName(config: Pick<Config, 'storage' | 'dataDir'>): string {
  const { storage } = config;
  let name: string;
  if (storage.kind === 'sqlite') {
    if (storage.isDefault || path.resolve(storage.file) === path.resolve(config.dataDir, 'petstore.db')) {
      return FIRST_KEY_FILE;
    }
    name = path.basename(storage.file).replace(/\.(db|sqlite3?)$/i, '');
  } else {
    name = decodeURIComponent(new URL(storage.url).pathname.slice(1));
  }
  return `first-api-key.${name.replace(/[^A-Za-z0-9_-]/g, '_') || 'database'}.txt`;
}

/**
 * Writes the first key's file, readable by this user only from the start, and never over a file that is
 * there: that may hold the only copy of another database's first key (one whose file was not yet deleted,
 * or the default database's when a mistyped DATABASE_URL named another). Then the key goes to a file named
 * after its id instead. Returns the file written, and the one that was there.
 */
function writeFirstKeyFile(dir: string, name: string, id: string, text: string) {
  const preferred = path.join(dir, name);
  try {
    fs.writeFileSync(preferred, text, { mode: 0o600, flag: 'wx' });
    return { file: preferred };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const file = path.join(dir, `first-api-key.${id}.txt`);
  fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
  return { file, kept: preferred };
}

/** The words that come with the first key, wherever it is shown. */
function firstKeyText({ record, key }: IssuedKey): string {
  return (
    `Created the first API key, ${record.id} (plan pro):\n\n  ${key}\n\n` +
    'It will not be shown again: store it now. Send it as: Authorization: Bearer <key>\n' +
    'More keys: petstore keys create --plan free|pro|business|enterprise\n'
  );
}

/**
 * First start of a fresh database, whatever DATABASE_URL names: with no key at all the API could not be
 * used, so create one `pro` key and show it, once. Of instances starting at once on one database, exactly
 * one creates it. It never goes to stdout, which carries the JSON log lines that log shippers keep: to the
 * terminal (stderr) when there is one, else to a new file only this user can read, in the data directory,
 * which stderr names (firstKeyFileName, writeFirstKeyFile).
 */
async function createFirstKey(
  config: Config,
  storage: Storage,
  terminal: NodeJS.WriteStream,
): Promise<boolean> {
  const created = await createKeyManager({ apiKeys: storage.apiKeys, env: config.env }).createFirst({
    plan: 'pro',
    name: 'first key',
  });
  if (created === undefined) return false;
  if (terminal.isTTY) {
    terminal.write(`\n${firstKeyText(created)}\n`);
    return true;
  }
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const { file, kept } = writeFirstKeyFile(
    config.dataDir,
    firstKeyFileName(config),
    created.record.id,
    `${firstKeyText(created)}Delete this file once the key is stored.\n`,
  );
  const beside = kept === undefined ? '' : `; ${kept} was there already and is left as it is`;
  terminal.write(
    `petstore: created the first API key, ${created.record.id}; it is in ${file} (readable by this user only${beside}): store it, then delete the file\n`,
  );
  return true;
}

/** Where the data and the limits of this instance live, fit for its start line: no password. */
function backends(config: Config) {
  const { storage, rateLimitStore } = config;
  return {
    database: storage.kind === 'sqlite' ? path.resolve(storage.file) : printableUrl(storage.url),
    limits: rateLimitStore.kind === 'redis' ? printableUrl(rateLimitStore.url) : 'memory',
  };
}

/** `petstore serve`: starts the server and resolves once SIGTERM or SIGINT has drained it. */
export async function serve(config: Config): Promise<void> {
  const logger: Logger = createLogger({ level: config.logLevel });
  // Listen for signals before anything starts: a SIGTERM that arrives while the port is opening must still
  // drain and close the storage, not kill the process. Repeated signals while draining are ignored.
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
    process.on('SIGTERM', resolve);
    process.on('SIGINT', resolve);
  });
  // SIGHUP re-reads the config file's domains (the file is also watched): a removed domain stops being served
  // at once. Listened for from the start too, so that one arriving while the app is composed does not kill it.
  let reloadDomains: (() => void) | undefined;
  process.on('SIGHUP', () => reloadDomains?.());
  const deps = await composeApp(config, logger);
  reloadDomains = () => deps.domains.reloader.reload('SIGHUP');
  const server = await startServer(deps);
  // Only once the server listens: a start that fails (its port taken, say) leaves no key behind unseen.
  if (await createFirstKey(config, deps.storage, process.stderr)) await deps.authenticator.refresh();
  logger.info(
    { url: server.url, storage: deps.storage.kind, ...backends(config), env: config.env },
    'serving',
  );

  const signal = await stopSignal;
  logger.info({ signal }, 'draining in-flight requests, then stopping');
  try {
    await server.close();
  } catch (error) {
    logger.error({ err: error }, 'error while stopping');
  }
  logger.info('stopped');
}
