import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const LOG_MODULE = pathToFileURL(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/log/index.js'),
).href;

/**
 * Runs `body` in a fresh process whose logger writes to stdout (a pipe, as under a supervisor), and
 * collects what reached the pipe.
 */
async function runLogging(
  body: string,
): Promise<{ lines: { msg: string; n?: number }[]; code: number | null }> {
  const script = `import { createLogger } from ${JSON.stringify(LOG_MODULE)};
const logger = createLogger({ level: 'info' });
${body}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (!child.stdout.readableEnded) await once(child.stdout, 'end');
  const lines = out
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { msg: string; n?: number });
  return { lines, code };
}

const numbered = (lines: { n?: number }[]) =>
  lines.filter((line) => line.n !== undefined).map((line) => line.n);
const upTo = (count: number) => Array.from({ length: count }, (_, n) => n);

describe('the logger on stdout', () => {
  test('writes every line, in order, across many turns of the event loop', async () => {
    const { lines, code } = await runLogging(`
for (let turn = 0; turn < 200; turn++) {
  for (let i = 0; i < 100; i++) logger.info({ n: turn * 100 + i }, 'line');
  await new Promise((resolve) => setImmediate(resolve));
}`);
    assert.equal(code, 0);
    assert.deepEqual(numbered(lines), upTo(20_000));
  });

  test('lines of every length, in any script, arrive whole and in order', async () => {
    // Batches are bytes: a line is encoded into one as it comes. 100,000 characters may take more bytes than
    // a batch holds (256 KiB), so that line goes alone. Each text is a piece and its repeat count, which the
    // child rebuilds from the same list.
    const pieces: [string, number][] = [
      ['plain', 1],
      ['Grüße', 1],
      ['€', 5000],
      ['a', 100_000],
      ['🐈', 20000],
      ['中文', 12000],
    ];
    const texts = pieces.map(([piece, times]) => piece.repeat(times));
    const { lines, code } = await runLogging(`
const texts = ${JSON.stringify(pieces)}.map(([piece, times]) => piece.repeat(times));
for (let i = 0; i < 600; i++) logger.info({ n: i, text: texts[i % texts.length] }, 'line');`);
    assert.equal(code, 0);
    assert.deepEqual(numbered(lines), upTo(600));
    lines.forEach((line, index) => {
      assert.equal((line as { text?: string }).text, texts[index % texts.length], `line ${index}`);
    });
  });

  test('lines a writer encodes itself arrive whole, in order among the logger’s, in its shape', async () => {
    // 3,000 lines of about 200 bytes fill a batch (256 KiB) twice over; one in 500 is longer than a batch.
    const { lines, code } = await runLogging(`
import { ownLines } from ${JSON.stringify(LOG_MODULE)};
const { write, opening, bindings } = ownLines(logger, 'info');
for (let i = 0; i < 3000; i++) {
  if (i % 2 === 0) { logger.info({ n: i }, 'line'); continue; }
  const text = i % 500 === 1 ? 'x'.repeat(300_000) : 'y'.repeat(150);
  const line = Buffer.from(opening + Date.now() + bindings + ',"n":' + i + ',"text":"' + text + '","msg":"own"}\\n');
  write(line.length, (buffer, at) => at + line.copy(buffer, at));
  if (i % 700 === 0) await new Promise((resolve) => setImmediate(resolve));
}`);
    assert.equal(code, 0);
    assert.deepEqual(numbered(lines), upTo(3000));
    const own = lines.filter((line) => line.msg === 'own') as Record<string, unknown>[];
    assert.equal(own.length, 1500);
    for (const line of own) {
      assert.deepEqual(Object.keys(line).slice(0, 3), ['level', 'time', 'pid']);
      assert.equal(line.level, 30);
      assert.equal((line.text as string).length, (line.n as number) % 500 === 1 ? 300_000 : 150);
    }
  });

  test('a crash loses none of the lines logged in its own turn, nor those of the turn before', async () => {
    // Small enough for the pipe to take at once: a write still in flight at exit would be the kernel's.
    const { lines, code } = await runLogging(`
for (let i = 0; i < 100; i++) logger.info({ n: i }, 'line');
await new Promise((resolve) => setImmediate(resolve));
for (let i = 100; i < 110; i++) logger.info({ n: i }, 'line');
process.on('uncaughtException', (error) => { logger.fatal({ err: error }, 'crashed'); process.exit(70); });
setTimeout(() => { logger.info({ n: 110 }, 'line'); throw new Error('boom'); });`);
    assert.equal(code, 70);
    assert.deepEqual(numbered(lines), upTo(111));
    assert.equal(lines.at(-1)?.msg, 'crashed');
  });

  test('a line reaches stdout while the process runs on, without waiting for more lines or for exit', async () => {
    const script = `import { createLogger } from ${JSON.stringify(LOG_MODULE)};
createLogger({ level: 'info' }).info('alone');
setTimeout(() => {}, 60_000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [chunk] = (await once(child.stdout, 'data', { signal: AbortSignal.timeout(5000) })) as [Buffer];
      assert.equal(JSON.parse(chunk.toString()).msg, 'alone');
      assert.equal(child.exitCode, null);
    } finally {
      child.kill();
    }
  });

  test('process.exit right after logging still writes the line', async () => {
    const { lines, code } = await runLogging(`logger.info({ n: 0 }, 'last words'); process.exit(3);`);
    assert.equal(code, 3);
    assert.deepEqual(
      lines.map((line) => line.msg),
      ['last words'],
    );
  });
});
