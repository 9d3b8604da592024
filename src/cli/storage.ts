import type { Config } from '../config/index.js';
import { createStorage, type Storage, StorageNotFoundError } from '../storage/index.js';

/**
 * Opens the database a server made, for commands other than `serve` and `migrate`: they never create one.
 * A missing database is refused with where it was looked for and how to point elsewhere, rather than
 * answered from a new, empty one.
 */
export async function openExistingStorage(config: Config): Promise<Storage> {
  try {
    return await createStorage(config.storage, { mustExist: true });
  } catch (error) {
    if (!(error instanceof StorageNotFoundError)) throw error;
    const found =
      error.reason === 'missing'
        ? `no database at ${error.where}${config.storage.kind === 'sqlite' && config.storage.isDefault ? ' (the default: DATABASE_URL is unset)' : ''}`
        : `${error.where} holds no Pet Store schema`;
    throw new Error(
      `${found}. Start the server once or run 'petstore migrate' to create it there, or set DATABASE_URL to the database your server uses (sqlite:/path/to/file.db or postgres://user@host/db).`,
    );
  }
}
