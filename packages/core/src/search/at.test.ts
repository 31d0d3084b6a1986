/** grep and search `at` a seq or snapshot: the files as they were, not as they are. */
import { describe, expect, it } from 'vitest';
import { openTemp } from '../test-support/temp.js';

describe('grep and search at a seq', () => {
  it('grep at a snapshot sees the files then: changed, deleted and later files as they were', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.md', 'alpha needle\n');
    await satchel.writeFile('ws', '/gone.md', 'needle in a deleted file\n');
    const snap = await satchel.createSnapshot('ws', 'before');
    await satchel.writeFile('ws', '/a.md', 'alpha only\n');
    await satchel.remove('ws', '/gone.md');
    await satchel.writeFile('ws', '/new.md', 'a later needle\n');

    const now = await satchel.grep('ws', 'needle');
    expect(now.hits.map((h) => h.path)).toEqual(['/new.md']);
    const then = await satchel.grep('ws', 'needle', { at: 'before' });
    expect(then.hits.map((h) => [h.path, h.line])).toEqual([
      ['/a.md', 1],
      ['/gone.md', 1],
    ]);
    const bySeq = await satchel.grep('ws', 'needle', { at: snap.seq, path: '/gone.md' });
    expect(bySeq.hits).toHaveLength(1);
    await expect(
      satchel.grep('ws', 'needle', { at: snap.seq, path: '/new.md' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('search at a seq ranks the passages of the files then, citing their versions', async () => {
    const { satchel } = await openTemp();
    const old = await satchel.writeFile('ws', '/notes.md', 'the quarterly report is late\n');
    await satchel.writeFile('ws', '/other.md', 'nothing to see\n');
    await satchel.writeFile('ws', '/notes.md', 'all caught up\n');

    const now = await satchel.search('ws', 'quarterly report');
    expect(now.items).toEqual([]);
    const then = await satchel.search('ws', 'quarterly report', { at: old.seq + 1 });
    expect(then).toMatchObject({ mode: 'scan', truncated: false, headSeq: old.seq + 2 });
    expect(then.items.map((i) => i.citation)).toEqual([
      { path: '/notes.md', seq: old.seq, lineStart: 1, lineEnd: 1 },
    ]);
    expect(then.items[0]?.snippet).toContain('«quarterly»');
    // At the head, the index answers as before.
    const head = await satchel.search('ws', 'caught', { at: old.seq + 2 });
    expect(head.mode).toBe('bm25');
    expect(head.items.map((i) => i.citation.path)).toEqual(['/notes.md']);
  });
});
