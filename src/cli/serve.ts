import { composeApp, startServer } from '../app/index.js';
import type { Config } from '../config/index.js';
import { createKeyManager } from '../keys/index.js';
import { createLogger } from '../log/index.js';
import type { Storage } from '../storage/index.js';

/**
 * First start of a fresh database, whatever DATABASE_URL names: with no key at all the API could not be
 * used, so create one `pro` key and print it, once, on stdout (not through the logger, which never sees
 * keys). Of instances starting at once on one database, exactly one creates it.
 */
async function createFirstKey(
  config: Config,
  storage: Storage,
  out: NodeJS.WritableStream,
): Promise<boolean> {
  const created = await createKeyManager({ apiKeys: storage.apiKeys, env: config.env }).createFirst({
    plan: 'pro',
    name: 'first key',
  });
  if (created === undefined) return false;
  const { record, key } = created;
  out.write(
    `\nCreated the first API key, ${record.id} (plan pro):\n\n  ${key}\n\n` +
      'It will not be shown again: store it now. Send it as: Authorization: Bearer <key>\n' +
      'More keys: npx petstore keys create --plan free|pro|business|enterprise\n\n',
  );
  return true;
}

/** `petstore serve`: starts the server and resolves once SIGTERM or SIGINT has drained it. */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger({ level: config.logLevel });
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
  if (await createFirstKey(config, deps.storage, process.stdout)) await deps.authenticator.refresh();
  const server = await startServer(deps);
  logger.info({ url: server.url, storage: deps.storage.kind, env: config.env }, 'serving');

  const signal = await stopSignal;
  logger.info({ signal }, 'draining in-flight requests, then stopping');
  try {
    await server.close();
  } catch (error) {
    logger.error({ err: error }, 'error while stopping');
  }
  logger.info('stopped');
}
