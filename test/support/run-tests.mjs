// Runs the compiled test files, one file at a time, with the summary reporter. Node 20 searches a directory
// given to --test; Node 22 and later take glob patterns there instead and no longer search directories, so
// the files are listed here, the same way on every Node. Arguments narrow the run to the files whose path
// starts with one of them: `node test/support/run-tests.mjs dist/test/cli`.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join('dist', 'test');
const prefixes = process.argv.slice(2);
const files = readdirSync(ROOT, { recursive: true })
  .map((file) => path.join(ROOT, String(file)))
  .filter((file) => file.endsWith('.test.js'))
  .filter((file) => prefixes.length === 0 || prefixes.some((prefix) => file.startsWith(prefix)))
  .sort();
if (files.length === 0) {
  process.stderr.write(`No test files under ${ROOT} match ${prefixes.join(', ')}\n`);
  process.exit(1);
}
const run = spawnSync(
  process.execPath,
  ['--test', '--test-concurrency=1', '--test-reporter=./test/support/summary-reporter.mjs', ...files],
  { stdio: 'inherit' },
);
process.exit(run.status ?? 1);
