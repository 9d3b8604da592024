import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { copyDatabase, Sqlite } from '../../src/storage/index.js';
import { createTestDatabase } from '../support/backends.js';
import { runCli } from '../support/process.js';
import { tempDir } from '../support/server.js';

const ROWS = 100_000;

test('copy speed on 100k categories and 100k orders (a diagnostic, not a bound)', async (t) => {
  const dir = tempDir('petstore-copy-speed-');
  const file = path.join(dir.dir, 'big.db');
  const postgres = await createTestDatabase();
  try {
    assert.equal((await runCli(['migrate'], { DATABASE_URL: `sqlite:${file}` })).code, 0);
    // Filled with SQL rather than through the API: the copy's speed is measured, not the creates'.
    const db = new Sqlite(file);
    db.transaction(() => {
      const category = db.prepare('INSERT INTO categories (name, description) VALUES (?, ?)');
      const pet = db.prepare("INSERT INTO pets (name, category_id, status) VALUES (?, ?, 'sold')");
      const order = db.prepare(
        "INSERT INTO orders (pet_id, quantity, status, created_at) VALUES (?, ?, 'placed', ?)",
      );
      for (let i = 1; i <= ROWS; i += 1) category.run(`Category ${i}`, i % 3 === 0 ? null : `About ${i}`);
      for (let i = 1; i <= 1000; i += 1) pet.run(`Pet ${i}`, i);
      const start = Date.parse('2026-01-01T00:00:00.000Z');
      for (let i = 1; i <= ROWS; i += 1) {
        order.run((i % 1000) + 1, (i % 10) + 1, new Date(start + i * 1234).toISOString());
      }
    })();
    db.close();
    const there = await copyDatabase({
      from: { kind: 'sqlite', file, isDefault: false, dataDir: dir.dir },
      to: { kind: 'postgres', url: postgres.url, poolSize: 1 },
    });
    const back = await copyDatabase({
      from: { kind: 'postgres', url: postgres.url, poolSize: 1 },
      to: { kind: 'sqlite', file: path.join(dir.dir, 'back.db'), isDefault: false, dataDir: dir.dir },
    });
    for (const [name, report] of [
      ['SQLite -> PostgreSQL', there],
      ['PostgreSQL -> SQLite', back],
    ] as const) {
      assert.equal(report.rows, 2 * ROWS + 1000 + 2);
      t.diagnostic(
        `${name}: ${report.rows} rows in ${(report.ms / 1000).toFixed(2)} s, ${Math.round(report.rows / (report.ms / 1000))} rows/s (copy, sequences and read-back verification, one transaction)`,
      );
    }
    assert.deepEqual(
      back.tables.map((table) => table.checksum),
      there.tables.map((table) => table.checksum),
    );
  } finally {
    await postgres.drop();
    dir.remove();
  }
});
