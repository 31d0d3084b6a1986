/** What every MetadataStore backend must do; each dialect runs it with its own factory. */
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accessCases } from './metadata-store.contract-access.js';
import {
  byteOrder,
  DIRECTORIES,
  entry,
  FILES,
  fileVersion,
  inlineBlob,
  NOW,
  sha256,
} from './metadata-store.contract-rows.js';
import type {
  BlobRecord,
  EntryRecord,
  MetadataStore,
  MetadataTx,
  VersionRecord,
} from './metadata-store.js';
import { rawDatabase } from './testing.js';

export interface MetadataStoreFixture {
  /** A migrated, empty store. */
  readonly store: MetadataStore;
  cleanup(): Promise<void>;
}

export function runMetadataStoreContract(
  name: string,
  factory: () => Promise<MetadataStoreFixture>,
): void {
  describe(`MetadataStore contract: ${name}`, () => {
    let fixture: MetadataStoreFixture;
    let store: MetadataStore;

    beforeEach(async () => {
      fixture = await factory();
      store = fixture.store;
    });

    afterEach(async () => {
      await fixture.cleanup();
    });

    async function createWorkspace(id: string): Promise<void> {
      await store.transaction((tx) => tx.createWorkspace({ id, name: id, createdAt: NOW }));
    }

    /** Writes a file version (registering its content) and makes it the head. */
    async function writeVersion(
      tx: MetadataTx,
      workspaceId: string,
      path: string,
      text: string,
    ): Promise<number> {
      const seq = await tx.nextSeq(workspaceId);
      const blob = inlineBlob(text);
      await tx.putBlob(blob);
      await tx.insertVersion(fileVersion(workspaceId, path, seq, blob.hash));
      await tx.putEntry({ ...entry(workspaceId, path, 'file', blob.hash), seq });
      return seq;
    }

    it('migrates idempotently', async () => {
      await store.migrate();
      await store.migrate();
      await createWorkspace('w1');
      await store.migrate();
      expect((await store.findWorkspace('w1'))?.id).toBe('w1');
    });

    it('refuses a schema newer than it knows, and leaves it as it is', async () => {
      const db = rawDatabase(store) as unknown as Kysely<{
        kysely_migration: { name: string; timestamp: string };
      }>;
      await db
        .insertInto('kysely_migration')
        .values({ name: '9999_from_the_future', timestamp: new Date(NOW).toISOString() })
        .execute();
      await expect(store.migrate()).rejects.toThrow(
        'the database schema is newer than this version of Satchel (it has migration 9999_from_the_future)',
      );
      await createWorkspace('w1');
      expect((await store.findWorkspace('w1'))?.id).toBe('w1');
    });

    it('hands out strictly increasing seqs, per workspace', async () => {
      await createWorkspace('w1');
      await createWorkspace('w2');
      const first = await store.transaction(async (tx) => [
        await tx.nextSeq('w1'),
        await tx.nextSeq('w1'),
      ]);
      const other = await store.transaction((tx) => tx.nextSeq('w2'));
      const third = await store.transaction((tx) => tx.nextSeq('w1'));
      expect(first).toEqual([1, 2]);
      expect(other).toBe(1);
      expect(third).toBe(3);
      expect(Number((await store.findWorkspace('w1'))?.seq)).toBe(3);
      expect(Number((await store.findWorkspace('w2'))?.seq)).toBe(1);
    });

    it('leaves nothing behind when a transaction throws', async () => {
      const blob = inlineBlob('never committed');
      const failure = new Error('abort');
      await expect(
        store.transaction(async (tx) => {
          await tx.createWorkspace({ id: 'w1', name: 'w1', createdAt: NOW });
          const seq = await tx.nextSeq('w1');
          await tx.putBlob(blob);
          await tx.insertVersion(fileVersion('w1', '/f', seq, blob.hash));
          await tx.putEntry(entry('w1', '/f', 'file', blob.hash));
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await store.findWorkspace('w1')).toBeUndefined();
      expect(await store.getVersion('w1', '/f')).toBeUndefined();
      expect(await store.getEntry('w1', '/f')).toBeUndefined();
      expect(await store.getBlob(blob.hash)).toBeUndefined();
      expect(await store.fsck.countVersions()).toBe(0);
    });

    it('commits the rest of a batch when one operation throws, and reports its error', async () => {
      await createWorkspace('w1');
      const failure = new Error('middle fails');
      const results = await store.batch<number>([
        (tx) => writeVersion(tx, 'w1', '/one', 'one'),
        async (tx) => {
          await writeVersion(tx, 'w1', '/two', 'two');
          throw failure;
        },
        (tx) => writeVersion(tx, 'w1', '/three', 'three'),
      ]);
      expect(results).toEqual([
        { ok: true, value: 1 },
        { ok: false, error: failure },
        { ok: true, value: 2 },
      ]);
      expect((await store.getEntry('w1', '/one'))?.hash).toBe(sha256('one'));
      expect((await store.getEntry('w1', '/three'))?.hash).toBe(sha256('three'));
      expect(await store.getEntry('w1', '/two')).toBeUndefined();
      expect(await store.getVersion('w1', '/two')).toBeUndefined();
      expect(await store.getBlob(sha256('two'))).toBeUndefined();
      expect(Number((await store.findWorkspace('w1'))?.seq)).toBe(2);
    });

    it('keeps the first row when a blob is registered twice', async () => {
      const first = inlineBlob('same content', NOW);
      await store.transaction((tx) => tx.putBlob(first));
      await store.transaction((tx) => tx.putBlob({ ...first, createdAt: NOW + 1000 }));
      const row = await store.getBlob(first.hash);
      expect(Number(row?.createdAt)).toBe(NOW);
      expect(Buffer.from(row?.data ?? new Uint8Array())).toEqual(Buffer.from('same content'));
      expect(Number(row?.size)).toBe(first.size);
    });

    describe('listing entries', () => {
      const all = byteOrder([...DIRECTORIES, ...FILES]);

      beforeEach(async () => {
        await createWorkspace('w1');
        await createWorkspace('w2');
        const blob = inlineBlob('x');
        await store.transaction(async (tx) => {
          await tx.putBlob(blob);
          for (const path of DIRECTORIES) await tx.putEntry(entry('w1', path, 'directory', null));
          for (const path of FILES) await tx.putEntry(entry('w1', path, 'file', blob.hash));
          // Another workspace's entries must never show up.
          await tx.putEntry(entry('w2', '/a', 'directory', null));
          await tx.putEntry(entry('w2', '/a/other', 'file', blob.hash));
        });
      });

      const paths = (rows: readonly EntryRecord[]) => rows.map((r) => r.path);

      it('lists the children of a directory in byte-wise order', async () => {
        const root = await store.listEntries('w1', '/', false, null, 100);
        expect(paths(root)).toEqual(['/a', '/a-b', '/a.b', '/a0', '/b', '/\u00e9']);
        const a = await store.listEntries('w1', '/a', false, null, 100);
        expect(paths(a)).toEqual([
          '/a/b',
          '/a/b-c',
          '/a/z',
          '/a/\u00e9',
          '/a/\uff61',
          '/a/\u{1f600}',
        ]);
        expect(await store.countEntries('w1', '/', false)).toBe(root.length);
        expect(await store.countEntries('w1', '/a', false)).toBe(a.length);
      });

      it('lists a subtree in byte-wise order, without look-alike siblings', async () => {
        const everything = await store.listEntries('w1', '/', true, null, 100);
        expect(paths(everything)).toEqual(all);
        const a = paths(await store.listEntries('w1', '/a', true, null, 100));
        expect(a).toEqual(byteOrder(all.filter((p) => p.startsWith('/a/'))));
        expect(a).toEqual([
          '/a/b',
          '/a/b-c',
          '/a/b/c',
          '/a/z',
          '/a/\u00e9',
          '/a/\uff61',
          '/a/\u{1f600}',
        ]);
        expect(a).not.toContain('/a');
        expect(a).not.toContain('/a-b');
        expect(a).not.toContain('/a.b');
        expect(a).not.toContain('/a0');
        expect(paths(await store.listEntries('w1', '/a/b', true, null, 100))).toEqual(['/a/b/c']);
        expect(await store.countEntries('w1', '/', true)).toBe(all.length);
        expect(await store.countEntries('w1', '/a', true)).toBe(a.length);
        expect(await store.countEntries('w1', '/a/b', true)).toBe(1);
      });

      it('pages by afterPath without gaps or repeats', async () => {
        for (const [dir, recursive] of [
          ['/', true],
          ['/a', true],
          ['/', false],
        ] as const) {
          const pages: string[] = [];
          let after: string | null = null;
          for (;;) {
            const rows: EntryRecord[] = await store.listEntries('w1', dir, recursive, after, 3);
            pages.push(...paths(rows));
            const last = rows.at(-1);
            if (rows.length < 3 || !last) break;
            after = last.path;
          }
          expect(pages).toEqual(paths(await store.listEntries('w1', dir, recursive, null, 100)));
          expect(pages.length).toBe(await store.countEntries('w1', dir, recursive));
        }
        const afterA = await store.listEntries('w1', '/', true, '/a/z', 100);
        expect(paths(afterA)).toEqual(all.slice(all.indexOf('/a/z') + 1));
      });
    });

    it('gets the head version or one at a seq, and lists versions both ways', async () => {
      await createWorkspace('w1');
      const seqs: number[] = [];
      for (const text of ['v1', 'v2', 'v3', 'v4']) {
        seqs.push(await store.transaction((tx) => writeVersion(tx, 'w1', '/f', text)));
      }
      await store.transaction((tx) => writeVersion(tx, 'w1', '/g', 'other path'));
      expect(seqs).toEqual([1, 2, 3, 4]);

      const head = await store.getVersion('w1', '/f');
      expect(Number(head?.seq)).toBe(4);
      expect(head?.hash).toBe(sha256('v4'));
      expect((await store.getVersion('w1', '/f', 2))?.hash).toBe(sha256('v2'));
      expect(await store.getVersion('w1', '/f', 5)).toBeUndefined();
      expect(await store.getVersion('w1', '/missing')).toBeUndefined();

      const seqsOf = (rows: readonly VersionRecord[]) => rows.map((r) => Number(r.seq));
      expect(seqsOf(await store.listVersions('w1', '/f', null, 100))).toEqual([4, 3, 2, 1]);
      expect(seqsOf(await store.listVersions('w1', '/f', null, 100, 'asc'))).toEqual([1, 2, 3, 4]);
      expect(seqsOf(await store.listVersions('w1', '/f', null, 2))).toEqual([4, 3]);
      expect(seqsOf(await store.listVersions('w1', '/f', 3, 100))).toEqual([2, 1]);
      expect(seqsOf(await store.listVersions('w1', '/f', 3, 1))).toEqual([2]);
      expect(seqsOf(await store.listVersions('w1', '/f', 4, 100, 'asc'))).toEqual([1, 2, 3]);
      expect(seqsOf(await store.listVersions('w1', '/f', 1, 100))).toEqual([]);
    });

    it('refuses a version whose content is not registered', async () => {
      await createWorkspace('w1');
      const unregistered = sha256('not registered');
      await expect(
        store.transaction(async (tx) => {
          const seq = await tx.nextSeq('w1');
          await tx.insertVersion(fileVersion('w1', '/f', seq, unregistered));
        }),
      ).rejects.toThrow(/foreign key/i);
      expect(await store.getVersion('w1', '/f')).toBeUndefined();
      expect(Number((await store.findWorkspace('w1'))?.seq)).toBe(0);
      expect(await store.fsck.versionsWithoutBlob(10)).toEqual([]);
    });

    it('reads the file tree back exactly as written, with numbers as numbers', async () => {
      await createWorkspace('w1');
      const blob: BlobRecord = {
        hash: sha256('large'),
        size: 5_000_000_000,
        location: 'store',
        data: null,
        chunkSize: 4_194_304,
        chunks: Buffer.alloc(64, 7),
        createdAt: NOW,
      };
      const moved: VersionRecord = {
        ...fileVersion('w1', '/new', 1, blob.hash),
        op: 'move',
        size: blob.size,
        session: 's-1',
        message: 'renamed',
        origin: { path: '/old', seq: 7 },
      };
      const tombstone: VersionRecord = {
        ...fileVersion('w1', '/gone', 2, blob.hash),
        op: 'delete',
        deleted: true,
        hash: null,
        size: 0,
        contentType: null,
      };
      const head: EntryRecord = {
        ...entry('w1', '/new', 'file', blob.hash),
        size: blob.size,
        session: 's-1',
      };
      await store.transaction(async (tx) => {
        await tx.putBlob(blob);
        await tx.insertVersion(moved);
        await tx.insertVersion(tombstone);
        await tx.putEntry(head);
      });
      const { data: _data, ...meta } = blob;
      expect(await store.getBlob(blob.hash)).toEqual(blob);
      expect(await store.fsck.listBlobs(null, 10)).toEqual([meta]);
      expect(await store.getVersion('w1', '/new')).toEqual(moved);
      expect(await store.getVersion('w1', '/gone', 2)).toEqual(tombstone);
      expect(await store.listChanges('w1', { after: 0 })).toEqual([moved, tombstone]);
      expect(await store.getEntry('w1', '/new')).toEqual(head);
      const replaced = { ...head, seq: 3, size: 1, session: null, modifiedAt: NOW + 3 };
      await store.transaction((tx) => tx.putEntry(replaced));
      expect(await store.listEntries('w1', '/', false, null, 10)).toEqual([replaced]);
      expect(await store.findWorkspace('w1')).toEqual({
        id: 'w1',
        name: 'w1',
        seq: 0,
        createdAt: NOW,
        settings: expect.any(String),
        fence: expect.any(Number),
      });
    });

    accessCases({ store: () => store, createWorkspace, now: NOW });
  });
}
