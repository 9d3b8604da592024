#!/usr/bin/env node
import { ConfigError, loadConfig } from '../config/index.js';
import { createStorage } from '../storage/index.js';
import { DOMAINS_USAGE, domainsCommand } from './domains.js';
import { KEYS_USAGE, keysCommand, UsageError } from './keys.js';
import { serve } from './serve.js';

const USAGE = `Usage: petstore <command>

Commands:
  serve        Start the HTTP API (the default). Configured by environment variables:
               PORT, HOST, DATABASE_URL, DATABASE_POOL_SIZE, REDIS_URL, REDIS_PREFIX,
               RATE_LIMIT_FAIL, PETSTORE_ENV, PETSTORE_PRODUCTION_URL, PETSTORE_STAGING_URL,
               PETSTORE_CONFIG, TRUST_PROXY, LOG_LEVEL (see README.md).
  migrate      Bring the schema of DATABASE_URL up to date, then exit (servers also do this at start;
               concurrent runs are safe).
  keys         Manage API keys (the same configuration as the server):
${KEYS_USAGE.replace(/^/gm, '    ')}
  domains      Verify a custom domain's DNS (records the verification in DATABASE_URL):
${DOMAINS_USAGE.replace(/^/gm, '    ')}
  help         Show this message.
`;

/** Exit codes: 0 success, 1 failure at run time (including bad configuration), 2 wrong arguments. */
async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  switch (command) {
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return 0;
    case 'serve':
      if (rest.length > 0) throw new UsageError(`serve takes no arguments: ${rest.join(' ')}`);
      await serve(loadConfig());
      return 0;
    case 'keys':
      return keysCommand(rest, loadConfig(), process.stdout);
    case 'domains':
      return domainsCommand(rest, loadConfig(), process.stdout);
    case 'migrate': {
      if (rest.length > 0) throw new UsageError(`migrate takes no arguments: ${rest.join(' ')}`);
      const storage = await createStorage(loadConfig().storage);
      const applied = storage.migrationsApplied;
      await storage.close();
      process.stdout.write(
        applied.length === 0
          ? `The ${storage.kind} schema is up to date.\n`
          : `Applied ${storage.kind} migrations ${applied.join(', ')}.\n`,
      );
      return 0;
    }
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`petstore: ${error.message}\n\n${USAGE}`);
      process.exitCode = 2;
      return;
    }
    const message = error instanceof ConfigError ? error.message : `petstore: ${(error as Error).message}`;
    process.stderr.write(`${message}\n`);
    process.exitCode = 1;
  },
);
