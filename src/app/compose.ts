import type { Config } from '../config/index.js';
import { createAuthenticator } from '../keys/index.js';
import type { Logger } from '../log/index.js';
import { createStorage } from '../storage/index.js';
import type { AppDeps } from './app.js';

/** The composition root: builds every dependency of the app once, from the configuration. */
export async function composeApp(config: Config, logger: Logger): Promise<AppDeps> {
  const storage = await createStorage(config.storage);
  try {
    const authenticator = createAuthenticator({ storage, env: config.env, logger });
    await authenticator.start();
    return { config, logger, storage, authenticator };
  } catch (error) {
    await storage.close();
    throw error;
  }
}
