import { startServer } from '../app/index.js';
import type { Config } from '../config/index.js';
import { createLogger } from '../log/index.js';
import { createStorage } from '../storage/index.js';

/** `petstore serve`: the composition root of the server process. Resolves when the server has stopped. */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger({ level: config.logLevel });
  const storage = await createStorage(config.storage);
  const server = await startServer({ config, logger, storage });
  logger.info({ url: server.url, storage: storage.kind, env: config.env }, 'serving');

  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'draining in-flight requests, then stopping');
      server.close().then(resolve, (error: unknown) => {
        logger.error({ err: error }, 'error while stopping');
        resolve();
      });
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  logger.info('stopped');
}
