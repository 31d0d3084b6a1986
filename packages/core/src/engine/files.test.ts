import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { catFile, openTemp, readAll } from '../test-support/temp.js';

const sha = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

describe('workspaces', () => {
  it('create, list with cursor, info, delete', async () => {
    const { satchel } = await openTemp();
    for (const name of ['b', 'a', 'c']) await satchel.createWorkspace(name);
    await expect(satchel.createWorkspace('a')).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(satchel.createWorkspace('Bad Name')).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    const first = await satchel.listWorkspaces({ limit: 2 });
    expect(first.items.map((w) => w.name)).toEqual(['a', 'b']);
    const rest = await satchel.listWorkspaces({ limit: 2, cursor: first.nextCursor ?? '' });
    expect(rest.items.map((w) => w.name)).toEqual(['c', 'ws']);
    expect(rest.nextCursor).toBeNull();
    await satchel.writeFile('a', '/x.txt', 'hello');
    expect(await satchel.getWorkspace('a')).toMatchObject({
      name: 'a',
      seq: 1,
      files: 1,
      bytes: 5,
    });
    await satchel.deleteWorkspace('a');
    await expect(satchel.getWorkspace('a')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(satchel.readFile('a', '/x.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('rejects a garbled cursor with INVALID_INPUT', async () => {
    const { satchel } = await openTemp();
    await expect(satchel.listWorkspaces({ cursor: 'not-a-cursor' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});

describe('write and read', () => {
  it('round-trips empty, text, binary with NUL bytes and large content', async () => {
    const { satchel } = await openTemp();
    const binary = Buffer.from([0, 1, 2, 0, 255, 0, 10, 13, 0]);
    const large = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < large.length; i++) large[i] = (i * 31) % 251;
    const cases: Array<[string, Buffer]> = [
      ['/empty', Buffer.alloc(0)],
      ['/text.md', Buffer.from('# Title\n\nbody\n')],
      ['/bin.dat', binary],
      ['/large.bin', large],
    ];
    for (const [path, content] of cases) {
      const info = await satchel.writeFile('ws', path, content);
      expect(info).toMatchObject({ path, type: 'file', size: content.length, hash: sha(content) });
      // Buffer.equals: vitest's deep equality walks big buffers byte by byte.
      expect((await catFile(satchel, path)).equals(content)).toBe(true);
    }
    expect((await satchel.stat('ws', '/text.md')).contentType).toBe('text/markdown');
    expect((await satchel.stat('ws', '/bin.dat')).contentType).toBe('application/octet-stream');
  });

  it('streams content of unknown length from an async iterable', async () => {
    const { satchel } = await openTemp();
    async function* pieces() {
      for (let i = 0; i < 100; i++) yield Buffer.alloc(10_000, i);
    }
    const info = await satchel.writeFile('ws', '/stream.bin', pieces());
    expect(info.size).toBe(1_000_000);
    const back = await catFile(satchel, '/stream.bin');
    expect(back[0]).toBe(0);
    expect(back[999_999]).toBe(99);
    const fromReadable = await satchel.writeFile('ws', '/r.txt', Readable.from(['a', 'b', 'c']));
    expect(fromReadable.size).toBe(3);
  });

  it('reads byte ranges, clamps the end and refuses unsatisfiable starts', async () => {
    const { satchel } = await openTemp({ limits: { inlineThreshold: 16 } });
    await satchel.writeFile('ws', '/small', '0123456789');
    await satchel.writeFile('ws', '/big', '0123456789'.repeat(10));
    for (const path of ['/small', '/big']) {
      const { body, range } = await satchel.readFile('ws', path, { range: { start: 2, end: 5 } });
      expect((await readAll(body)).toString()).toBe('234');
      expect(range).toEqual({ start: 2, end: 5 });
    }
    const clamped = await satchel.readFile('ws', '/small', { range: { start: 8, end: 1000 } });
    expect((await readAll(clamped.body)).toString()).toBe('89');
    await expect(satchel.readFile('ws', '/small', { range: { start: 10 } })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { reason: 'range_not_satisfiable', size: 10 },
    });
  });

  it('reads text by lines: head, tail, offset/limit, maxBytes', async () => {
    const { satchel } = await openTemp();
    const text = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join('');
    await satchel.writeFile('ws', '/t.txt', text);
    const head = await satchel.readText('ws', '/t.txt', { head: 2 });
    expect(head).toMatchObject({
      text: 'line 1\nline 2\n',
      lineStart: 1,
      lineEnd: 2,
      truncated: true,
    });
    const tail = await satchel.readText('ws', '/t.txt', { tail: 2 });
    expect(tail).toMatchObject({
      text: 'line 9\nline 10\n',
      lineStart: 9,
      lineEnd: 10,
      totalLines: 10,
    });
    const mid = await satchel.readText('ws', '/t.txt', { offset: 4, limit: 3 });
    expect(mid).toMatchObject({ text: 'line 4\nline 5\nline 6\n', lineStart: 4, lineEnd: 6 });
    const whole = await satchel.readText('ws', '/t.txt');
    expect(whole).toMatchObject({ text, totalLines: 10, truncated: false });
    const capped = await satchel.readText('ws', '/t.txt', { maxBytes: 15 });
    expect(capped).toMatchObject({ text: 'line 1\nline 2\n', truncated: true });
    await satchel.writeFile('ws', '/nl', 'no newline');
    expect(await satchel.readText('ws', '/nl')).toMatchObject({
      text: 'no newline',
      totalLines: 1,
    });
    await satchel.writeFile('ws', '/bin', Buffer.from([1, 0, 2]));
    await expect(satchel.readText('ws', '/bin')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(satchel.readText('ws', '/t.txt', { head: 1, tail: 1 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('treats NFC and NFD spellings of a name as the same file', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/cafe\u0301.txt', 'nfd');
    expect((await catFile(satchel, '/caf\u00e9.txt')).toString()).toBe('nfd');
    await satchel.writeFile('ws', '/caf\u00e9.txt', 'nfc');
    const listing = await satchel.list('ws');
    expect(listing.items.map((i) => i.path)).toEqual(['/caf\u00e9.txt']);
    expect((await catFile(satchel, '/cafe\u0301.txt')).toString()).toBe('nfc');
  });

  it('refuses content over the maximum file size and stores nothing', async () => {
    const { satchel } = await openTemp({ limits: { maxFileSize: 1000, inlineThreshold: 100 } });
    await expect(satchel.writeFile('ws', '/a', Buffer.alloc(1001))).rejects.toMatchObject({
      code: 'TOO_LARGE',
    });
    async function* stream() {
      for (let i = 0; i < 20; i++) yield Buffer.alloc(100);
    }
    await expect(satchel.writeFile('ws', '/b', stream())).rejects.toMatchObject({
      code: 'TOO_LARGE',
    });
    expect((await satchel.list('ws')).total).toBe(0);
    expect((await satchel.getWorkspace('ws')).seq).toBe(0);
    const report = await satchel.fsck();
    expect(report).toMatchObject({ ok: true, orphans: [] });
  });

  it('refuses writes onto directories and under files', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/d/f.txt', 'x');
    await expect(satchel.writeFile('ws', '/d', 'x')).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(satchel.writeFile('ws', '/d/f.txt/g', 'x')).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    await expect(satchel.writeFile('ws', '/', 'x')).rejects.toMatchObject({ code: 'INVALID_PATH' });
    await expect(satchel.readFile('ws', '/d')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(satchel.writeFile('nope', '/x', 'x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('conditional writes', () => {
  it('ifMatch must name the head; ifNoneMatch "*" only creates', async () => {
    const { satchel } = await openTemp();
    const v1 = await satchel.writeFile('ws', '/c', '1', { ifNoneMatch: '*' });
    await expect(satchel.writeFile('ws', '/c', '2', { ifNoneMatch: '*' })).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    const v2 = await satchel.writeFile('ws', '/c', '2', { ifMatch: v1.seq });
    await expect(satchel.writeFile('ws', '/c', '3', { ifMatch: v1.seq })).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      data: { expected: v1.seq, actual: v2.seq },
    });
    await expect(satchel.writeFile('ws', '/new', 'x', { ifMatch: 1 })).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    await expect(satchel.remove('ws', '/c', { ifMatch: v1.seq })).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    expect((await catFile(satchel, '/c')).toString()).toBe('2');
    await expect(satchel.writeFile('ws', '/c', '4', { ifMatch: -1 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('a failed large write stores no version', async () => {
    const { satchel } = await openTemp({ limits: { inlineThreshold: 10 } });
    await satchel.writeFile('ws', '/c', 'first');
    await expect(
      satchel.writeFile('ws', '/c', Buffer.alloc(1000), { ifNoneMatch: '*' }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect((await satchel.listVersions('ws', '/c')).items).toHaveLength(1);
  });
});

describe('batch writes', () => {
  it('writes many files in one call, all or nothing', async () => {
    const { satchel } = await openTemp();
    const files = Array.from({ length: 50 }, (_, i) => ({ path: `/b/${i}.txt`, content: `${i}` }));
    const infos = await satchel.writeFiles('ws', files);
    expect(infos).toHaveLength(50);
    expect((await satchel.list('ws', { path: '/b' })).total).toBe(50);
    await expect(
      satchel.writeFiles('ws', [
        { path: '/b/new.txt', content: 'x' },
        { path: '/b/1.txt', content: 'y', ifNoneMatch: '*' },
      ]),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    await expect(satchel.stat('ws', '/b/new.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      satchel.writeFiles('ws', [
        { path: '/x', content: 'a' },
        { path: 'x', content: 'b' },
      ]),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('append', () => {
  it('appends to small and large files, creates missing ones, 0 bytes changes nothing', async () => {
    const { satchel } = await openTemp({ limits: { inlineThreshold: 64 } });
    const created = await satchel.appendFile('ws', '/log', 'a\n');
    expect(created.seq).toBe(1);
    const same = await satchel.appendFile('ws', '/log', '');
    expect(same.seq).toBe(1);
    for (let i = 0; i < 40; i++) await satchel.appendFile('ws', '/log', `line ${i}\n`);
    const text = (await catFile(satchel, '/log')).toString();
    expect(text.startsWith('a\nline 0\n')).toBe(true);
    expect(text.endsWith('line 39\n')).toBe(true);
    const empty = await satchel.appendFile('ws', '/empty', Buffer.alloc(0));
    expect(empty.size).toBe(0);
  });

  it('concurrent appends all land', async () => {
    const { satchel } = await openTemp();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => satchel.appendFile('ws', '/log', `${i}\n`)),
    );
    const lines = (await catFile(satchel, '/log')).toString().trim().split('\n').sort();
    expect(lines).toEqual(Array.from({ length: 10 }, (_, i) => `${i}`).sort());
  });
});

describe('list', () => {
  it('paginates a 10,000-entry directory with a stable total', async () => {
    const { satchel } = await openTemp();
    const files = Array.from({ length: 10_000 }, (_, i) => ({
      path: `/big/${String(i).padStart(5, '0')}`,
      content: '',
    }));
    for (let i = 0; i < files.length; i += 1000)
      await satchel.writeFiles('ws', files.slice(i, i + 1000));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await satchel.list('ws', {
        path: '/big',
        limit: 1000,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.total).toBe(10_000);
      expect(page.items.length).toBeLessThanOrEqual(1000);
      seen.push(...page.items.map((i) => i.path));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(10);
    expect(seen).toEqual(files.map((f) => f.path));
  });

  it('lists one level, recursively, and by glob, with totals', async () => {
    const { satchel } = await openTemp();
    for (const p of ['/a/x.md', '/a/b/y.md', '/a/b/z.txt', '/a-b/w.md', '/top.md']) {
      await satchel.writeFile('ws', p, p);
    }
    const root = await satchel.list('ws');
    expect(root.items.map((i) => [i.path, i.type])).toEqual([
      ['/a', 'directory'],
      ['/a-b', 'directory'],
      ['/top.md', 'file'],
    ]);
    const rec = await satchel.list('ws', { path: '/a', recursive: true });
    expect(rec.items.map((i) => i.path)).toEqual(['/a/b', '/a/b/y.md', '/a/b/z.txt', '/a/x.md']);
    const md = await satchel.list('ws', { path: '/a', glob: '**/*.md', limit: 1 });
    expect(md.items.map((i) => i.path)).toEqual(['/a/b/y.md']);
    expect(md.total).toBe(2);
    const next = await satchel.list('ws', {
      path: '/a',
      glob: '**/*.md',
      cursor: md.nextCursor ?? '',
    });
    expect(next.items.map((i) => i.path)).toEqual(['/a/x.md']);
    expect(next.nextCursor).toBeNull();
    const top = await satchel.list('ws', { glob: '*.md' });
    expect(top.items.map((i) => i.path)).toEqual(['/top.md']);
    await expect(satchel.list('ws', { path: '/missing' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(satchel.list('ws', { limit: 5000 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});

describe('mkdir, remove, move, copy', () => {
  it('mkdir creates parents and is idempotent', async () => {
    const { satchel } = await openTemp();
    const info = await satchel.mkdir('ws', '/p/q/r');
    expect(info.type).toBe('directory');
    const again = await satchel.mkdir('ws', '/p/q/r');
    expect(again.seq).toBe(info.seq);
    expect((await satchel.list('ws', { recursive: true })).total).toBe(3);
    await satchel.writeFile('ws', '/file', 'x');
    await expect(satchel.mkdir('ws', '/file')).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('remove leaves a tombstone; directories need recursive', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/d/a', '1');
    await satchel.writeFile('ws', '/d/e/b', '2');
    await expect(satchel.remove('ws', '/d')).rejects.toMatchObject({ code: 'CONFLICT' });
    const removed = await satchel.remove('ws', '/d', { recursive: true });
    expect(removed.removed).toBe(4);
    expect((await satchel.list('ws', { recursive: true })).total).toBe(0);
    const history = await satchel.listVersions('ws', '/d/a');
    expect(history.items.map((v) => [v.op, v.deleted])).toEqual([
      ['delete', true],
      ['write', false],
    ]);
    expect((await catFile(satchel, '/d/a', history.items[1]?.seq)).toString()).toBe('1');
    await expect(satchel.readFile('ws', '/d/a', { version: removed.seq })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(satchel.remove('ws', '/d/a')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('move keeps history and refuses to overwrite unless asked', async () => {
    const { satchel } = await openTemp();
    const v1 = await satchel.writeFile('ws', '/old.txt', 'one');
    await satchel.writeFile('ws', '/old.txt', 'two');
    await satchel.writeFile('ws', '/other.txt', 'other');
    await expect(satchel.move('ws', '/old.txt', '/other.txt')).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    const moved = await satchel.move('ws', '/old.txt', '/new.txt');
    await expect(satchel.stat('ws', '/old.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await catFile(satchel, '/new.txt')).toString()).toBe('two');
    const history = await satchel.listVersions('ws', '/new.txt');
    expect(history.items.map((v) => [v.path, v.op])).toEqual([
      ['/new.txt', 'move'],
      ['/old.txt', 'write'],
      ['/old.txt', 'write'],
    ]);
    expect((await catFile(satchel, '/new.txt', v1.seq)).toString()).toBe('one');
    await satchel.move('ws', '/new.txt', '/other.txt', { overwrite: true });
    expect((await catFile(satchel, '/other.txt')).toString()).toBe('two');
    expect(moved.seq).toBeGreaterThan(v1.seq);
  });

  it('moves directories with everything in them, never into themselves', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/src/a/1.txt', '1');
    await satchel.writeFile('ws', '/src/2.txt', '2');
    await expect(satchel.move('ws', '/src', '/src/inner')).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await satchel.move('ws', '/src', '/dst');
    const all = await satchel.list('ws', { recursive: true });
    expect(all.items.map((i) => i.path)).toEqual(['/dst', '/dst/2.txt', '/dst/a', '/dst/a/1.txt']);
    expect((await catFile(satchel, '/dst/a/1.txt')).toString()).toBe('1');
  });

  it('copy shares content (same hash) and leaves the source', async () => {
    const { satchel } = await openTemp({ limits: { inlineThreshold: 4 } });
    const src = await satchel.writeFile('ws', '/s.bin', Buffer.alloc(5000, 3));
    const dst = await satchel.copy('ws', '/s.bin', '/d.bin');
    expect(dst.hash).toBe(src.hash);
    expect(await catFile(satchel, '/d.bin')).toEqual(await catFile(satchel, '/s.bin'));
    await expect(satchel.copy('ws', '/s.bin', '/d.bin')).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    const report = await satchel.fsck();
    expect(report).toMatchObject({ ok: true, blobsChecked: 1 });
  });
});
