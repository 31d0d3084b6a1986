/** syncOnce between real directories and a real engine: conflicts, guard, ignores, names, sizes. */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { LocalTree } from '@satchel/client/sync/local-tree.js';
import { type SyncOptions, syncOnce, syncStatus } from '@satchel/client/sync/sync.js';
import { describe, expect, it } from 'vitest';
import type { SatchelEngine } from '../engine/satchel-engine.js';
import { catFile, openTemp, tempDir } from '../test-support/temp.js';

async function setup() {
  const { satchel } = await openTemp();
  const a = await tempDir('sync-a-');
  const b = await tempDir('sync-b-');
  const sync = (dir: string, label: string, more: Partial<SyncOptions> = {}) =>
    syncOnce({ satchel, workspace: 'ws', tree: new LocalTree(dir), label, ...more });
  return { satchel, a, b, sync };
}

async function put(dir: string, path: string, content: string | Buffer): Promise<void> {
  await mkdir(join(dir, path, '..'), { recursive: true });
  await writeFile(join(dir, path), content);
}

const text = (dir: string, path: string) => readFile(join(dir, path), 'utf8');

async function files(satchel: SatchelEngine): Promise<string[]> {
  const page = await satchel.list('ws', { recursive: true, limit: 1000 });
  return page.items.filter((i) => i.type === 'file').map((i) => i.path);
}

describe('syncOnce between two trees and one workspace', () => {
  it('merges edits to different files and keeps both sides of an edit to the same file', async () => {
    const { satchel, a, b, sync } = await setup();
    await put(a, 'notes.md', 'v1\n');
    await put(a, 'src/one.ts', 'one\n');
    expect(await sync(a, 'sbx-a')).toMatchObject({ uploaded: 2, reset: true, conflicts: [] });
    expect(await sync(b, 'sbx-b')).toMatchObject({ downloaded: 2 });
    expect(await text(b, 'src/one.ts')).toBe('one\n');

    await put(a, 'notes.md', 'edited in a\n');
    await put(a, 'src/one.ts', 'one, edited in a\n');
    await put(b, 'notes.md', 'edited in b\n');
    await put(b, 'two.ts', 'new in b\n');
    expect(await sync(a, 'sbx-a')).toMatchObject({ uploaded: 2, conflicts: [] });
    const report = await sync(b, 'sbx-b');
    expect(report.conflicts).toHaveLength(1);
    const [conflict] = report.conflicts;
    expect(conflict).toMatchObject({
      path: '/notes.md',
      label: 'sbx-b',
      base: { seq: expect.any(Number) },
      ours: { size: 12 },
      theirs: { size: 12 },
    });
    expect(conflict?.keptAs).toMatch(/^\/notes\.conflict-sbx-b-\d{8}T\d{6}Z\.md$/);
    const kept = conflict?.keptAs.slice(1) ?? '';
    // The workspace version stays at the path; ours is beside it, in the tree and the workspace.
    expect(await text(b, 'notes.md')).toBe('edited in a\n');
    expect(await text(b, kept)).toBe('edited in b\n');
    expect((await catFile(satchel, `/${kept}`)).toString()).toBe('edited in b\n');
    expect(await text(b, 'src/one.ts')).toBe('one, edited in a\n');
    expect((await catFile(satchel, '/two.ts')).toString()).toBe('new in b\n');

    // a picks everything up; the status of b lists the conflict.
    await sync(a, 'sbx-a');
    expect(await text(a, kept)).toBe('edited in b\n');
    expect(await text(a, 'two.ts')).toBe('new in b\n');
    const status = await syncStatus(new LocalTree(b));
    expect(status).toMatchObject({ workspace: 'ws', files: 4, conflicts: [conflict] });
    // Nothing left to do on either side.
    expect(await sync(a, 'sbx-a')).toMatchObject({ uploaded: 0, downloaded: 0, conflicts: [] });
    expect(await sync(b, 'sbx-b')).toMatchObject({ uploaded: 0, downloaded: 0, conflicts: [] });
  });

  it('is not a conflict when both sides made the same change', async () => {
    const { a, b, sync } = await setup();
    await put(a, 'f.txt', 'base');
    await sync(a, 'a');
    await sync(b, 'b');
    await put(a, 'f.txt', 'same');
    await put(b, 'f.txt', 'same');
    await sync(a, 'a');
    expect(await sync(b, 'b')).toMatchObject({ conflicts: [], uploaded: 0, downloaded: 0 });
  });

  it('never silently overwrites a newer workspace version (conditional write)', async () => {
    const { satchel, a, sync } = await setup();
    await put(a, 'f.txt', 'base');
    await sync(a, 'a');
    await satchel.writeFile('ws', '/f.txt', 'written by another agent');
    await put(a, 'f.txt', 'local edit');
    const report = await sync(a, 'a');
    expect(report.conflicts).toHaveLength(1);
    const versions = await satchel.listVersions('ws', '/f.txt');
    expect(versions.items.map((v) => v.op)).toEqual(['write', 'write']);
    expect((await catFile(satchel, '/f.txt')).toString()).toBe('written by another agent');
  });

  it('propagates deletions, but stops a cycle that would delete most files unless forced', async () => {
    const { satchel, a, b, sync } = await setup();
    for (const n of [1, 2, 3, 4, 5, 6]) await put(a, `f${n}.txt`, `file ${n}`);
    await sync(a, 'a');
    await sync(b, 'b');
    await rm(join(a, 'f1.txt'));
    expect(await sync(a, 'a')).toMatchObject({ deletedRemote: 1, stoppedReason: null });
    expect(await sync(b, 'b')).toMatchObject({ deletedLocal: 1 });
    expect(await readdir(b)).not.toContain('f1.txt');

    for (const n of [2, 3, 4, 5]) await rm(join(a, `f${n}.txt`));
    const stopped = await sync(a, 'a');
    expect(stopped).toMatchObject({
      stoppedReason: 'mass_delete',
      plannedDeletes: 4,
      knownFiles: 5,
      deletedRemote: 0,
    });
    expect(await files(satchel)).toHaveLength(5);
    expect(await sync(a, 'a', { force: true })).toMatchObject({ deletedRemote: 4 });
    expect(await files(satchel)).toEqual(['/f6.txt']);
  });

  it('restores a reset tree from the workspace and deletes nothing', async () => {
    const { satchel, a, sync } = await setup();
    for (const n of [1, 2, 3]) await put(a, `d/f${n}.txt`, `file ${n}`);
    await sync(a, 'a');
    // The tree empties but the state survives (a wiped working dir): still a reset.
    await rm(join(a, 'd'), { recursive: true });
    expect(await sync(a, 'a')).toMatchObject({ reset: true, downloaded: 3, deletedRemote: 0 });
    // Everything gone, state included (a CLEAN boot).
    await rm(a, { recursive: true });
    expect(await sync(a, 'a')).toMatchObject({ reset: true, downloaded: 3, deletedRemote: 0 });
    expect(await text(a, 'd/f2.txt')).toBe('file 2');
    expect(await files(satchel)).toHaveLength(3);
  });

  it('follows .satchelignore and the built-in ignores both ways', async () => {
    const { satchel, a, b, sync } = await setup();
    await put(a, '.satchelignore', 'build/\n*.log\n!keep.log\n');
    await put(a, 'build/out.bin', 'x');
    await put(a, 'debug.log', 'x');
    await put(a, 'keep.log', 'kept');
    await put(a, '.git/HEAD', 'ref');
    await put(a, '.satchel/data.db', 'engine data');
    await put(a, 'src/a.ts', 'a');
    await sync(a, 'a', { exclude: ['/.satchel/'] });
    expect(await files(satchel)).toEqual(['/.satchelignore', '/keep.log', '/src/a.ts']);
    await satchel.writeFile('ws', '/build/from-elsewhere.bin', 'y');
    await put(b, '.satchelignore', 'build/\n');
    await sync(b, 'b');
    expect(await readdir(b)).not.toContain('build');
  });

  it('skips symlinks and reports them; syncs unicode names and empty files', async () => {
    const { satchel, a, b, sync } = await setup();
    await put(a, 'real.txt', 'content');
    await symlink(join(a, 'real.txt'), join(a, 'link.txt'));
    await symlink('/etc', join(a, 'etc-link'));
    await put(a, 'empty.txt', '');
    const nfd = 'cafe\u0301 ☕/re\u0301sume\u0301.md';
    await put(a, nfd, 'accents');
    await put(a, '日本語/ファイル.txt', 'nihongo');
    const report = await sync(a, 'a');
    expect(report.skipped).toEqual(
      expect.arrayContaining([
        { path: 'link.txt', reason: 'symlink' },
        { path: 'etc-link', reason: 'symlink' },
      ]),
    );
    expect(await files(satchel)).toEqual(
      ['/café ☕/résumé.md', '/empty.txt', '/real.txt', '/日本語/ファイル.txt'].sort(),
    );
    await sync(b, 'b');
    expect(await text(b, 'café ☕/résumé.md')).toBe('accents');
    expect(await text(b, 'empty.txt')).toBe('');
    // The NFD name in a is the same file: nothing to do on the next cycle.
    expect(await sync(a, 'a')).toMatchObject({ uploaded: 0, downloaded: 0, conflicts: [] });
  });

  it('sends no bytes for content the workspace already holds', async () => {
    const { satchel, a, sync } = await setup();
    const big = Buffer.alloc(300 * 1024, 7);
    await put(a, 'data/big.bin', big);
    expect(await sync(a, 'a')).toMatchObject({ uploaded: 1, deduplicated: 0, bytesUp: big.length });
    await rm(join(a, 'data/big.bin'));
    await put(a, 'moved/big.bin', big);
    const moved = await sync(a, 'a');
    expect(moved).toMatchObject({ uploaded: 1, deduplicated: 1, bytesUp: 0, deletedRemote: 1 });
    expect(await files(satchel)).toEqual(['/moved/big.bin']);
  });

  it('streams a 100 MB file both ways', async () => {
    const { satchel, a, b, sync } = await setup();
    const path = join(a, 'big.bin');
    const source = createHash('sha256');
    async function* generate() {
      const block = Buffer.alloc(1024 * 1024);
      for (let i = 0; i < 100; i++) {
        block.fill(i);
        source.update(block);
        yield block;
      }
    }
    await pipeline(generate(), createWriteStream(path));
    const digest = source.digest('hex');
    expect(await sync(a, 'a')).toMatchObject({ uploaded: 1, bytesUp: 100 * 1024 * 1024 });
    expect((await satchel.stat('ws', '/big.bin')).hash).toBe(digest);
    expect(await sync(b, 'b')).toMatchObject({ downloaded: 1 });
    const copy = createHash('sha256');
    for await (const piece of createReadStream(join(b, 'big.bin'))) copy.update(piece as Buffer);
    expect(copy.digest('hex')).toBe(digest);
  });
});

describe('syncOnce reads a new file once', () => {
  /** A tree that counts the reads of each file. */
  class CountingTree extends LocalTree {
    readonly reads = new Map<string, number>();
    override read(path: string): AsyncGenerator<Uint8Array> {
      this.reads.set(path, (this.reads.get(path) ?? 0) + 1);
      return super.read(path);
    }
  }

  it.each([true, false])(
    'uploading it (batch transfer: %s), and hashes the ones it compares',
    async (batchTransfer) => {
      const { satchel, a } = await setup();
      await satchel.createWorkspace('ws').catch(() => undefined);
      for (let i = 0; i < 40; i++) await put(a, `new/f${i}.txt`, `file ${i}\n`);
      await put(a, 'same.txt', 'same on both sides\n');
      await put(a, 'differs.txt', 'the tree says this\n');
      await satchel.writeFile('ws', '/same.txt', 'same on both sides\n');
      await satchel.writeFile('ws', '/differs.txt', 'the workspace says that\n');
      const tree = new CountingTree(a);
      const report = await syncOnce({ satchel, workspace: 'ws', tree, label: 'a', batchTransfer });
      // /differs.txt: both sides new and different, so compared: a conflict, the tree's copy
      // kept (uploaded beside it) and the workspace's downloaded.
      expect(report).toMatchObject({ uploaded: 41, downloaded: 1 });
      expect(report.conflicts).toMatchObject([{ path: '/differs.txt' }]);
      expect(await text(a, 'differs.txt')).toBe('the workspace says that\n');
      for (let i = 0; i < 40; i++) {
        expect((await catFile(satchel, `/new/f${i}.txt`)).toString()).toBe(`file ${i}\n`);
      }
      if (batchTransfer) {
        for (let i = 0; i < 40; i++) expect(tree.reads.get(`new/f${i}.txt`)).toBe(1);
      }
      // Hashed to be compared, and found in step: read once, never uploaded.
      expect(tree.reads.get('same.txt')).toBe(1);
      // The hashes recorded are the content's: the next cycle reads nothing and moves nothing.
      const again = new CountingTree(a);
      const quiet = await syncOnce({ satchel, workspace: 'ws', tree: again, label: 'a' });
      expect(quiet).toMatchObject({ uploaded: 0, downloaded: 0, conflicts: [] });
      expect(again.reads.size).toBe(0);
    },
  );
});
