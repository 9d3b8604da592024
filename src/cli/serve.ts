import { startServer } from '../app/index.js';
import type { Config } from '../config/index.js';
import { createLogger } from '../log/index.js';
import { createStorage } from '../storage/index.js';

/** `petstore serve`: the composition root of the server process. Resolves when the server has stopped. */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger({ level: config.logLevel });
  // Listen for signals before anything starts: a SIGTERM that arrives while the port is opening must still
  // drain and close the storage, not kill the process. Repeated signals while draining are ignored.
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
    process.on('SIGTERM', resolve);
    process.on('SIGINT', resolve);
  });
  const storage = await createStorage(config.storage);
  const server = await startServer({ config, logger, storage });
  logger.info({ url: server.url, storage: storage.kind, env: config.env }, 'serving');

  const signal = await stopSignal;
  logger.info({ signal }, 'draining in-flight requests, then stopping');
  try {
    await server.close();
  } catch (error) {
    logger.error({ err: error }, 'error while stopping');
  }
  logger.info('stopped');
}
