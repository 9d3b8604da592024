// Runs the compiled test files, several side by side, each in a `node --test` process of its own with the
// summary reporter; a file's output is printed whole when it ends, so files never interleave. Every file
// already has its own port, SQLite file, PostgreSQL database and Redis prefix, so files share nothing; the
// slowest start first, so the run ends soon after its longest file does.
//
// Node 20 searches a directory given to --test; Node 22 and later take glob patterns there instead and no
// longer search directories, so the files are listed here, the same way on every Node. Arguments narrow the
// run to the files whose path starts with one of them: `node test/support/run-tests.mjs dist/test/cli`.
// TEST_CONCURRENCY sets how many files run at once (default: the CPUs, at least 2; 1 runs them one by one).
// A file that runs past TEST_FILE_MINUTES (default 20) is killed with everything it started, and fails with
// the output it wrote so far: a hung file costs one failure, never the whole run.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join('dist', 'test');
/** Each file's duration in the last run on this checkout, to start the slowest first. */
const DURATIONS = path.join(ROOT, 'durations.json');

/**
 * Files known to take long on a cold checkout (a clean clone has no durations.json): about their share of a
 * run on a 2-vCPU machine, in seconds. Any file not named counts as short.
 */
const KNOWN_SLOW = {
  // The ten slowest of CI's Node 24 pass on 2026-11-28 (2 vCPUs, 2 files at a time, 727 s in all).
  'process/crash.test.js': 107,
  'cli/keys.test.js': 92,
  'process/idempotency-crash.test.js': 79,
  'docs/browser.test.js': 71,
  'reference/browser.test.js': 66,
  'scale/instances.test.js': 61,
  'property/requests.property.test.js': 59,
  'scale/usage.test.js': 51,
  'process/shutdown.test.js': 43,
  'backup/backup.test.js': 39,
  // Below those, by the folder (a quiet run here: 20 to 35 s a file).
  'console/': 35,
  'install/pack.test.js': 35,
  'cli/': 30,
  'scale/': 30,
  'process/': 25,
  'upgrade/rolling.test.js': 20,
  'domains/lifecycle.test.js': 20,
  'copy/': 20,
};

const prefixes = process.argv.slice(2);
const files = readdirSync(ROOT, { recursive: true })
  .map((file) => path.join(ROOT, String(file)))
  .filter((file) => file.endsWith('.test.js'))
  .filter((file) => prefixes.length === 0 || prefixes.some((prefix) => file.startsWith(prefix)));
if (files.length === 0) {
  process.stderr.write(`No test files under ${ROOT} match ${prefixes.join(', ')}\n`);
  process.exit(1);
}

const concurrency = Math.max(
  1,
  Number(process.env.TEST_CONCURRENCY) || Math.max(2, os.availableParallelism()),
);
const fileLimitMs = (Number(process.env.TEST_FILE_MINUTES) || 20) * 60_000;

let previous = {};
try {
  previous = JSON.parse(readFileSync(DURATIONS, 'utf8'));
} catch {
  // A clean checkout: the known slow files go first.
}
const expected = (file) => {
  const relative = path.relative(ROOT, file);
  if (typeof previous[relative] === 'number') return previous[relative];
  const known = Object.entries(KNOWN_SLOW).find(([prefix]) => relative.startsWith(prefix));
  return known === undefined ? 1 : known[1];
};
const queue = [...files].sort((a, b) => expected(b) - expected(a) || a.localeCompare(b));

/** Runs one file; resolves with its output, its counts and its duration. */
function runFile(file) {
  const started = performance.now();
  return new Promise((resolve) => {
    // A process group of its own, so that a file past its time is killed with its servers and browsers.
    const child = spawn(
      process.execPath,
      ['--test', '--test-reporter=./test/support/summary-reporter.mjs', file],
      { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    const chunks = [];
    let timedOut = false;
    const watchdog = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }, fileLimitMs);
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('close', (code, signal) => {
      clearTimeout(watchdog);
      let output = Buffer.concat(chunks).toString('utf8');
      if (timedOut) output += `\nFAILED: ${file} ran past ${fileLimitMs / 60_000} minutes and was killed\n`;
      const counts = /^(\d+) passed, (\d+) failed/m.exec(output.split('\n').filter(Boolean).at(-1) ?? '');
      const failed = counts === null ? 0 : Number(counts[2]);
      resolve({
        file,
        output,
        seconds: (performance.now() - started) / 1000,
        passed: counts === null ? 0 : Number(counts[1]),
        // A file that exits in error with no failed test (a crash, a signal, an error outside any test) is one.
        failed: code !== 0 && failed === 0 ? 1 : failed,
        code: code ?? signal,
      });
    });
  });
}

const started = performance.now();
const results = [];
async function worker() {
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const result = await runFile(file);
    results.push(result);
    const summary = result.output.replace(/\n\d+ passed, \d+ failed.*\n*$/, '\n');
    process.stdout.write(`\n# ${path.relative(ROOT, file)} (${result.seconds.toFixed(1)} s)\n${summary}`);
    if (result.code !== 0 && !/^FAILED: /m.test(result.output)) {
      process.stdout.write(`# ${path.relative(ROOT, file)} exited with ${result.code}\n`);
    }
  }
}
await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));

const durations = { ...previous };
for (const result of results) durations[path.relative(ROOT, result.file)] = Math.round(result.seconds);
writeFileSync(DURATIONS, `${JSON.stringify(durations, null, 2)}\n`);

const slowest = [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 10);
const total = (performance.now() - started) / 1000;
process.stdout.write(
  `\n# ${files.length} files, ${concurrency} at a time, in ${total.toFixed(0)} s; the slowest:\n${slowest
    .map((result) => `#   ${result.seconds.toFixed(1).padStart(6)} s  ${path.relative(ROOT, result.file)}`)
    .join('\n')}\n`,
);
const failedFiles = results.filter((result) => result.failed > 0);
for (const result of failedFiles) {
  process.stdout.write(`\n# failed in ${path.relative(ROOT, result.file)}\n`);
  const details = result.output.indexOf('\nFAILED: ');
  process.stdout.write(details === -1 ? result.output.slice(-4000) : result.output.slice(details));
}
const passed = results.reduce((sum, result) => sum + result.passed, 0);
const failed = results.reduce((sum, result) => sum + result.failed, 0);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed > 0 ? 1 : 0);
