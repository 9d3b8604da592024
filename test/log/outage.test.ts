import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger, createOutageLog, OUTAGE_REMINDER_MS } from '../../src/log/index.js';

test('an outage is said when it starts, at most every 30 s while it lasts, and when it ends', () => {
  const lines: { level: number; msg: string; downForSeconds?: number; failures?: number }[] = [];
  const logger = createLogger({
    level: 'info',
    destination: new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  });
  let now = 1_000_000;
  const outage = createOutageLog({
    logger,
    dependency: 'PostgreSQL',
    address: 'postgres://db:5432/petstore',
    meanwhile: 'answering 503',
    now: () => now,
  });
  outage.succeeded();
  assert.equal(lines.length, 0, 'nothing while all is well');
  // Three failures a second for 65 s: one line, then a reminder at 30 s and at 60 s.
  for (let second = 0; second < 65; second += 1) {
    for (let call = 0; call < 3; call += 1) outage.failed('nothing accepts connections at db:5432');
    now += 1_000;
  }
  outage.succeeded();
  outage.succeeded();
  assert.deepEqual(
    lines.map((line) => `${line.level} ${line.msg}`),
    [
      '40 PostgreSQL at postgres://db:5432/petstore is unreachable: nothing accepts connections at db:5432; answering 503',
      '40 PostgreSQL at postgres://db:5432/petstore is still unreachable: nothing accepts connections at db:5432; answering 503',
      '40 PostgreSQL at postgres://db:5432/petstore is still unreachable: nothing accepts connections at db:5432; answering 503',
      '30 PostgreSQL at postgres://db:5432/petstore is reachable again',
    ],
  );
  assert.equal(OUTAGE_REMINDER_MS, 30_000);
  assert.deepEqual([lines[1]?.downForSeconds, lines[3]?.downForSeconds, lines[3]?.failures], [30, 65, 195]);
});

test('a call on its way when the dependency came back, failing after, starts no new outage; a later one does', () => {
  const messages: string[] = [];
  const logger = createLogger({
    level: 'info',
    destination: new Writable({
      write(chunk, _encoding, done) {
        messages.push((JSON.parse(String(chunk)) as { msg: string }).msg);
        done();
      },
    }),
  });
  const outage = createOutageLog({ logger, dependency: 'Redis', address: '127.0.0.1:6379' });
  const slow = outage.begin();
  outage.failed('nothing accepts connections', outage.begin());
  outage.succeeded();
  // The slow call began before the recovery: its failure is the old outage's, said already.
  outage.failed('the connection was cut', slow);
  assert.deepEqual(messages, [
    'Redis at 127.0.0.1:6379 is unreachable: nothing accepts connections',
    'Redis at 127.0.0.1:6379 is reachable again',
  ]);
  outage.failed('the connection was cut', outage.begin());
  assert.equal(messages.at(-1), 'Redis at 127.0.0.1:6379 is unreachable: the connection was cut');
});
