import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catFile, openTemp } from '../test-support/temp.js';
import type { SatchelEngine } from './satchel-engine.js';

/** Every entry of the workspace as `list` and `readFile` see it (at the head, or `at`). */
async function state(
  satchel: SatchelEngine,
  ws: string,
  at?: number | string,
): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  let cursor: string | undefined;
  do {
    const page = await satchel.list(ws, {
      recursive: true,
      limit: 3,
      ...(at === undefined ? {} : { at }),
      ...(cursor ? { cursor } : {}),
    });
    for (const item of page.items) {
      if (item.type === 'directory') seen.set(item.path, '<dir>');
      else {
        const file = await satchel.readFile(ws, item.path, at === undefined ? {} : { at });
        const bytes: Buffer[] = [];
        for await (const piece of file.body) bytes.push(Buffer.from(piece));
        seen.set(item.path, Buffer.concat(bytes).toString());
      }
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return seen;
}

describe('snapshots', () => {
  it('name a seq: created, listed newest first by pages, refused twice, deleted', async () => {
    const { satchel } = await openTemp();
    const first = await satchel.writeFile('ws', '/a.txt', 'one');
    const before = await satchel.createSnapshot('ws', 'before-run', { message: 'clean tree' });
    expect(before).toMatchObject({
      name: 'before-run',
      seq: first.seq,
      createdBy: 'admin',
      message: 'clean tree',
    });
    await satchel.writeFile('ws', '/a.txt', 'two');
    await satchel.createSnapshot('ws', 'after-run');
    await satchel.createSnapshot('ws', 'first', { seq: first.seq });

    const page1 = await satchel.listSnapshots('ws', { limit: 2 });
    const page2 = await satchel.listSnapshots('ws', { cursor: page1.nextCursor ?? '' });
    expect([...page1.items, ...page2.items].map((s) => s.name)).toEqual([
      'after-run',
      'before-run',
      'first',
    ]);
    expect(page2.nextCursor).toBeNull();

    await expect(satchel.createSnapshot('ws', 'before-run')).rejects.toMatchObject({
      code: 'CONFLICT',
      data: { reason: 'snapshot_exists', seq: first.seq },
    });
    for (const bad of ['42', 'has space', '', '-dash', 'x'.repeat(65)]) {
      await expect(satchel.createSnapshot('ws', bad)).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        data: { field: 'name' },
      });
    }
    await expect(satchel.createSnapshot('ws', 'later', { seq: 10_000 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { field: 'seq' },
    });

    await satchel.deleteSnapshot('ws', 'before-run');
    await expect(satchel.deleteSnapshot('ws', 'before-run')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(satchel.readFile('ws', '/a.txt', { at: 'before-run' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      data: { snapshot: 'before-run' },
    });
    // The history the name pointed at is still there.
    expect((await catFile(satchel, '/a.txt', first.seq)).toString()).toBe('one');
  });

  it('reads the workspace as it was: files, directories, listings, globs, stat and text', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/docs/a.md', 'alpha\n');
    await satchel.writeFile('ws', '/docs/deep/b.md', 'beta\n');
    await satchel.writeFile('ws', '/c.txt', 'gamma\n');
    const snap = await satchel.createSnapshot('ws', 'v1');

    await satchel.writeFile('ws', '/docs/a.md', 'ALPHA\n');
    await satchel.remove('ws', '/docs/deep', { recursive: true });
    await satchel.move('ws', '/c.txt', '/moved/c.txt');
    await satchel.writeFile('ws', '/new.txt', 'later\n');

    const text = await satchel.readText('ws', '/docs/a.md', { at: 'v1' });
    expect(text.text).toBe('alpha\n');
    expect(text.info.seq).toBeLessThanOrEqual(snap.seq);
    expect((await satchel.readText('ws', '/docs/deep/b.md', { at: snap.seq })).text).toBe('beta\n');
    expect((await satchel.stat('ws', '/docs/deep', { at: String(snap.seq) })).type).toBe(
      'directory',
    );
    expect((await satchel.stat('ws', '/', { at: 'v1' })).seq).toBe(snap.seq);

    const root = await satchel.list('ws', { at: 'v1' });
    expect(root.items.map((i) => i.path)).toEqual(['/c.txt', '/docs']);
    expect(root.total).toBe(2);
    const all = await satchel.list('ws', { at: 'v1', recursive: true });
    expect(all.items.map((i) => i.path)).toEqual([
      '/c.txt',
      '/docs',
      '/docs/a.md',
      '/docs/deep',
      '/docs/deep/b.md',
    ]);
    const md = await satchel.list('ws', { at: 'v1', glob: '**/*.md' });
    expect(md.items.map((i) => i.path)).toEqual(['/docs/a.md', '/docs/deep/b.md']);
    expect((await satchel.list('ws', { path: '/docs/deep', at: 'v1' })).total).toBe(1);

    // What did not exist then is not found then; the head is untouched.
    await expect(satchel.readFile('ws', '/new.txt', { at: 'v1' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      data: { path: '/new.txt', at: snap.seq },
    });
    await expect(satchel.list('ws', { path: '/moved', at: 'v1' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(satchel.readFile('ws', '/c.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await satchel.readText('ws', '/docs/a.md')).text).toBe('ALPHA\n');
  });

  it('refuses an at past the head, an unknown snapshot, and version with at', async () => {
    const { satchel } = await openTemp();
    const { seq } = await satchel.writeFile('ws', '/a', 'x');
    await expect(satchel.readFile('ws', '/a', { at: seq + 1 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { field: 'at', head: seq },
    });
    await expect(satchel.list('ws', { at: 'nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      data: { snapshot: 'nope' },
    });
    await expect(satchel.stat('ws', '/a', { at: 'bad name!' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(satchel.readFile('ws', '/a', { at: seq, version: seq })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { field: 'at' },
    });
  });

  it('as-of reads equal what was read at that seq, over random histories', async () => {
    const { satchel } = await openTemp();
    const paths = ['/a', '/b', '/d/x', '/d/y', '/d/e/z', '/f/x'];
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('write' as const),
        path: fc.constantFrom(...paths),
        n: fc.nat(9),
      }),
      fc.record({
        kind: fc.constant('remove' as const),
        path: fc.constantFrom(...paths, '/d', '/f'),
      }),
      fc.record({
        kind: fc.constant('move' as const),
        path: fc.constantFrom(...paths, '/d'),
        to: fc.constantFrom('/m', '/f/m', '/d/m'),
      }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        // A workspace per run: histories do not mix.
        const ws = `p${run++}`;
        const seen: [number, Map<string, string>][] = [];
        await satchel.createWorkspace(ws);
        for (const o of ops) {
          try {
            if (o.kind === 'write') await satchel.writeFile(ws, o.path, `${o.path}:${o.n}`);
            else if (o.kind === 'remove') await satchel.remove(ws, o.path, { recursive: true });
            else await satchel.move(ws, o.path, o.to);
          } catch (error) {
            // Moves and deletes of what is not there (or onto a file) are refused: no new seq.
            if (!(error instanceof Error)) throw error;
          }
          const { seq } = await satchel.getWorkspace(ws);
          seen.push([seq, await state(satchel, ws)]);
        }
        for (const [seq, expected] of seen) {
          expect(await state(satchel, ws, seq)).toEqual(expected);
        }
      }),
      { numRuns: 25 },
    );
  });
});
