/**
 * Workspace quotas and usage: figures after every kind of mutation (equal to a recount from the
 * rows), refusals that name usage and limit and write nothing, early refusals before content is
 * stored, who may set a quota, and a concurrent burst at the limit admitting exactly what fits.
 * Runs on PostgreSQL too with SATCHEL_TEST_METADATA=postgres (quota.postgres.test.ts adds two nodes).
 */
import { isSatchelError } from '@satchel/client/errors.js';
import type { Satchel } from '@satchel/client/operations/satchel.js';
import { describe, expect, it } from 'vitest';
import { rawDatabase } from '../store/metadata/testing.js';
import { recountUsage } from '../store/metadata/usage-queries.js';
import { embeddedStores, openMetadata } from '../store/open-stores.js';
import { openTemp } from '../test-support/temp.js';

const KB = 'k'.repeat(1000);

/** Usage without its quotas, for short assertions. */
async function figures(satchel: Satchel, ws = 'ws') {
  const { currentBytes, historyBytes, deduplicatedBytes, files } =
    await satchel.getWorkspaceUsage(ws);
  return { currentBytes, historyBytes, deduplicatedBytes, files };
}

/** Starts `n` writes of 1,000 distinct bytes each, all at once; how many succeeded. */
async function burst(satchel: Satchel, n: number): Promise<number> {
  const results = await Promise.allSettled(
    Array.from({ length: n }, (_, i) =>
      satchel.writeFile('ws', `/burst/${i}.txt`, `${String(i).padStart(4, '0')}${KB.slice(4)}`),
    ),
  );
  for (const r of results) {
    if (r.status === 'rejected' && !isSatchelError(r.reason, 'QUOTA_EXCEEDED')) throw r.reason;
  }
  return results.filter((r) => r.status === 'fulfilled').length;
}

describe('workspace usage', () => {
  it('counts current, history and deduplicated bytes and files through every mutation', async () => {
    const { satchel } = await openTemp();
    expect(await figures(satchel)).toEqual({
      currentBytes: 0,
      historyBytes: 0,
      deduplicatedBytes: 0,
      files: 0,
    });
    await satchel.writeFile('ws', '/a.txt', 'x'.repeat(100));
    await satchel.writeFile('ws', '/dir/b.txt', 'y'.repeat(50));
    expect(await figures(satchel)).toEqual({
      currentBytes: 150,
      historyBytes: 150,
      deduplicatedBytes: 150,
      files: 2,
    });
    // An overwrite replaces the current bytes and adds to the history.
    await satchel.writeFile('ws', '/a.txt', 'z'.repeat(30));
    expect(await figures(satchel)).toEqual({
      currentBytes: 80,
      historyBytes: 180,
      deduplicatedBytes: 180,
      files: 2,
    });
    // A move keeps the current bytes; the destination's version joins the history, and its
    // content is the same blob (deduplicated once).
    await satchel.move('ws', '/dir', '/moved');
    expect(await figures(satchel)).toEqual({
      currentBytes: 80,
      historyBytes: 230,
      deduplicatedBytes: 180,
      files: 2,
    });
    await satchel.copy('ws', '/a.txt', '/a-copy.txt');
    expect(await figures(satchel)).toMatchObject({
      currentBytes: 110,
      historyBytes: 260,
      files: 3,
    });
    // A delete frees the current bytes; the history keeps them.
    await satchel.remove('ws', '/moved', { recursive: true });
    expect(await figures(satchel)).toMatchObject({ currentBytes: 60, historyBytes: 260, files: 2 });
    const first = (await satchel.listVersions('ws', '/a.txt')).items.at(-1);
    await satchel.restore('ws', '/a.txt', first?.seq ?? 0);
    await satchel.appendFile('ws', '/a-copy.txt', '!!');
    await satchel.mkdir('ws', '/empty');
    expect(await figures(satchel)).toEqual({
      currentBytes: 132,
      historyBytes: 392,
      deduplicatedBytes: 212,
      files: 2,
    });
  });

  // The recount opens the data directory's SQLite file beside the engine.
  it.skipIf(process.env.SATCHEL_TEST_METADATA === 'postgres')(
    'keeps counters equal to a recount from the rows (what the migration backfills)',
    async () => {
      const { satchel, data } = await openTemp();
      await satchel.writeFiles('ws', [
        { path: '/p/1.txt', content: 'one' },
        { path: '/p/2.txt', content: 'two!' },
      ]);
      await satchel.move('ws', '/p/1.txt', '/q/1.txt');
      await satchel.remove('ws', '/p/2.txt');
      await satchel.writeFile('ws', '/q/1.txt', 'rewritten');
      const counted = await figures(satchel);
      const store = await openMetadata(embeddedStores(data).metadata);
      try {
        await recountUsage(rawDatabase(store));
      } finally {
        await store.close();
      }
      expect(await figures(satchel)).toEqual(counted);
    },
  );
});

describe('workspace quotas', () => {
  it('refuse a write over the byte quota, naming usage and limit, and write nothing', async () => {
    const { satchel } = await openTemp();
    await satchel.updateWorkspace('ws', { quotaBytes: 1500 });
    await satchel.writeFile('ws', '/a.txt', KB);
    const { seq } = await satchel.getWorkspace('ws');
    const refused = satchel.writeFile('ws', '/b.txt', KB);
    await expect(refused).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
      status: 413,
      data: { workspace: 'ws', quota: 'bytes', usage: 1000, limit: 1500, requested: 1000 },
    });
    await expect(refused).rejects.toThrow(/limited to 1500 bytes of current files; it holds 1000/);
    expect((await satchel.getWorkspace('ws')).seq).toBe(seq);
    await expect(satchel.stat('ws', '/b.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // What fits still goes in, and an overwrite counts only its growth.
    await satchel.writeFile('ws', '/b.txt', KB.slice(0, 500));
    await satchel.writeFile('ws', '/a.txt', KB.slice(0, 900));
    expect(await figures(satchel)).toMatchObject({ currentBytes: 1400 });
  });

  it('refuse a whole batch when it does not fit, before storing any of it', async () => {
    const { satchel } = await openTemp();
    await satchel.updateWorkspace('ws', { quotaFiles: 3 });
    await satchel.writeFile('ws', '/keep.txt', 'kept');
    const batch = ['/1.txt', '/2.txt', '/3.txt'].map((path) => ({ path, content: path }));
    await expect(satchel.writeFiles('ws', batch)).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
      data: { quota: 'files', usage: 1, limit: 3, requested: 3 },
    });
    expect(await figures(satchel)).toMatchObject({ files: 1, historyBytes: 4 });
    expect((await satchel.list('ws', { recursive: true })).items.map((i) => i.path)).toEqual([
      '/keep.txt',
    ]);
  });

  it('count deleted files in the history quota, and refuse copies, moves and restores past it', async () => {
    const { satchel } = await openTemp();
    await satchel.updateWorkspace('ws', { quotaHistoryBytes: 2500 });
    const first = await satchel.writeFile('ws', '/a.txt', KB);
    await satchel.remove('ws', '/a.txt');
    await satchel.writeFile('ws', '/b.txt', KB);
    expect(await figures(satchel)).toMatchObject({ currentBytes: 1000, historyBytes: 2000 });
    for (const refused of [
      satchel.copy('ws', '/b.txt', '/c.txt'),
      satchel.move('ws', '/b.txt', '/c.txt'),
      satchel.restore('ws', '/a.txt', first.seq),
    ]) {
      await expect(refused).rejects.toMatchObject({
        code: 'QUOTA_EXCEEDED',
        data: { quota: 'historyBytes', usage: 2000, limit: 2500, requested: 1000 },
      });
    }
    expect(await figures(satchel)).toMatchObject({ historyBytes: 2000, files: 1 });
  });

  it('let a workspace over a lowered quota shrink, and refuse only growth', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.txt', KB);
    await satchel.writeFile('ws', '/b.txt', KB);
    await satchel.updateWorkspace('ws', { quotaBytes: 500 });
    await satchel.writeFile('ws', '/a.txt', 'smaller');
    await satchel.remove('ws', '/b.txt');
    await satchel.move('ws', '/a.txt', '/c.txt');
    await expect(satchel.appendFile('ws', '/c.txt', KB)).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
    });
    // Removing the quota (null) lifts it.
    await satchel.updateWorkspace('ws', { quotaBytes: null });
    await satchel.appendFile('ws', '/c.txt', KB);
    expect((await satchel.getWorkspaceUsage('ws')).quota).toEqual({
      bytes: null,
      historyBytes: null,
      files: null,
    });
  });

  it('refuse a stream of a declared size, or an upload, before reading a byte of it', async () => {
    const { satchel } = await openTemp();
    await satchel.updateWorkspace('ws', { quotaBytes: 100, quotaFiles: 10 });
    let pulled = false;
    async function* body() {
      pulled = true;
      yield Buffer.from(KB);
    }
    await expect(satchel.writeFile('ws', '/big.bin', body(), { size: 1000 })).rejects.toMatchObject(
      { code: 'QUOTA_EXCEEDED', data: { quota: 'bytes' } },
    );
    expect(pulled).toBe(false);
    await expect(satchel.createUpload('ws', '/big.bin', { size: 1000 })).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
    });
    // A stream that says nothing of its size is refused at the commit, all the same.
    await expect(satchel.writeFile('ws', '/big.bin', body())).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
    });
    expect(await figures(satchel)).toMatchObject({ currentBytes: 0, files: 0 });
  });

  it('are set by admins only: an owner sees them but cannot lift them', async () => {
    const { satchel } = await openTemp();
    await satchel.updateWorkspace('ws', { quotaFiles: 1 });
    await satchel.createPrincipal({ name: 'agent', kind: 'agent' });
    const { key } = await satchel.createKey({ principal: 'agent' });
    const agent = satchel.as(await satchel.authenticate(key));
    await agent.createWorkspace('own');
    await expect(agent.updateWorkspace('own', { quotaFiles: null })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await agent.updateWorkspace('own', { indexing: 'off' });
    await satchel.updateWorkspace('own', { quotaFiles: 1 });
    expect((await agent.getWorkspace('own')).settings).toMatchObject({
      indexing: 'off',
      quotaFiles: 1,
    });
    await agent.writeFile('own', '/one.txt', '1');
    await expect(agent.writeFile('own', '/two.txt', '2')).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
    });
  });

  it('admit exactly what fits from a burst of concurrent writes at the limit', async () => {
    const { satchel } = await openTemp();
    await satchel.updateWorkspace('ws', { quotaBytes: 10_000 });
    await satchel.writeFile('ws', '/seed.txt', KB.slice(0, 500));
    // 9,500 bytes left: 9 of 40 writes of 1,000 bytes fit, however they interleave.
    expect(await burst(satchel, 40)).toBe(9);
    expect(await figures(satchel)).toMatchObject({ currentBytes: 9500, files: 10 });
  });
});
