import { describe, expect, it } from 'vitest';
import { catFile, openTemp } from '../test-support/temp.js';

describe('versions', () => {
  it('lists newest first, paginates, and reads any version', async () => {
    const { satchel } = await openTemp();
    const seqs: number[] = [];
    for (let i = 1; i <= 5; i++) seqs.push((await satchel.writeFile('ws', '/v.txt', `v${i}`)).seq);
    const page1 = await satchel.listVersions('ws', '/v.txt', { limit: 2 });
    expect(page1.items.map((v) => v.seq)).toEqual([seqs[4], seqs[3]]);
    const page2 = await satchel.listVersions('ws', '/v.txt', {
      limit: 2,
      cursor: page1.nextCursor ?? '',
    });
    const page3 = await satchel.listVersions('ws', '/v.txt', {
      limit: 2,
      cursor: page2.nextCursor ?? '',
    });
    expect([...page2.items, ...page3.items].map((v) => v.seq)).toEqual([seqs[2], seqs[1], seqs[0]]);
    expect(page3.nextCursor).toBeNull();
    for (const [i, seq] of seqs.entries()) {
      expect((await catFile(satchel, '/v.txt', seq)).toString()).toBe(`v${i + 1}`);
    }
    await expect(satchel.readFile('ws', '/v.txt', { version: 999 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(satchel.listVersions('ws', '/never')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('records session and message on versions', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/s', 'x', { session: 'run-42', message: 'first draft' });
    const [v] = (await satchel.listVersions('ws', '/s')).items;
    expect(v).toMatchObject({
      session: 'run-42',
      message: 'first draft',
      author: 'admin',
      op: 'write',
    });
  });

  it('follows history across two moves, page by page', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a', '1');
    await satchel.writeFile('ws', '/a', '2');
    await satchel.move('ws', '/a', '/b');
    await satchel.writeFile('ws', '/b', '3');
    await satchel.move('ws', '/b', '/c');
    const all: Array<[string, string]> = [];
    let cursor: string | undefined;
    do {
      const page = await satchel.listVersions('ws', '/c', {
        limit: 1,
        ...(cursor ? { cursor } : {}),
      });
      all.push(...page.items.map((v): [string, string] => [v.path, v.op]));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(all).toEqual([
      ['/c', 'move'],
      ['/b', 'write'],
      ['/b', 'move'],
      ['/a', 'write'],
      ['/a', 'write'],
    ]);
  });
});

describe('diff', () => {
  it('diffs the head against the previous version by default, or any two versions', async () => {
    const { satchel } = await openTemp();
    const v1 = await satchel.writeFile('ws', '/d.txt', 'one\ntwo\nthree\n');
    const v2 = await satchel.writeFile('ws', '/d.txt', 'one\n2\nthree\n');
    await satchel.writeFile('ws', '/d.txt', 'one\n2\nthree\nfour\n');
    const last = await satchel.diff('ws', '/d.txt');
    expect(last.from).toBe(v2.seq);
    expect(last.diff).toContain('+four');
    expect(last.diff).not.toContain('-two');
    const span = await satchel.diff('ws', '/d.txt', { from: v1.seq, to: v2.seq });
    expect(span.diff).toContain('-two\n+2');
    const first = await satchel.diff('ws', '/d.txt', { to: v1.seq });
    expect(first.from).toBeNull();
    expect(first.diff).toContain('+one');
  });

  it('says binary files differ instead of diffing bytes', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/b.bin', Buffer.from([0, 1, 2]));
    await satchel.writeFile('ws', '/b.bin', Buffer.from([0, 1, 3]));
    const result = await satchel.diff('ws', '/b.bin');
    expect(result).toMatchObject({ binary: true });
    expect(result.diff).toMatch(/Binary files .* differ/);
  });

  it('refuses directories and unknown versions', async () => {
    const { satchel } = await openTemp();
    await satchel.mkdir('ws', '/dir');
    await expect(satchel.diff('ws', '/dir')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await satchel.writeFile('ws', '/f', 'x');
    await expect(satchel.diff('ws', '/f', { from: 77 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('restore', () => {
  it('brings old content back as a new version without storing it again', async () => {
    const { satchel } = await openTemp();
    const v1 = await satchel.writeFile('ws', '/r.txt', 'good');
    await satchel.writeFile('ws', '/r.txt', 'broken');
    const restored = await satchel.restore('ws', '/r.txt', v1.seq);
    expect(restored.seq).toBeGreaterThan(v1.seq);
    expect(restored.hash).toBe(v1.hash);
    expect((await catFile(satchel, '/r.txt')).toString()).toBe('good');
    const [head] = (await satchel.listVersions('ws', '/r.txt')).items;
    expect(head).toMatchObject({ op: 'restore', origin: { path: '/r.txt', seq: v1.seq } });
  });

  it('restores a deleted file, but not a deletion', async () => {
    const { satchel } = await openTemp();
    const v1 = await satchel.writeFile('ws', '/gone.txt', 'keep me');
    const { seq: deletedAt } = await satchel.remove('ws', '/gone.txt');
    await expect(satchel.restore('ws', '/gone.txt', deletedAt)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await satchel.restore('ws', '/gone.txt', v1.seq);
    expect((await catFile(satchel, '/gone.txt')).toString()).toBe('keep me');
    await expect(satchel.restore('ws', '/gone.txt', 12345)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('honours ifMatch', async () => {
    const { satchel } = await openTemp();
    const v1 = await satchel.writeFile('ws', '/c', 'a');
    await satchel.writeFile('ws', '/c', 'b');
    await expect(satchel.restore('ws', '/c', v1.seq, { ifMatch: v1.seq })).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
  });
});
