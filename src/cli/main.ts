#!/usr/bin/env node
import { ConfigError, loadConfig } from '../config/index.js';
import { serve } from './serve.js';

const USAGE = `Usage: petstore <command>

Commands:
  serve        Start the HTTP API (the default). Configured by environment variables:
               PORT, HOST, DATABASE_URL, PETSTORE_ENV, PETSTORE_PRODUCTION_URL,
               PETSTORE_STAGING_URL, LOG_LEVEL (see README.md).
  help         Show this message.
`;

/** Exit codes: 0 success, 1 failure at run time (including bad configuration), 2 wrong arguments. */
async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command !== 'serve' || rest.length > 0) {
    process.stderr.write(`petstore: unknown command or argument: ${argv.join(' ')}\n\n${USAGE}`);
    return 2;
  }
  await serve(loadConfig());
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof ConfigError ? error.message : `petstore: ${(error as Error).message}`;
    process.stderr.write(`${message}\n`);
    process.exitCode = 1;
  },
);
