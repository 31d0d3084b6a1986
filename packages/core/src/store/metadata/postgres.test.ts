/**
 * The MetadataStore contract on PostgreSQL (one schema per fixture, dropped afterwards), and
 * what only PostgreSQL can get wrong: seqs and fencing tokens under truly concurrent
 * transactions (READ COMMITTED), relaxed commits that stay inside their transaction, and int8
 * columns as numbers. Skipped, with one line, where no test database is reachable.
 */
import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import {
  createTestSchema,
  postgresUrlForTests,
  type TestSchema,
} from '../../test-support/postgres.js';
import { pgModule } from '../lazy-sdks.js';
import { openMetadata } from '../open-stores.js';
import { runMetadataStoreContract } from './metadata-store.contract.js';
import { entry, fileVersion, inlineBlob } from './metadata-store.contract-rows.js';
import type { MetadataQueries, MetadataStore } from './metadata-store.js';
import { rawDatabase } from './testing.js';

const url = postgresUrlForTests();

async function migrated(schema: TestSchema): Promise<MetadataStore> {
  const store = await openMetadata(schema.config);
  await store.migrate();
  return store;
}

describe.skipIf(url === null)('PostgreSQL metadata', () => {
  const databaseUrl = url ?? '';

  runMetadataStoreContract('PostgreSQL', async () => {
    const schema = await createTestSchema(databaseUrl);
    const store = await migrated(schema);
    return {
      store,
      cleanup: async () => {
        await store.close();
        await schema.drop();
      },
    };
  });

  /** A migrated store on a fresh schema, with workspace "w", closed and dropped afterwards. */
  async function withStore(fn: (store: MetadataStore) => Promise<void>): Promise<void> {
    const schema = await createTestSchema(databaseUrl);
    const store = await migrated(schema);
    try {
      await store.transaction((tx) => tx.createWorkspace({ id: 'w', name: 'w', createdAt: 1 }));
      await fn(store);
    } finally {
      await store.close();
      await schema.drop();
    }
  }

  it('hands out seqs gap-free and in commit order to concurrent transactions', async () => {
    await withStore(async (store) => {
      // Each transaction takes its seq, then waits before it commits: without the row lock
      // two of them would read the same seq, or commit out of seq order.
      const committed: number[] = [];
      await Promise.all(
        Array.from({ length: 12 }, async () => {
          const seq = await store.transaction(async (tx) => {
            const seq = await tx.nextSeq('w');
            await new Promise((resolve) => setTimeout(resolve, 5));
            return seq;
          });
          committed.push(seq);
        }),
      );
      expect(committed).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(await store.workspaceSeq('w')).toBe(12);
    });
  });

  it('rolls a seq back with its transaction, so the next one takes it', async () => {
    await withStore(async (store) => {
      const failed = store.transaction(async (tx) => {
        await tx.nextSeq('w');
        throw new Error('give up');
      });
      await expect(failed).rejects.toThrow('give up');
      expect(await store.transaction((tx) => tx.nextSeq('w'))).toBe(1);
    });
  });

  it('hands out strictly increasing fencing tokens to concurrent grants, across epochs', async () => {
    await withStore(async (store) => {
      const first = await store.startLockEpoch();
      const tokens = await Promise.all(
        Array.from({ length: 8 }, () => store.transaction((tx) => tx.locks.nextFence('w'))),
      );
      expect([...tokens].sort((a, b) => a - b)).toEqual(
        Array.from({ length: 8 }, (_, i) => first * 2 ** 24 + i + 1),
      );
      // Far past 2^31: the floor is computed in 64 bits.
      await rawDatabase(store)
        .updateTable('meta')
        .set({ value: '300' })
        .where('key', '=', 'lock_epoch')
        .execute();
      const epoch = await store.startLockEpoch();
      expect(epoch).toBe(301);
      const token = await store.transaction((tx) => tx.locks.nextFence('w'));
      expect(token).toBe(301 * 2 ** 24 + 1);
      expect(typeof token).toBe('number');
    });
  });

  it('turns synchronous_commit off only inside a relaxed batch', async () => {
    await withStore(async (store) => {
      const setting = (q: MetadataQueries) =>
        sql<{ synchronous_commit: string }>`show synchronous_commit`
          .execute(rawDatabase(q))
          .then((r) => r.rows[0]?.synchronous_commit);
      const [relaxed] = await store.batch([setting], { durable: false });
      const [durable] = await store.batch([setting]);
      expect(relaxed).toEqual({ ok: true, value: 'off' });
      expect(durable).toEqual({ ok: true, value: 'on' });
      expect(await setting(store)).toBe('on');
      // Work started inside a relaxed batch that outlives it (async context follows timers)
      // commits durably afterwards.
      let later: Promise<unknown> | undefined;
      await store.batch(
        [
          async (tx) => {
            later = new Promise((resolve) => setTimeout(resolve, 20)).then(() =>
              store.batch([setting]),
            );
            return setting(tx);
          },
        ],
        { durable: false },
      );
      expect(await later).toEqual([{ ok: true, value: 'on' }]);
    });
  });

  /** The statements `fn` sends to the server, by text (each `client.query` is one round trip). */
  async function sent(fn: () => Promise<void>): Promise<string[]> {
    const query = vi.spyOn(pgModule().Client.prototype, 'query');
    try {
      await fn();
      return query.mock.calls.map(([text]) => (typeof text === 'string' ? text : String(text)));
    } finally {
      query.mockRestore();
    }
  }

  it("sends a write's inserts in one statement, before anything reads them", async () => {
    await withStore(async (store) => {
      const blob = inlineBlob('hello');
      let seen: unknown;
      const texts = await sent(() =>
        store.transaction(async (tx) => {
          await tx.putBlob(blob);
          await tx.insertVersion(fileVersion('w', '/a.txt', 1, blob.hash));
          await tx.putEntry(entry('w', '/a.txt', 'file', blob.hash));
          // Two inserts into one table never share a statement: the second waits for the next.
          await tx.putEntry(entry('w', '/b.txt', 'file', blob.hash));
          seen = await tx.getEntryWithBlob('w', '/a.txt');
        }),
      );
      expect(texts[0]).toMatch(/^begin; select pg_advisory_xact_lock/);
      expect(texts[1]).toMatch(
        /^with w0 as \(insert into "blobs".*w1 as \(insert into "versions".*\) insert into "entries"/s,
      );
      expect(texts[2]).toMatch(/^insert into "entries"/);
      expect(texts[3]).toMatch(/^select "entries"/);
      expect(texts.slice(4)).toEqual(['commit']);
      expect(seen).toMatchObject({
        entry: { path: '/a.txt', hash: blob.hash },
        blob: { data: blob.data },
      });
      expect(await store.usage.counters('w')).toMatchObject({
        files: 2,
        currentBytes: 2,
        historyBytes: 1,
      });
    });
  });

  it('fails only the operation of a batch whose held-back insert fails, and keeps none of its rows', async () => {
    await withStore(async (store) => {
      const [blob, third, other] = ['first', 'third', 'second'].map((text) => inlineBlob(text));
      if (!blob || !third || !other) throw new Error('three blobs');
      const version = fileVersion('w', '/a.txt', 1, blob.hash);
      await store.transaction(async (tx) => {
        await tx.putBlob(blob);
        await tx.insertVersion(version);
      });
      const results = await store.batch([
        async (tx) => {
          await tx.putEntry(entry('w', '/a.txt', 'file', blob.hash));
          await tx.putBlob(third);
          // The same (workspace, path, seq) again: refused when the inserts are sent.
          await tx.insertVersion(version);
        },
        async (tx) => {
          await tx.putBlob(other);
          await tx.putEntry(entry('w', '/b.txt', 'file', other.hash));
        },
      ]);
      expect(results[0]).toMatchObject({ ok: false, error: { code: '23505' } });
      expect(results[1]).toEqual({ ok: true, value: undefined });
      expect(await store.getEntry('w', '/a.txt')).toBeUndefined();
      expect(await store.getBlob(third.hash)).toBeUndefined();
      expect(await store.getEntry('w', '/b.txt')).toMatchObject({ hash: other.hash });
      // Alone in its transaction, the same failure fails the commit and leaves nothing.
      const alone = store.transaction(async (tx) => {
        await tx.putBlob(third);
        await tx.insertVersion(version);
      });
      await expect(alone).rejects.toMatchObject({ code: '23505' });
      expect(await store.getBlob(third.hash)).toBeUndefined();
    });
  });

  it('refuses to change or truncate the audit log', async () => {
    await withStore(async (store) => {
      await store.transaction((tx) =>
        tx.audit.insert([
          {
            idx: 1,
            time: 1,
            actor: 'a',
            session: null,
            action: 'x',
            workspace: null,
            workspaceId: null,
            path: null,
            seq: null,
            outcome: 'ok',
            code: null,
            prevHash: '0',
            hash: '1',
          },
        ]),
      );
      const db = rawDatabase(store);
      await expect(db.updateTable('audit').set({ actor: 'b' }).execute()).rejects.toThrow(
        'audit is append-only: update refused',
      );
      await expect(db.deleteFrom('audit').execute()).rejects.toThrow(
        'audit is append-only: delete refused',
      );
      await expect(sql`truncate audit`.execute(db)).rejects.toThrow(
        'audit is append-only: truncate refused',
      );
      expect(await store.audit.count()).toBe(1);
    });
  });

  it('refuses to start when the database is unreachable, naming it without the password', async () => {
    const down = 'postgres://satchel:hunter2@127.0.0.1:1/nowhere';
    const error = await openMetadata({ kind: 'postgres', url: down }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    const message = (error as Error).message;
    expect(message).toContain('postgres://satchel:***@127.0.0.1:1/nowhere');
    expect(message).toContain('ECONNREFUSED');
    expect(message).not.toContain('hunter2');
  });
});
