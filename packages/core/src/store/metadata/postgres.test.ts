/**
 * The MetadataStore contract on PostgreSQL (one schema per fixture, dropped afterwards), and
 * what only PostgreSQL can get wrong: seqs and fencing tokens under truly concurrent
 * transactions (READ COMMITTED), relaxed commits that stay inside their transaction, and int8
 * columns as numbers. Skipped, with one line, where no test database is reachable.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  createTestSchema,
  postgresUrlForTests,
  type TestSchema,
} from '../../test-support/postgres.js';
import { openMetadata } from '../open-stores.js';
import { runMetadataStoreContract } from './metadata-store.contract.js';
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
