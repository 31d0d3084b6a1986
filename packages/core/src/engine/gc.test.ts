/** Garbage collection of content, on a real SQLite file and a real blob directory. */
import { createHash, randomBytes } from 'node:crypto';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { Satchel } from '@satchel/client/operations/satchel.js';
import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../store/blob-store.js';
import { FsBlobStore } from '../store/fs-blob-store.js';
import { catFile, openTemp, readAll } from '../test-support/temp.js';

const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const HOUR = 3600_000;

/** Content large enough to live in the blob directory (over the 64 KiB inline threshold). */
function large(seed: string): Buffer {
  return Buffer.concat([Buffer.from(seed), randomBytes(100_000)]);
}

async function fileExists(data: string, hash: string): Promise<boolean> {
  return access(join(data, 'blobs', hash.slice(0, 2), hash)).then(
    () => true,
    () => false,
  );
}

/** Every version of every file of `ws` reads back (content no GC may have removed). */
async function everyVersionReads(satchel: Satchel, ws: string): Promise<number> {
  let checked = 0;
  const page = await satchel.list(ws, { recursive: true, limit: 1000 });
  for (const entry of page.items) {
    if (entry.type !== 'file') continue;
    const versions = await satchel.listVersions(ws, entry.path, { limit: 1000 });
    for (const v of versions.items) {
      if (v.deleted || v.hash === null) continue;
      const { body } = await satchel.readFile(ws, entry.path, { version: v.seq });
      expect(sha(await readAll(body))).toBe(v.hash);
      checked++;
    }
  }
  return checked;
}

describe('garbage collection', () => {
  it('keeps the parts of a resumable upload under way, however old', async () => {
    const { satchel } = await openTemp();
    const content = large('uploaded in two parts');
    const half = 60_000;
    const upload = await satchel.createUpload('ws', '/up.bin', {
      size: content.byteLength,
      sha256: sha(content),
    });
    await satchel.appendUpload('ws', upload.id, 0, content.subarray(0, half));
    // Grace 0: a file nothing names is removed by the run after the one that first saw it.
    await satchel.collectGarbage({ graceSeconds: 0 });
    await satchel.collectGarbage({ graceSeconds: 0 });
    await satchel.appendUpload('ws', upload.id, half, content.subarray(half));
    await satchel.completeUpload('ws', upload.id);
    expect(sha(await catFile(satchel, '/up.bin'))).toBe(sha(content));
  });

  it('removes the content only a deleted workspace held, keeps shared content, fsck stays clean', async () => {
    const { satchel, data } = await openTemp();
    const shared = large('shared');
    const own = large('own');
    await satchel.createWorkspace('doomed');
    await satchel.writeFile('ws', '/shared.bin', shared);
    await satchel.writeFile('doomed', '/shared.bin', shared);
    await satchel.writeFile('doomed', '/own.bin', own);
    await satchel.writeFile('doomed', '/small.txt', 'inline content only doomed had');
    await satchel.deleteWorkspace('doomed');

    const report = await satchel.collectGarbage({ graceSeconds: 0 });

    expect(report).toMatchObject({ dryRun: false, removed: 2, unregisteredFiles: 0 });
    expect(report.hashes.sort()).toEqual([sha(own), sha('inline content only doomed had')].sort());
    expect(report.bytesFreed).toBe(own.byteLength + 'inline content only doomed had'.length);
    expect(await fileExists(data, sha(own))).toBe(false);
    expect(await fileExists(data, sha(shared))).toBe(true);
    expect((await catFile(satchel, '/shared.bin')).equals(shared)).toBe(true);
    const fsck = await satchel.fsck();
    expect(fsck).toMatchObject({ ok: true, orphans: [], missing: [], corrupt: [] });
    // Nothing left to do: a second run removes nothing.
    expect((await satchel.collectGarbage({ graceSeconds: 0 })).removed).toBe(0);
  });

  it('a dry run removes nothing and reports what a run would remove', async () => {
    const { satchel, data } = await openTemp();
    const own = large('own');
    await satchel.createWorkspace('doomed');
    await satchel.writeFile('doomed', '/own.bin', own);
    await satchel.deleteWorkspace('doomed');

    const dry = await satchel.collectGarbage({ dryRun: true, graceSeconds: 0 });

    expect(dry).toMatchObject({ dryRun: true, removed: 1, hashes: [sha(own)] });
    expect(await fileExists(data, sha(own))).toBe(true);
    expect((await satchel.fsck()).orphans).toEqual([sha(own)]);
    const real = await satchel.collectGarbage({ graceSeconds: 0 });
    expect(real.hashes).toEqual(dry.hashes);
  });

  it('keeps content within the grace period (one hour by default), removes it after', async () => {
    let now = Date.UTC(2026, 0, 1);
    const { satchel, data } = await openTemp({ clock: () => now });
    const own = large('own');
    await satchel.createWorkspace('doomed');
    await satchel.writeFile('doomed', '/own.bin', own);
    await satchel.deleteWorkspace('doomed');

    now += HOUR / 2;
    expect((await satchel.collectGarbage()).removed).toBe(0);
    expect(await fileExists(data, sha(own))).toBe(true);

    now += HOUR;
    expect((await satchel.collectGarbage()).hashes).toEqual([sha(own)]);
    expect(await fileExists(data, sha(own))).toBe(false);
  });

  it('removes a blob-store file no write registered once it has been seen for the grace period', async () => {
    let now = Date.UTC(2026, 0, 1);
    const { satchel, data } = await openTemp({ clock: () => now });
    // What a write interrupted between storing its content and committing leaves behind.
    const blobs = await FsBlobStore.open(join(data, 'blobs'));
    const stray = large('stray');
    await blobs.put(
      (async function* () {
        yield stray;
      })(),
    );

    const first = await satchel.collectGarbage();
    expect(first).toMatchObject({ removed: 0, keptInGrace: 1 });
    now += HOUR / 2;
    expect((await satchel.collectGarbage()).keptInGrace).toBe(1);
    now += HOUR / 2;
    const dry = await satchel.collectGarbage({ dryRun: true });
    expect(dry).toMatchObject({ removed: 1, unregisteredFiles: 1, hashes: [sha(stray)] });
    const last = await satchel.collectGarbage();
    expect(last).toMatchObject({ removed: 1, unregisteredFiles: 1, bytesFreed: 0 });
    expect(await fileExists(data, sha(stray))).toBe(false);
    expect(await satchel.fsck()).toMatchObject({ ok: true, orphans: [] });
  });

  it('a write of content GC is deleting stores it again instead of referring to deleted bytes', async () => {
    // A blob store whose deletions wait for a gate: GC has decided (and committed) that the
    // content goes, and a write of the same content arrives before the bytes are gone.
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let deleting = () => {};
    const deletionStarted = new Promise<void>((resolve) => {
      deleting = resolve;
    });
    const { data } = await openTemp();
    const inner = await FsBlobStore.open(join(data, 'gated-blobs'));
    const gated: BlobStore = {
      put: (source, options) => inner.put(source, options),
      get: (ref, range) => inner.get(ref, range),
      has: (hash) => inner.has(hash),
      verify: (hash) => inner.verify(hash),
      list: () => inner.list(),
      delete: async (hash) => {
        deleting();
        await gate;
        await inner.delete(hash);
      },
    };
    const { satchel } = await openTemp({ blobs: gated });
    const content = large('raced');
    await satchel.createWorkspace('doomed');
    await satchel.writeFile('doomed', '/c.bin', content);
    await satchel.deleteWorkspace('doomed');

    const gc = satchel.collectGarbage({ graceSeconds: 0 });
    await deletionStarted;
    const write = satchel.writeFile('ws', '/c.bin', content);
    setTimeout(release, 50);
    const [report, info] = await Promise.all([gc, write]);

    expect(report.hashes).toEqual([sha(content)]);
    expect(info.hash).toBe(sha(content));
    expect((await catFile(satchel, '/c.bin')).equals(content)).toBe(true);
    expect(await satchel.fsck()).toMatchObject({ ok: true, orphans: [] });
  });

  it.each([
    ['the blob directory', 0],
    ['the blob directory behind 0–4 ms of latency, like a remote store', 4],
  ])(
    'racing with writes of the same content never removes referenced content (%s)',
    async (_, latency) => {
      const { data } = await openTemp();
      const inner = await FsBlobStore.open(join(data, 'race-blobs'));
      const pause = () => new Promise((resolve) => setTimeout(resolve, Math.random() * latency));
      // Latency between the store and its caller widens the window between a write storing its
      // content and committing it, where an uncoordinated collector would delete the bytes.
      const slow: BlobStore = {
        put: async (source, options) => {
          const ref = await inner.put(source, options);
          await pause();
          return ref;
        },
        get: (ref, range) => inner.get(ref, range),
        has: async (hash) => {
          await pause();
          return inner.has(hash);
        },
        verify: (hash) => inner.verify(hash),
        list: () => inner.list(),
        delete: async (hash) => {
          await pause();
          await inner.delete(hash);
        },
      };
      const { satchel } = await openTemp(latency === 0 ? {} : { blobs: slow });
      const rounds = 15;
      let collected = 0;
      for (let round = 0; round < rounds; round++) {
        const content = large(`round-${round}`);
        const small = `small content of round ${round}`;
        // The content is stored and registered, then unreferenced: GC's candidate.
        await satchel.createWorkspace('doomed');
        await satchel.writeFile('doomed', '/c.bin', content);
        await satchel.writeFile('doomed', '/s.txt', small);
        await satchel.deleteWorkspace('doomed');
        let stop = false;
        const collector = (async () => {
          while (!stop) collected += (await satchel.collectGarbage({ graceSeconds: 0 })).removed;
        })();
        // Each writer stores the round's content once (a later put of the same bytes would heal
        // what an unsafe collector broke, so no writer repeats it) and content of its own, which
        // has no registry row until the write commits: both are fair game for a collector that
        // does not coordinate with writers.
        const writers = Array.from({ length: 6 }, async (_, w) => {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
          await satchel.writeFile('ws', `/r${round}/w${w}.bin`, content);
          await satchel.writeFile('ws', `/r${round}/w${w}-own.bin`, large(`own-${round}-${w}`));
          await satchel.writeFile('ws', `/r${round}/w${w}.txt`, small);
          await satchel.writeFiles('ws', [
            { path: `/r${round}/batch-${w}`, content: large(`batch-${round}-${w}`) },
          ]);
        });
        // A streamed write cannot be replayed: it either commits intact content or is refused
        // as retryable.
        const streamed = satchel
          .writeFile(
            'ws',
            `/r${round}/streamed.bin`,
            (async function* () {
              yield content.subarray(0, 70_000);
              yield content.subarray(70_000);
            })(),
          )
          .catch((error: unknown) => {
            expect(error).toMatchObject({
              code: 'UNAVAILABLE',
              data: { reason: 'content_collected' },
            });
          });
        await Promise.all([...writers, streamed]);
        stop = true;
        await collector;
      }
      expect(collected).toBeGreaterThan(0);
      expect(await everyVersionReads(satchel, 'ws')).toBeGreaterThan(0);
      const fsck = await satchel.fsck();
      expect(fsck).toMatchObject({ ok: true, missing: [], corrupt: [] });
    },
    // 15 rounds of writers racing a collector in a loop: over 30 s on a loaded 2-core machine.
    120_000,
  );

  it('one run at a time: a second run while one holds the lease is refused', async () => {
    const { satchel } = await openTemp();
    const runs = await Promise.allSettled([
      satchel.collectGarbage({ graceSeconds: 0 }),
      satchel.collectGarbage({ graceSeconds: 0 }),
      satchel.collectGarbage({ graceSeconds: 0 }),
    ]);
    const refused = runs.filter((r) => r.status === 'rejected');
    for (const r of refused) {
      expect(r.reason).toMatchObject({ code: 'CONFLICT', data: { reason: 'gc_running' } });
    }
    expect(runs.some((r) => r.status === 'fulfilled')).toBe(true);
  });

  it('is for admins only, and audited', async () => {
    const { satchel } = await openTemp();
    await satchel.createPrincipal({ name: 'bob', kind: 'user' });
    const { key } = await satchel.createKey({ principal: 'bob' });
    const bob = satchel.as(await satchel.authenticate(key));
    await expect(bob.collectGarbage({ dryRun: true })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await satchel.collectGarbage({ dryRun: true });
    const audit = await satchel.listAudit({ limit: 1000 });
    const actions = audit.items.map((e) => `${e.action}:${e.outcome}`);
    expect(actions).toContain('collectGarbage:refused');
    expect(actions).toContain('collectGarbage:ok');
  });
});
