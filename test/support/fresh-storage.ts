import path from 'node:path';
import type { StorageConfig } from '../../src/storage/index.js';
import { createTestDatabase } from './backends.js';
import { tempDir } from './server.js';

/** A fresh, empty store to open with `createStorage(config, { createDatabase: true })`; `drop` removes it. */
export interface FreshStore {
  config: StorageConfig;
  drop(): Promise<void>;
}

/** A fresh store of each kind: a SQLite file in a directory of its own, or a new PostgreSQL database. */
export const FRESH_STORES: Record<'sqlite' | 'postgres', () => Promise<FreshStore>> = {
  async sqlite() {
    const { dir, remove } = tempDir('petstore-store-');
    return {
      config: { kind: 'sqlite', file: path.join(dir, 'store.db'), isDefault: false, dataDir: dir },
      drop: async () => remove(),
    };
  },
  async postgres() {
    const database = await createTestDatabase();
    return { config: { kind: 'postgres', url: database.url, poolSize: 4 }, drop: database.drop };
  },
};
