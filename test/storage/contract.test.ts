import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { AuditEntry } from '../../src/audit/index.js';
import type { DomainRecord } from '../../src/domains/index.js';
import {
  createStorage,
  IdempotencyConflict,
  type KeptAnswer,
  Sqlite,
  type Storage,
  type StorageConfig,
  StorageNotFoundError,
} from '../../src/storage/index.js';
import { createTestDatabase, queryPostgres, querySqlite } from '../support/backends.js';
import { keyRecord } from '../support/key-record.js';
import { tempDir } from '../support/server.js';

/** A fresh database of each backend, and how to read it from outside the storage under test. */
interface Fresh {
  config: StorageConfig;
  /** A read-only query on a connection of its own: what another process would see. */
  read<T>(sql: string): Promise<T[]>;
  /** A statement on a connection of its own, outside the storage under test. */
  write(sql: string): Promise<void>;
  drop(): Promise<void>;
}

const BACKENDS: Record<'sqlite' | 'postgres', () => Promise<Fresh>> = {
  async sqlite() {
    const { dir, remove } = tempDir('petstore-storage-');
    const file = path.join(dir, 'store.db');
    return {
      config: { kind: 'sqlite', file, isDefault: false, dataDir: dir },
      read: async <T>(sql: string) => querySqlite<T>(file, sql),
      async write(sql: string) {
        const db = new Sqlite(file);
        try {
          db.prepare(sql).run();
        } finally {
          db.close();
        }
      },
      drop: async () => remove(),
    };
  },
  async postgres() {
    const database = await createTestDatabase();
    return {
      config: { kind: 'postgres', url: database.url, poolSize: 4 },
      read: <T>(sql: string) => queryPostgres<T>(database.url, sql),
      async write(sql: string) {
        await queryPostgres(database.url, sql);
      },
      drop: database.drop,
    };
  },
};

/** An answer to keep under a key, serialized as the service would. */
function keeping<T>(key: string, overrides: Partial<KeptAnswer<T>> = {}): KeptAnswer<T> {
  return {
    apiKeyId: 'key_storage',
    key,
    requestDigest: `digest of ${key}`,
    createdAt: Date.now(),
    expiredBefore: Date.now() - 86_400_000,
    status: 201,
    body: (created) => JSON.stringify(created),
    ...overrides,
  };
}

/** An audit entry for a change in these tests. */
const audited = (action: AuditEntry['action'], target: string): AuditEntry => ({
  at: new Date().toISOString(),
  actor: 'cli',
  action,
  target,
  details: { test: true },
});

for (const [kind, fresh] of Object.entries(BACKENDS)) {
  describe(`the Storage contract (${kind})`, () => {
    let database: Fresh;
    let storage: Storage;
    before(async () => {
      database = await fresh();
      storage = await createStorage(database.config);
    });
    after(async () => {
      await storage.close();
      await database.drop();
    });

    test('a fresh database gets every migration; opening it again applies none', async () => {
      assert.ok(storage.migrationsApplied.length >= 7);
      assert.deepEqual(
        storage.migrationsApplied,
        [...storage.migrationsApplied].sort((a, b) => a - b),
      );
      const again = await createStorage(database.config, { mustExist: true });
      try {
        assert.deepEqual(again.migrationsApplied, []);
      } finally {
        await again.close();
      }
    });

    test('categories: ids increase, the list is ascending, a missing description is left out', async () => {
      const first = await storage.create('createCategory', { name: 'Contract A', description: 'one' });
      const second = await storage.create('createCategory', { name: 'Contract B' });
      assert.ok(first.created.id > 0 && second.created.id > first.created.id);
      assert.deepEqual(second.created, { id: second.created.id, name: 'Contract B' });
      const listed = await storage.categories.list();
      assert.deepEqual(listed.slice(-2), [first.created, second.created]);
      assert.deepEqual(
        listed.map((category) => category.id),
        listed.map((category) => category.id).toSorted((a, b) => a - b),
      );
    });

    test('a create resolves after its commit: another connection sees the row at once', async () => {
      const { created } = await storage.create('createCategory', { name: 'Committed' });
      const rows = await database.read<{ id: number }>(`SELECT id FROM categories WHERE id = ${created.id}`);
      assert.equal(rows.length, 1);
    });

    test('pets: a missing category is refused and stores nothing; filters and lookups', async () => {
      const before = await database.read<{ n: number | string }>('SELECT count(*) AS n FROM pets');
      const refused = await storage.create('createPet', {
        name: 'Ghost',
        categoryId: 999_999,
        status: 'available',
      });
      assert.deepEqual(refused, { ok: false, refusal: 'category_not_found' });
      const after = await database.read<{ n: number | string }>('SELECT count(*) AS n FROM pets');
      assert.equal(Number(after[0]?.n), Number(before[0]?.n));

      const { created: category } = await storage.create('createCategory', { name: 'Pets of the contract' });
      const rex = await storage.create('createPet', {
        name: 'Rex',
        categoryId: category.id,
        status: 'available',
      });
      const tom = await storage.create('createPet', { name: 'Tom', categoryId: category.id, status: 'sold' });
      assert.ok(rex.ok && tom.ok);
      assert.deepEqual(rex.created, {
        id: rex.created.id,
        name: 'Rex',
        categoryId: category.id,
        status: 'available',
      });
      assert.deepEqual(await storage.pets.get(rex.created.id), rex.created);
      assert.equal(await storage.pets.get(999_999), undefined);
      assert.deepEqual(await storage.pets.list({ categoryId: category.id }), [rex.created, tom.created]);
      assert.deepEqual(await storage.pets.list({ categoryId: category.id, status: 'sold' }), [tom.created]);
    });

    test('orders: the first order claims the pet, the next is refused, an unknown pet is refused', async () => {
      const { created: category } = await storage.create('createCategory', {
        name: 'Orders of the contract',
      });
      const pet = await storage.create('createPet', {
        name: 'Once',
        categoryId: category.id,
        status: 'available',
      });
      assert.ok(pet.ok);
      const input = { petId: pet.created.id, quantity: 2, createdAt: '2026-12-01T10:00:00.000Z' };
      const [first, second] = await Promise.all([
        storage.create('placeOrder', input),
        storage.create('placeOrder', { ...input, createdAt: '2026-12-01T10:00:01.000Z' }),
      ]);
      const outcomes = [first, second].map((result) => (result.ok ? 'placed' : result.refusal)).sort();
      assert.deepEqual(outcomes, ['pet_not_available', 'placed']);
      assert.equal((await storage.pets.get(pet.created.id))?.status, 'pending');
      assert.deepEqual(await storage.create('placeOrder', { ...input, petId: 999_999 }), {
        ok: false,
        refusal: 'pet_not_found',
      });
      const placed = (first.ok ? first : second) as { ok: true; created: { id: number } };
      const listed = await storage.orders.list({ status: 'placed' });
      assert.ok(listed.some((order) => order.id === placed.created.id && order.quantity === 2));
    });

    test('a create that keeps an answer stores it with the row; the same key again is a conflict', async () => {
      const keep = keeping<{ id: number; name: string }>('contract-key-1');
      const result = await storage.create('createCategory', { name: 'Kept' }, keep);
      const stored = await storage.idempotency.find(keep.apiKeyId, keep.key, keep.expiredBefore);
      assert.deepEqual(stored, {
        requestDigest: keep.requestDigest,
        status: 201,
        body: JSON.stringify(result.created),
      });
      const rowsBefore = await database.read<{ n: number | string }>(
        "SELECT count(*) AS n FROM categories WHERE name = 'Kept'",
      );
      await assert.rejects(storage.create('createCategory', { name: 'Kept' }, keep), (error: unknown) => {
        assert.ok(error instanceof IdempotencyConflict);
        assert.equal(error.reason, 'recorded');
        return true;
      });
      const rowsAfter = await database.read<{ n: number | string }>(
        "SELECT count(*) AS n FROM categories WHERE name = 'Kept'",
      );
      assert.equal(
        Number(rowsAfter[0]?.n),
        Number(rowsBefore[0]?.n),
        'the conflicting create was rolled back',
      );
    });

    test('a refusal keeps no answer; an expired answer is replaced; the purge removes old ones', async () => {
      const refused = await storage.create(
        'createPet',
        { name: 'Nowhere', categoryId: 999_999, status: 'available' },
        keeping('contract-key-2'),
      );
      assert.equal(refused.ok, false);
      assert.equal(await storage.idempotency.find('key_storage', 'contract-key-2', 0), undefined);

      const old = keeping<unknown>('contract-key-3', { createdAt: 1_000, expiredBefore: 0 });
      await storage.create('createCategory', { name: 'Old' }, old);
      const renewed = keeping<unknown>('contract-key-3', {
        createdAt: 5_000,
        expiredBefore: 2_000,
        requestDigest: 'new',
      });
      await storage.create('createCategory', { name: 'New' }, renewed);
      assert.equal(
        (await storage.idempotency.find('key_storage', 'contract-key-3', 0))?.requestDigest,
        'new',
      );
      assert.equal(await storage.idempotency.purge(6_000), 1);
      assert.equal(await storage.idempotency.find('key_storage', 'contract-key-3', 0), undefined);
    });

    test('api keys: insert, list, revoke once, unban, bans recorded; the version follows every change', async () => {
      const version = await storage.apiKeys.version();
      await storage.apiKeys.insert(keyRecord('key_contract1'), audited('key.created', 'key_contract1'));
      assert.ok((await storage.apiKeys.version()) > version);
      assert.equal(
        await storage.apiKeys.insertFirst(
          keyRecord('key_contract2'),
          audited('key.created', 'key_contract2'),
        ),
        false,
        'keys exist already',
      );
      assert.equal(
        await storage.apiKeys.revoke(
          'key_contract1',
          '2026-12-01T00:00:00.000Z',
          audited('key.revoked', 'key_contract1'),
        ),
        true,
      );
      assert.equal(
        await storage.apiKeys.revoke(
          'key_contract1',
          '2026-12-02T00:00:00.000Z',
          audited('key.revoked', 'key_contract1'),
        ),
        true,
      );
      assert.equal(
        await storage.apiKeys.revoke(
          'key_nobody',
          '2026-12-01T00:00:00.000Z',
          audited('key.revoked', 'key_nobody'),
        ),
        false,
      );
      await storage.apiKeys.recordBan('key_contract1', '2026-12-01T00:15:00.000Z');
      let listed = await storage.apiKeys.get('key_contract1');
      assert.equal(listed?.revokedAt, '2026-12-01T00:00:00.000Z', 'the first revocation stands');
      assert.equal(listed?.bannedUntil, '2026-12-01T00:15:00.000Z');
      const beforeUnban = await storage.apiKeys.version();
      assert.equal(
        await storage.apiKeys.unban(
          'key_contract1',
          '2026-12-01T00:05:00.000Z',
          audited('key.unbanned', 'key_contract1'),
        ),
        true,
      );
      assert.ok((await storage.apiKeys.version()) > beforeUnban);
      listed = (await storage.apiKeys.list()).find((record) => record.id === 'key_contract1');
      assert.equal(listed?.unbannedAt, '2026-12-01T00:05:00.000Z');
      assert.equal(listed?.bannedUntil, null);
      assert.equal(
        (await storage.apiKeys.list()).some((record) => record.id === 'key_contract2'),
        false,
      );
      // What changed was audited, once each: the second revocation changed nothing.
      const actions = (await storage.audit.list({ after: 0, limit: 100, target: 'key_contract1' })).map(
        (event) => event.action,
      );
      assert.deepEqual(actions, ['key.created', 'key.revoked', 'key.unbanned']);
      assert.deepEqual(await storage.audit.list({ after: 0, limit: 100, target: 'key_nobody' }), []);
    });

    test('api keys: a change sets only what it names; a revoked key is not changed', async () => {
      await storage.apiKeys.insert(
        keyRecord('key_contract3', { plan: 'enterprise', limits: { perMinute: 5, perDay: 50 } }),
        audited('key.created', 'key_contract3'),
      );
      const changed = await storage.apiKeys.update(
        'key_contract3',
        { name: 'renamed', scopes: ['pets:read'], expiresAt: '2030-01-01T00:00:00.000Z' },
        audited('key.updated', 'key_contract3'),
      );
      assert.equal(changed?.name, 'renamed');
      assert.deepEqual(changed?.scopes, ['pets:read']);
      assert.equal(changed?.expiresAt, '2030-01-01T00:00:00.000Z');
      assert.deepEqual(changed?.limits, { perMinute: 5, perDay: 50 }, 'what the change does not name stays');
      const cleared = await storage.apiKeys.update(
        'key_contract3',
        { plan: 'pro', limits: null, expiresAt: null },
        audited('key.updated', 'key_contract3'),
      );
      assert.equal(cleared?.plan, 'pro');
      assert.equal(cleared?.limits, null);
      assert.equal(cleared?.expiresAt, null);
      await storage.apiKeys.revoke(
        'key_contract3',
        '2026-12-01T00:00:00.000Z',
        audited('key.revoked', 'key_contract3'),
      );
      assert.equal(
        await storage.apiKeys.update(
          'key_contract3',
          { name: 'again' },
          audited('key.updated', 'key_contract3'),
        ),
        undefined,
      );
      assert.equal((await storage.apiKeys.get('key_contract3'))?.name, 'renamed');
    });

    test('api keys: a rotation inserts the successor and ends the old key in one step; budgets are shared', async () => {
      await storage.apiKeys.insert(keyRecord('key_contract4'), audited('key.created', 'key_contract4'));
      const successor = keyRecord('key_contract5', { budgetId: 'key_contract4', digest: 'digest-successor' });
      const ends = '2026-12-02T00:00:00.000Z';
      const at = '2026-12-01T00:00:00.000Z';
      // Of rotations of one key at once, exactly one happens.
      const rivals = [1, 2, 3, 4].map((n) =>
        storage.apiKeys.rotate(
          'key_contract4',
          keyRecord(`key_rival${n}`, { budgetId: 'key_contract4', digest: `digest-rival${n}` }),
          ends,
          at,
          audited('key.rotated', 'key_contract4'),
        ),
      );
      const results = await Promise.all([
        storage.apiKeys.rotate('key_contract4', successor, ends, at, audited('key.rotated', 'key_contract4')),
        ...rivals,
      ]);
      assert.equal(results.filter(Boolean).length, 1, `one rotation of five: ${results}`);
      const winner = (await storage.apiKeys.get('key_contract4'))?.replacedBy ?? 'none';
      const stored = await Promise.all(
        ['key_contract5', 'key_rival1', 'key_rival2', 'key_rival3', 'key_rival4'].map((id) =>
          storage.apiKeys.get(id),
        ),
      );
      assert.deepEqual(
        stored.filter((record) => record !== undefined).map((record) => record.id),
        [winner],
        'only the successor of the rotation that happened is stored',
      );
      const old = await storage.apiKeys.get('key_contract4');
      assert.equal(old?.expiresAt, ends);
      assert.equal((await storage.apiKeys.get(winner))?.budgetId, 'key_contract4');
      // A ban is the budget's: recorded on and lifted from both keys at once.
      await storage.apiKeys.recordBan('key_contract4', '2026-12-01T00:30:00.000Z');
      assert.equal((await storage.apiKeys.get(winner))?.bannedUntil, '2026-12-01T00:30:00.000Z');
      await storage.apiKeys.unban(winner, '2026-12-01T00:10:00.000Z', audited('key.unbanned', winner));
      assert.equal((await storage.apiKeys.get('key_contract4'))?.bannedUntil, null);
      // A revoked key is not rotated.
      await storage.apiKeys.revoke(winner, '2026-12-01T00:00:00.000Z', audited('key.revoked', winner));
      const another = keyRecord('key_contract6', { digest: 'digest-another' });
      assert.equal(
        await storage.apiKeys.rotate(winner, another, ends, at, audited('key.rotated', winner)),
        false,
      );
      assert.equal(await storage.apiKeys.get('key_contract6'), undefined);
    });

    test('api keys: a key past its expiry is not rotated; a rotated key keeps its plan, not its name', async () => {
      const expired = keyRecord('key_contract7', { expiresAt: '2026-12-01T00:00:00.000Z' });
      await storage.apiKeys.insert(expired, audited('key.created', 'key_contract7'));
      const successor = keyRecord('key_contract8', { budgetId: 'key_contract7', digest: 'digest-8' });
      const rotate = (at: string) =>
        storage.apiKeys.rotate(
          'key_contract7',
          successor,
          '2026-12-03T00:00:00.000Z',
          at,
          audited('key.rotated', 'key_contract7'),
        );
      assert.equal(await rotate('2026-12-01T00:00:00.000Z'), false, 'expired at that very time');
      assert.equal(await rotate('2026-11-30T23:59:59.999Z'), true, 'a millisecond before');
      assert.equal(
        await storage.apiKeys.update(
          'key_contract7',
          { plan: 'free' },
          audited('key.updated', 'key_contract7'),
        ),
        undefined,
        "the plan of a rotated key is its successor's",
      );
      assert.equal(
        (
          await storage.apiKeys.update(
            'key_contract7',
            { name: 'old one' },
            audited('key.updated', 'key_contract7'),
          )
        )?.name,
        'old one',
      );
    });

    test('admin tokens: insert, list, revoke once, each audited; the version follows', async () => {
      const version = await storage.apiKeys.version();
      const token = {
        id: 'adm_contract1',
        name: 'dashboard',
        prefix: 'ps_admin_abcd',
        digest: 'digest-admin',
        createdAt: new Date().toISOString(),
        revokedAt: null,
        role: 'support' as const,
        createdBy: 'cli',
      };
      await storage.adminTokens.insert(token, audited('admin_token.created', token.id));
      assert.ok((await storage.apiKeys.version()) > version);
      assert.deepEqual(
        (await storage.adminTokens.list()).find((listed) => listed.id === token.id),
        token,
      );
      assert.equal(
        await storage.adminTokens.revoke(
          token.id,
          '2026-12-01T00:00:00.000Z',
          audited('admin_token.revoked', token.id),
        ),
        true,
      );
      assert.equal(
        await storage.adminTokens.revoke(
          token.id,
          '2026-12-02T00:00:00.000Z',
          audited('admin_token.revoked', token.id),
        ),
        true,
      );
      assert.equal(
        await storage.adminTokens.revoke(
          'adm_nobody',
          '2026-12-01T00:00:00.000Z',
          audited('admin_token.revoked', 'adm_nobody'),
        ),
        false,
      );
      const actions = (await storage.audit.list({ after: 0, limit: 10, target: token.id })).map(
        (event) => event.action,
      );
      assert.deepEqual(actions, ['admin_token.created', 'admin_token.revoked']);
    });

    test('admin tokens say who made them; a person’s, through their tokens too, are listed and revoked with their sessions in one unit, each audited', async () => {
      const at = '2026-12-01T10:00:00.000Z';
      const person = await storage.people.signIn(
        {
          issuer: 'https://idp.test',
          subject: 'leaver',
          email: 'leaver@example.com',
          name: 'Lee',
          role: 'owner',
        },
        at,
        'per_leaver000001',
      );
      const stayer = await storage.people.signIn(
        { issuer: 'https://idp.test', subject: 'stayer', email: null, name: null, role: 'owner' },
        at,
        'per_stayer000001',
      );
      const token = (id: string, createdBy: string | null, minute: number) => ({
        id,
        name: `made ${id}`,
        prefix: 'ps_admin_abcd',
        digest: `digest-${id}`,
        createdAt: `2026-12-01T10:${String(minute).padStart(2, '0')}:00.000Z`,
        revokedAt: null,
        role: 'admin' as const,
        createdBy,
      });
      // Lee made one in their session, and with it another, which made a third; the one Lee's made and then
      // revoked still made a fourth. The CLI's, the stayer's and an unattributed one are not Lee's.
      const tokens = [
        token('adm_leaver1', person.id, 1),
        token('adm_leaver2', 'adm_leaver1', 2),
        token('adm_leaver3', 'adm_leaver2', 3),
        token('adm_leaverR', person.id, 4),
        token('adm_leaver4', 'adm_leaverR', 5),
        token('adm_stayer1', stayer.id, 6),
        token('adm_bycli01', 'cli', 7),
        token('adm_unknown', null, 8),
      ];
      for (const each of tokens)
        await storage.adminTokens.insert(each, audited('admin_token.created', each.id));
      await storage.adminTokens.revoke('adm_leaverR', at, audited('admin_token.revoked', 'adm_leaverR'));
      const listed = await storage.adminTokens.list();
      for (const each of tokens.filter((made) => made.id !== 'adm_leaverR'))
        assert.deepEqual(
          listed.find((record) => record.id === each.id),
          each,
          'who made it round-trips',
        );

      const made = (await storage.adminTokens.madeByPeople()).filter((each) => each.personId === person.id);
      assert.deepEqual(
        made.map((each) => [each.token.id, each.through]),
        [
          ['adm_leaver1', null],
          ['adm_leaver2', { id: 'adm_leaver1', name: 'made adm_leaver1' }],
          ['adm_leaver3', { id: 'adm_leaver2', name: 'made adm_leaver2' }],
          ['adm_leaver4', { id: 'adm_leaverR', name: 'made adm_leaverR' }],
        ],
      );
      assert.deepEqual(
        (await storage.adminTokens.madeByPeople())
          .filter((each) => each.personId === stayer.id)
          .map((each) => each.token.id),
        ['adm_stayer1'],
      );

      const session = (digest: string, personId: string) => ({
        digest,
        tokenId: null,
        personId,
        role: 'owner' as const,
        refreshToken: null,
        checkedAt: at,
        createdAt: at,
        lastSeenAt: at,
        expiresAt: '2099-01-01T00:00:00.000Z',
        endedAt: null,
      });
      await storage.sessions.insert(
        session('digest-leaver', person.id),
        audited('session.started', person.id),
      );
      await storage.sessions.insert(
        session('digest-stayer', stayer.id),
        audited('session.started', stayer.id),
      );

      // Without revoking: the sessions end, every token stays.
      const version = await storage.apiKeys.version();
      const plain = await storage.sessions.endOfPerson(
        person.id,
        at,
        audited('person.sessions_ended', person.id),
      );
      assert.deepEqual(plain, { ended: 1, revoked: [] });
      assert.equal((await storage.apiKeys.version()) > version, false, 'no token changed');
      assert.equal((await storage.adminTokens.madeByPeople()).length, 5);

      // With revoking: every live one of Lee's, in one unit with the sessions (none left now), each audited.
      const revokedAt = '2026-12-01T11:00:00.000Z';
      const revoking = await storage.sessions.endOfPerson(
        person.id,
        revokedAt,
        audited('person.sessions_ended', person.id),
        (id) => ({ ...audited('admin_token.revoked', id), details: { person: person.id } }),
      );
      assert.equal(revoking.ended, 0);
      assert.deepEqual(
        revoking.revoked.map((record) => [record.id, record.revokedAt, record.createdBy]),
        [
          ['adm_leaver1', revokedAt, person.id],
          ['adm_leaver2', revokedAt, 'adm_leaver1'],
          ['adm_leaver3', revokedAt, 'adm_leaver2'],
          ['adm_leaver4', revokedAt, 'adm_leaverR'],
        ],
      );
      assert.ok((await storage.apiKeys.version()) > version, 'the version follows, for every instance');
      const live = (await storage.adminTokens.list()).filter((record) => record.revokedAt === null);
      assert.deepEqual(
        live.map((record) => record.id).filter((id) => id.startsWith('adm_leaver')),
        [],
      );
      assert.deepEqual(
        (await storage.adminTokens.madeByPeople()).map((each) => each.token.id),
        ['adm_stayer1'],
      );
      const events = await storage.audit.list({ after: 0, limit: 1000, order: 'desc' });
      const revocations = events.filter(
        (event) => event.action === 'admin_token.revoked' && event.target.startsWith('adm_leaver'),
      );
      assert.deepEqual(
        revocations.map((event) => [event.target, event.details]).sort(),
        ['adm_leaver1', 'adm_leaver2', 'adm_leaver3', 'adm_leaver4', 'adm_leaverR']
          .map((id) => [id, id === 'adm_leaverR' ? { test: true } : { person: person.id }])
          .sort(),
      );
      const ending = events.find(
        (event) => event.action === 'person.sessions_ended' && event.target === person.id,
      );
      assert.deepEqual(ending?.details, {
        test: true,
        ended: 0,
        revokedTokens: ['adm_leaver1', 'adm_leaver2', 'adm_leaver3', 'adm_leaver4'],
      });
      // Again: nothing left to revoke.
      const again = await storage.sessions.endOfPerson(
        person.id,
        revokedAt,
        audited('person.sessions_ended', person.id),
        (id) => audited('admin_token.revoked', id),
      );
      assert.deepEqual(again, { ended: 0, revoked: [] });
      assert.equal((await storage.sessions.find('digest-stayer'))?.endedAt, null, 'the stayer’s goes on');
    });

    test('the audit record is append-only: the database itself refuses to change or delete it', async () => {
      const events = await storage.audit.list({ after: 0, limit: 1 });
      assert.ok(events.length === 1);
      for (const sql of ["UPDATE audit_events SET actor = 'someone else'", 'DELETE FROM audit_events']) {
        await assert.rejects(database.write(sql), /append-only/, sql);
      }
      assert.deepEqual(await storage.audit.list({ after: 0, limit: 1 }), events);
    });

    test('usage is added, never overwritten: two flushes of one day and hour sum', async () => {
      await storage.apiKeys.insert(keyRecord('key_usage1'), audited('key.created', 'key_usage1'));
      const counts = { success: 3, clientErrors: 1, rateLimited: 0, serverErrors: 0 };
      const day = { keyId: 'key_usage1', day: '2026-12-01', ...counts };
      const hour = { keyId: 'key_usage1', hour: '2026-12-01T09', ...counts };
      await Promise.all([
        storage.usage.add({
          days: [day],
          hours: [hour],
          lastUsed: [{ keyId: 'key_usage1', at: '2026-12-01T10:00:00.000Z' }],
          deprecated: [],
        }),
        storage.usage.add({
          days: [{ ...day, success: 2, rateLimited: 4 }],
          hours: [{ ...hour, success: 2, rateLimited: 4 }],
          lastUsed: [{ keyId: 'key_usage1', at: '2026-12-01T09:00:00.000Z' }],
          deprecated: [
            {
              keyId: 'key_usage1',
              operationId: 'getPetById',
              calls: 2,
              lastCalledAt: '2026-12-01T09:00:00.000Z',
            },
          ],
        }),
      ]);
      await storage.usage.add({
        days: [],
        hours: [],
        lastUsed: [],
        deprecated: [
          {
            keyId: 'key_usage1',
            operationId: 'getPetById',
            calls: 1,
            lastCalledAt: '2026-12-01T08:00:00.000Z',
          },
        ],
      });
      const summed = { success: 5, clientErrors: 2, rateLimited: 4, serverErrors: 0 };
      assert.deepEqual(await storage.usage.daily('key_usage1', '2026-11-25', '2026-12-01'), [
        { day: '2026-12-01', ...summed },
      ]);
      assert.deepEqual(
        await storage.usage.daily('key_usage1', '2026-11-25', '2026-11-30'),
        [],
        'to is inclusive, no more',
      );
      assert.deepEqual(await storage.usage.hourly('key_usage1', '2026-12-01T00', '2026-12-01T23'), [
        { hour: '2026-12-01T09', ...summed },
      ]);
      assert.deepEqual(await storage.usage.deprecated('key_usage1'), [
        { operationId: 'getPetById', calls: 3, lastCalledAt: '2026-12-01T09:00:00.000Z' },
      ]);
      assert.equal(
        (await storage.apiKeys.get('key_usage1'))?.lastUsedAt,
        '2026-12-01T10:00:00.000Z',
        'the latest use stands',
      );
    });

    test('usage of every key: summed by hour and day, the most used keys of a day, old hours pruned', async () => {
      const zero = { success: 0, clientErrors: 0, rateLimited: 0, serverErrors: 0 };
      const rows = [
        { keyId: 'key_usageA', hour: '2026-10-01T23', ...zero, success: 7 },
        { keyId: 'key_usageA', hour: '2026-10-02T00', ...zero, success: 1, rateLimited: 9 },
        { keyId: 'key_usageB', hour: '2026-10-02T00', ...zero, success: 3, serverErrors: 1 },
      ];
      await storage.usage.add({
        hours: rows,
        days: rows.map(({ hour, ...row }) => ({ ...row, day: hour.slice(0, 10) })),
        lastUsed: [],
        deprecated: [],
      });
      assert.deepEqual(await storage.usage.hourly(undefined, '2026-10-01T00', '2026-10-02T23'), [
        { hour: '2026-10-01T23', ...zero, success: 7 },
        { hour: '2026-10-02T00', ...zero, success: 4, rateLimited: 9, serverErrors: 1 },
      ]);
      assert.deepEqual(await storage.usage.daily(undefined, '2026-10-02', '2026-10-02'), [
        { day: '2026-10-02', ...zero, success: 4, rateLimited: 9, serverErrors: 1 },
      ]);
      // Refused requests count for nothing against a limit: B, with 4 that counted, used more than A's 1.
      assert.deepEqual(
        (await storage.usage.keysOn('2026-10-02', 10)).map((row) => row.keyId),
        ['key_usageB', 'key_usageA'],
      );
      assert.equal(await storage.usage.pruneHours('2026-10-02T00'), 1);
      assert.deepEqual(
        (await storage.usage.hourly(undefined, '2026-10-01T00', '2026-10-02T23')).map((row) => row.hour),
        ['2026-10-02T00'],
      );
      assert.equal(
        (await storage.usage.daily('key_usageA', '2026-10-01', '2026-10-01'))[0]?.success,
        7,
        'days stay',
      );
    });

    test('domains: added once, the only primary, checked, claimed once, removed; every change audited', async () => {
      const entry = (action: AuditEntry['action'], target: string): AuditEntry => ({
        at: '2026-12-01T00:00:00.000Z',
        actor: 'contract',
        action,
        target,
        details: {},
      });
      const domain = (name: string, fields: Partial<DomainRecord> = {}): DomainRecord => ({
        name,
        source: 'api',
        primary: false,
        redirectTo: null,
        redirectStatus: null,
        state: 'pending',
        reason: 'Added; not checked yet',
        fix: null,
        token: `token-of-${name}`,
        addedAt: '2026-12-01T00:00:00.000Z',
        stateSince: '2026-12-01T00:00:00.000Z',
        checkedAt: null,
        nextCheckAt: '2026-12-01T00:00:00.000Z',
        lastCheck: null,
        certificate: null,
        ...fields,
      });
      const version = await storage.domains.version();
      assert.equal(
        await storage.domains.add(
          domain('a.contract.test', { primary: true }),
          entry('domain.added', 'a.contract.test'),
        ),
        undefined,
      );
      assert.equal(
        (await storage.domains.add(domain('a.contract.test'), entry('domain.added', 'a.contract.test')))
          ?.name,
        'a.contract.test',
        'the name is taken',
      );
      assert.ok((await storage.domains.version()) > version, 'a change moves the version');
      // Of two primaries added at once, one is stored; the other is told which is in its way.
      const [first, second] = await Promise.all(
        ['x.contract.test', 'y.contract.test'].map((name) =>
          storage.domains.add(domain(name, { primary: true }), entry('domain.added', name)),
        ),
      );
      assert.deepEqual([first?.name, second?.name], ['a.contract.test', 'a.contract.test']);
      assert.equal(
        await storage.domains.add(
          domain('b.contract.test', { nextCheckAt: '2026-12-02T00:00:00.000Z' }),
          entry('domain.added', 'b.contract.test'),
        ),
        undefined,
      );

      const claimed = await storage.domains.claimDue(
        '2026-12-01T12:00:00.000Z',
        '2026-12-01T12:02:00.000Z',
        10,
      );
      assert.deepEqual(
        claimed.map((record) => record.name),
        ['a.contract.test'],
        'only what is due',
      );
      assert.deepEqual(
        await storage.domains.claimDue('2026-12-01T12:00:00.000Z', '2026-12-01T12:02:00.000Z', 10),
        [],
        'a claimed domain is not claimed again before its lease ends',
      );
      const checked = await storage.domains.recordCheck(
        'a.contract.test',
        {
          state: 'active',
          reason: 'served',
          fix: null,
          stateSince: '2026-12-01T12:00:00.000Z',
          checkedAt: '2026-12-01T12:00:00.000Z',
          nextCheckAt: '2026-12-02T12:00:00.000Z',
          lastCheck: 'passed',
          certificate: { issuer: 'Test CA', expiresAt: '2027-03-01T00:00:00.000Z' },
        },
        entry('domain.state_changed', 'a.contract.test'),
      );
      assert.equal(checked?.state, 'active');
      assert.deepEqual(checked?.certificate, { issuer: 'Test CA', expiresAt: '2027-03-01T00:00:00.000Z' });
      assert.deepEqual(await storage.domains.get('a.contract.test'), checked);

      // The file's domains: taken over from the API, added, and removed when the file drops them.
      await storage.domains.syncFile(
        [
          domain('b.contract.test', { source: 'file', primary: true }),
          domain('c.contract.test', { source: 'file', redirectTo: 'b.contract.test', redirectStatus: 301 }),
        ],
        '2026-12-01T13:00:00.000Z',
      );
      const primaries = (await storage.domains.list()).filter((record) => record.primary);
      assert.deepEqual(
        primaries.map((record) => record.name),
        ['b.contract.test'],
        "the file's primary is the primary",
      );
      const sources = Object.fromEntries(
        (await storage.domains.list()).map((record) => [record.name, record.source]),
      );
      assert.deepEqual(sources, {
        'a.contract.test': 'api',
        'b.contract.test': 'file',
        'c.contract.test': 'file',
      });
      assert.equal((await storage.domains.get('c.contract.test'))?.redirectTo, 'b.contract.test');
      await storage.domains.syncFile([], '2026-12-01T14:00:00.000Z');
      assert.deepEqual(
        (await storage.domains.list()).map((record) => record.name),
        ['a.contract.test'],
      );

      // A domain others redirect to stays while they do.
      await storage.domains.add(
        domain('d.contract.test', { redirectTo: 'a.contract.test', redirectStatus: 301 }),
        entry('domain.added', 'd.contract.test'),
      );
      assert.deepEqual(
        await storage.domains.remove('a.contract.test', entry('domain.removed', 'a.contract.test')),
        { outcome: 'redirected_to', from: ['d.contract.test'] },
      );
      assert.deepEqual(
        await storage.domains.remove('d.contract.test', entry('domain.removed', 'd.contract.test')),
        { outcome: 'removed' },
      );
      assert.deepEqual(
        await storage.domains.remove('a.contract.test', entry('domain.removed', 'a.contract.test')),
        { outcome: 'removed' },
      );
      assert.deepEqual(
        await storage.domains.remove('a.contract.test', entry('domain.removed', 'a.contract.test')),
        { outcome: 'none' },
      );
      const actions = (await storage.audit.list({ after: 0, limit: 1000 }))
        .filter((event) => event.target.endsWith('.contract.test'))
        .map((event) => `${event.action} ${event.target}`);
      assert.deepEqual(actions, [
        'domain.added a.contract.test',
        'domain.added b.contract.test',
        'domain.state_changed a.contract.test',
        'domain.updated a.contract.test',
        'domain.added c.contract.test',
        'domain.removed b.contract.test',
        'domain.removed c.contract.test',
        'domain.added d.contract.test',
        'domain.removed d.contract.test',
        'domain.removed a.contract.test',
      ]);
    });

    test('ping answers while open', async () => {
      await storage.ping();
    });
  });
}

describe('the Storage contract, on a fresh database each', () => {
  for (const [kind, fresh] of Object.entries(BACKENDS)) {
    test(`the first key is inserted once, however many try at once (${kind})`, async (t) => {
      const database = await fresh();
      t.after(database.drop);
      const stores = await Promise.all([createStorage(database.config), createStorage(database.config)]);
      t.after(() => Promise.all(stores.map((store) => store.close())));
      const inserted = await Promise.all(
        stores.flatMap((store, index) =>
          [0, 1].map((attempt) => {
            const id = `key_first${index}${attempt}`;
            return store.apiKeys.insertFirst(keyRecord(id), audited('key.created', id));
          }),
        ),
      );
      assert.equal(inserted.filter(Boolean).length, 1);
      assert.equal((await stores[0]?.apiKeys.list())?.length, 1);
    });

    test(`opened with mustExist, nothing is created (${kind})`, async (t) => {
      const database = await fresh();
      t.after(database.drop);
      await assert.rejects(createStorage(database.config, { mustExist: true }), (error: unknown) => {
        assert.ok(error instanceof StorageNotFoundError);
        assert.equal(error.reason, kind === 'sqlite' ? 'missing' : 'no_schema');
        return true;
      });
      if (kind === 'postgres') {
        const tables = await database.read<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'",
        );
        assert.equal(tables[0]?.n, 0);
      }
    });
  }

  test('PostgreSQL: a key another instance is creating under is in use; of two at once, one creates', async (t) => {
    const database = await BACKENDS.postgres();
    t.after(database.drop);
    const [one, two] = await Promise.all([createStorage(database.config), createStorage(database.config)]);
    t.after(async () => {
      await one?.close();
      await two?.close();
    });
    if (one === undefined || two === undefined) return;
    // Another instance in the middle of a create under the key holds its lock until it commits.
    const holder = new pg.Client({ connectionString: (database.config as { url: string }).url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      'idempotency\nkey_storage\nheld',
    ]);
    await assert.rejects(
      one.create('createCategory', { name: 'Held' }, keeping('held')),
      (error: unknown) => {
        assert.ok(error instanceof IdempotencyConflict);
        assert.equal(error.reason, 'in_use');
        return true;
      },
    );
    // The refused create wrote nothing.
    const heldRows = "SELECT count(*)::int AS n FROM categories WHERE name = 'Held'";
    assert.equal((await database.read<{ n: number }>(heldRows))[0]?.n, 0);
    await holder.query('ROLLBACK');
    await holder.end();
    assert.equal((await one.create('createCategory', { name: 'Held' }, keeping('held'))).ok, true);
    assert.equal((await database.read<{ n: number }>(heldRows))[0]?.n, 1);

    const settled = await Promise.allSettled([
      one.create('createCategory', { name: 'Raced' }, keeping('raced')),
      two.create('createCategory', { name: 'Raced' }, keeping('raced')),
    ]);
    assert.equal(settled.filter((result) => result.status === 'fulfilled').length, 1);
    for (const result of settled) {
      if (result.status === 'rejected') assert.ok(result.reason instanceof IdempotencyConflict);
    }
    const rows = await database.read<{ n: number }>(
      "SELECT count(*)::int AS n FROM categories WHERE name = 'Raced'",
    );
    assert.equal(rows[0]?.n, 1);
  });

  test('PostgreSQL: a category created by one instance is announced to another watching', async (t) => {
    const database = await BACKENDS.postgres();
    t.after(database.drop);
    const [writer, watcher] = await Promise.all([
      createStorage(database.config),
      createStorage(database.config),
    ]);
    t.after(async () => {
      await writer?.close();
      await watcher?.close();
    });
    if (writer === undefined || watcher === undefined) return;
    let calls = 0;
    let announced: () => void = () => {};
    const heard = new Promise<void>((resolve) => {
      announced = resolve;
    });
    await watcher.watchCategories(() => {
      calls += 1;
      if (calls > 1) announced();
    });
    assert.equal(calls, 1, 'told once as it starts listening: anything before may have been missed');
    await writer.create('createCategory', { name: 'Announced' });
    await heard;
  });
});
