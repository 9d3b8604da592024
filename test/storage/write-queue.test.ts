import assert from 'node:assert/strict';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import { openSqliteDatabase } from '../../src/storage/sqlite/storage.js';
import { WriteQueue } from '../../src/storage/sqlite/write-queue.js';
import { tempDir } from '../support/server.js';

/** A fresh store in a directory of its own and a write queue on it, for one test: both go after it. */
function freshQueue(t: TestContext) {
  const { dir, remove } = tempDir();
  t.after(remove);
  const file = path.join(dir, 'q.db');
  const { db } = openSqliteDatabase(file, { dataDir: dir });
  t.after(() => db.close());
  return { file, db, queue: new WriteQueue(db) };
}

test('writes of one turn share a transaction; a failing write is rolled back alone', async (t) => {
  const { db, queue } = freshQueue(t);
  const insert = db.prepare('INSERT INTO categories (name) VALUES (?) RETURNING id');
  const commits = db.prepare('SELECT count(*) FROM categories').pluck();

  const results = await Promise.allSettled([
    queue.run(() => (insert.get('a') as { id: number }).id),
    queue.run(() => {
      insert.get('doomed');
      throw new Error('refused');
    }),
    queue.run(() => insert.get('') /* violates the CHECK on length */),
    queue.run(() => (insert.get('b') as { id: number }).id),
  ]);
  assert.deepEqual(
    results.map((result) => result.status),
    ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
  );
  assert.deepEqual(db.prepare('SELECT name FROM categories ORDER BY id').pluck().all(), ['a', 'b']);
  assert.equal(commits.get(), 2);
  assert.equal(db.inTransaction, false);
});

test('a write is not answered before its transaction committed', async (t) => {
  const { file, db, queue } = freshQueue(t);
  const { db: reader } = openSqliteDatabase(file);
  t.after(() => reader.close());
  const count = reader.prepare('SELECT count(*) FROM categories').pluck();

  const pending = queue.run(() => db.prepare("INSERT INTO categories (name) VALUES ('x')").run());
  assert.equal(count.get(), 0, 'nothing is visible before the flush');
  await pending;
  assert.equal(count.get(), 1, 'another connection sees the row once the promise resolved');
});

test('a batch of only writes a crash may lose commits without an fsync; any durable write in it keeps FULL', async (t) => {
  const { db, queue } = freshQueue(t);
  const level = () => db.pragma('synchronous', { simple: true }) as number;
  const NORMAL = 1;
  const FULL = 2;
  const insert = db.prepare('INSERT INTO categories (name) VALUES (?)');
  /** Inserts `name`, and says the safety level the write ran at. */
  const write = (name: string) => () => {
    insert.run(name);
    return level();
  };

  const lazy = await queue.run(write('lease'), { durable: false });
  assert.deepEqual([lazy, level()], [NORMAL, FULL], 'NORMAL inside, FULL again after');
  const mixed = await Promise.all([queue.run(() => level(), { durable: false }), queue.run(write('order'))]);
  assert.deepEqual([...mixed, level()], [FULL, FULL, FULL]);
  // A batch whose commit fails is rolled back, and FULL is set again all the same.
  const failing = queue.run(() => db.exec('COMMIT'), { durable: false });
  await assert.rejects(failing);
  assert.deepEqual([db.inTransaction, level()], [false, FULL]);
  assert.deepEqual(db.prepare('SELECT name FROM categories ORDER BY id').pluck().all(), ['lease', 'order']);
});
