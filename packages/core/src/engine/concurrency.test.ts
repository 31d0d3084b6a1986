/** Concurrent writers: ifMatch races, group-committed seqs, all-or-nothing batches. */

import { isSatchelError, SatchelError } from '@satchel/client/errors.js';
import type { Satchel } from '@satchel/client/operations/satchel.js';
import { describe, expect, it } from 'vitest';
import { catFile, openTemp } from '../test-support/temp.js';
import { openSatchel } from './open.js';

const WORKERS = 32;
const COUNTER = '/counter.txt';

/**
 * One read-modify-write: reads the head at a known seq, writes value + 1 if still the head. The
 * workers share one principal, so a worker that wrote the same value as another a moment before
 * gets the head back `unchanged` (a retry answer, docs/api.md): its increment did not count, and
 * a counter treats that as the conflict it is.
 */
async function increment(satchel: Satchel): Promise<number> {
  const { seq } = await satchel.stat('ws', COUNTER);
  const { text } = await satchel.readText('ws', COUNTER, { version: seq });
  const info = await satchel.writeFile('ws', COUNTER, String(Number(text) + 1), { ifMatch: seq });
  if (info.unchanged) throw new SatchelError('PRECONDITION_FAILED', 'written by another worker');
  return info.seq;
}

async function incrementUntilDone(satchel: Satchel): Promise<number> {
  for (;;) {
    try {
      return await increment(satchel);
    } catch (error) {
      if (!isSatchelError(error, 'PRECONDITION_FAILED')) throw error;
    }
  }
}

async function counterVersions(satchel: Satchel): Promise<number> {
  const { items, nextCursor } = await satchel.listVersions('ws', COUNTER, { limit: 1000 });
  expect(nextCursor).toBeNull();
  return items.length;
}

describe('concurrent writers', () => {
  it('loses no increment when each worker tries once with ifMatch', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', COUNTER, '0');
    const results = await Promise.allSettled(
      Array.from({ length: WORKERS }, () => increment(satchel)),
    );
    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    const rejected = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(fulfilled.length).toBeGreaterThanOrEqual(1);
    for (const reason of rejected) expect(isSatchelError(reason, 'PRECONDITION_FAILED')).toBe(true);
    expect((await catFile(satchel, COUNTER)).toString()).toBe(String(fulfilled.length));
    expect(await counterVersions(satchel)).toBe(fulfilled.length + 1);
  });

  it('reaches exactly the number of workers when each retries until it succeeds', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', COUNTER, '0');
    const seqs = await Promise.all(
      Array.from({ length: WORKERS }, () => incrementUntilDone(satchel)),
    );
    expect((await catFile(satchel, COUNTER)).toString()).toBe(String(WORKERS));
    expect(new Set(seqs).size).toBe(WORKERS);
    expect(await counterVersions(satchel)).toBe(WORKERS + 1);
  });

  it('gives 200 concurrent writes contiguous seqs, and keeps them across a reopen', async () => {
    const count = 200;
    const { satchel, data } = await openTemp();
    const paths = Array.from(
      { length: count },
      (_, i) => `/many/${String(i).padStart(3, '0')}.txt`,
    );
    const infos = await Promise.all(
      paths.map((path, i) => satchel.writeFile('ws', path, `content of file ${i}\n`)),
    );
    const seqs = infos.map((info) => info.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    expect((await satchel.getWorkspace('ws')).seq).toBe(count);
    await satchel.close();

    const reopened = await openSatchel({ data });
    try {
      expect((await reopened.getWorkspace('ws')).seq).toBe(count);
      const listed = await reopened.list('ws', { path: '/many', limit: 1000 });
      expect(listed.total).toBe(count);
      expect(listed.items.map((item) => item.path)).toEqual(paths);
      for (const [i, path] of paths.entries()) {
        expect((await catFile(reopened, path)).toString()).toBe(`content of file ${i}\n`);
        expect((await reopened.stat('ws', path)).seq).toBe(infos[i]?.seq);
      }
    } finally {
      await reopened.close();
    }
  });

  it('writes nothing of a batch when one file fails its ifMatch', async () => {
    const { satchel } = await openTemp();
    const existing = await satchel.writeFile('ws', '/existing.txt', 'before');
    const before = await satchel.getWorkspace('ws');
    const attempt = satchel.writeFiles('ws', [
      { path: '/batch/a.txt', content: 'a' },
      { path: '/existing.txt', content: 'after', ifMatch: existing.seq + 1 },
      { path: '/batch/c.txt', content: 'c' },
    ]);
    await expect(attempt).rejects.toMatchObject({
      name: 'SatchelError',
      code: 'PRECONDITION_FAILED',
    });

    const listed = await satchel.list('ws', { recursive: true });
    expect(listed.items.map((item) => item.path)).toEqual(['/existing.txt']);
    expect(listed.total).toBe(1);
    expect((await catFile(satchel, '/existing.txt')).toString()).toBe('before');
    const after = await satchel.getWorkspace('ws');
    expect(after.seq).toBe(before.seq);
    expect(after.versions).toBe(before.versions);
  });
});
