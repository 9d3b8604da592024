import { packageFile } from '../config/index.js';
import { API_VERSION } from '../contract/index.js';
import {
  createStorage,
  OLDEST_RELEASE_SERVING,
  SCHEMA_VERSION,
  StorageNotFoundError,
} from '../storage/index.js';
import { parseOptions, UsageError } from './args.js';
import { type Command, MIGRATE_OPTIONS } from './commands.js';

/** The releases of `releases.json`, shipped beside CHANGELOG.md. */
interface Release {
  version: string;
  commit: string | null;
  schema: number;
}

function releases(): Release[] {
  const file = packageFile('releases.json');
  return file === undefined ? [] : (JSON.parse(file) as { releases: Release[] }).releases;
}

/** `petstore migrate [--check]`: returns the exit code. */
export const migrateCommand: Command = async (args, config, out) => {
  const { values, positionals } = parseOptions(args, MIGRATE_OPTIONS, 'migrate');
  if (positionals.length > 0)
    throw new UsageError(`migrate takes no arguments: ${positionals.join(' ')}`, 'migrate');
  if (values.check !== true) {
    const storage = await createStorage(config.storage, { createDatabase: true });
    await storage.close();
    const applied = storage.migrationsApplied;
    out.write(
      applied.length === 0
        ? `The ${storage.kind} schema is up to date.\n`
        : `Applied ${storage.kind} migrations ${applied.join(', ')}.\n`,
    );
    return 0;
  }

  let storage: Awaited<ReturnType<typeof createStorage>>;
  try {
    storage = await createStorage(config.storage, { mustExist: true, migrate: false });
  } catch (error) {
    if (!(error instanceof StorageNotFoundError)) throw error;
    out.write(`No Pet Store database at ${error.where}: petstore migrate creates it.\n`);
    return 1;
  }
  await storage.close();
  const { version, oldestRelease } = storage.schema;
  const madeBy = releases()
    .filter((release) => release.schema === version)
    .map((release) => release.version);
  const at = `The ${storage.kind} schema is at version ${version}${madeBy.length > 0 ? ` (release ${madeBy.join(', ')})` : ''}`;
  if (version === SCHEMA_VERSION) {
    out.write(`${at}: up to date for release ${API_VERSION}.\n`);
    return 0;
  }
  if (version > SCHEMA_VERSION) {
    out.write(
      `${at}, newer than release ${API_VERSION}'s ${SCHEMA_VERSION}; served by release ${oldestRelease} and later, this one included.\n`,
    );
    return 0;
  }
  const due = Object.keys(OLDEST_RELEASE_SERVING)
    .map(Number)
    .filter((next) => next > version);
  out.write(
    `${at}; release ${API_VERSION} is at ${SCHEMA_VERSION}: ${due.length} migration${due.length === 1 ? '' : 's'} due (${due.join(', ')}). Run petstore migrate.\n`,
  );
  return 1;
};
