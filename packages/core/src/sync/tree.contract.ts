/**
 * The SyncTree contract: what every tree (a local directory, a sandbox's file system) must do,
 * as tree.ts promises it and as sync relies on it — entries with sizes and mtimes that match
 * what a write returned, atomic replace, Node's error codes where sync branches on them
 * (ENOENT for a file deleted under a scan, EEXIST for a taken rename target, EISDIR/ENOTDIR/
 * EEXIST/ENOTEMPTY for a file where a folder is or the reverse). Each implementation runs it
 * with its own factory.
 */

import {
  STATE_DIR,
  type SyncTree,
  type TreeEntry,
  type WrittenFile,
} from '@satchel/client/sync/tree.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

export interface SyncTreeFixture {
  /** A tree whose root exists and is empty. */
  readonly tree: SyncTree;
  /** A tree of the same kind whose root does not exist. */
  readonly absent: SyncTree;
  /** Makes a symbolic link at `path` (relative to the root) to `target`, behind the tree's back. */
  symlink(target: string, path: string): Promise<void>;
  /** Makes an (empty) folder at `path`, with its parents, behind the tree's back. */
  mkdir(path: string): Promise<void>;
  /** True when `write` applies the mtime it is given (tree.ts: "when the tree can set it"). */
  readonly setsMtime: boolean;
  cleanup(): Promise<void>;
}

/** The type-mismatch codes sync turns into a CONFLICT instead of a crash (apply.ts). */
export const TYPE_MISMATCH = ['EISDIR', 'ENOTDIR', 'EEXIST', 'ENOTEMPTY'];

export async function* pieces(...parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? Buffer.from(part) : part;
}

async function bytes(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const piece of source) out.push(Buffer.from(piece));
  return Buffer.concat(out);
}

export async function text(tree: SyncTree, path: string): Promise<string> {
  return (await bytes(tree.read(path))).toString('utf8');
}

async function errorOf(promise: Promise<unknown>): Promise<NodeJS.ErrnoException> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error, 'expected the call to fail').toBeInstanceOf(Error);
  return error as NodeJS.ErrnoException;
}

/** Files and links outside the state folder, by path. */
async function listed(tree: SyncTree): Promise<TreeEntry[]> {
  const entries = await tree.list((dir) => dir === STATE_DIR);
  return entries.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** Resolves once `predicate` holds, polling; fails after `ms`. */
async function eventually(predicate: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function runSyncTreeContract(name: string, factory: () => Promise<SyncTreeFixture>): void {
  describe(`SyncTree contract: ${name}`, () => {
    let fixture: SyncTreeFixture;
    let tree: SyncTree;

    beforeEach(async () => {
      fixture = await factory();
      tree = fixture.tree;
    });

    afterEach(async () => {
      await fixture.cleanup();
    });

    it('says whether its root exists', async () => {
      expect(await tree.exists()).toBe(true);
      expect(await fixture.absent.exists()).toBe(false);
      expect(tree.description).not.toBe('');
    });

    it('writes files with their parents; stat, list and the write agree on size and mtime', async () => {
      const binary = new Uint8Array([0, 255, 10, 13, 0]);
      const a = await tree.write('a.txt', pieces('hel', 'lo'));
      const f = await tree.write('d/e/f.bin', pieces(binary));
      const empty = await tree.write('d/empty', pieces());
      expect(a.size).toBe(5);
      expect(f.size).toBe(5);
      expect(empty.size).toBe(0);
      expect(await text(tree, 'a.txt')).toBe('hello');
      expect(await bytes(tree.read('d/e/f.bin'))).toEqual(Buffer.from(binary));
      expect(await bytes(tree.read('d/empty'))).toHaveLength(0);

      // What the write returned is what the next scan sees: no change detected.
      const inode = (w: WrittenFile) => (w.ino === undefined ? {} : { ino: w.ino });
      const expected: TreeEntry[] = [
        { path: 'a.txt', type: 'file', size: a.size, mtimeMs: a.mtimeMs, ...inode(a) },
        { path: 'd/e/f.bin', type: 'file', size: f.size, mtimeMs: f.mtimeMs, ...inode(f) },
        { path: 'd/empty', type: 'file', size: 0, mtimeMs: empty.mtimeMs, ...inode(empty) },
      ];
      expect(await listed(tree)).toEqual(expected);
      for (const entry of expected) expect(await tree.stat(entry.path)).toEqual(entry);
    });

    it('applies a given mtime when it can, and reports the mtime it kept either way', async () => {
      const mtimeMs = Date.parse('2024-02-03T04:05:06.000Z');
      const written = await tree.write('old.txt', pieces('old'), mtimeMs);
      expect(await tree.stat('old.txt')).toMatchObject({ size: 3, mtimeMs: written.mtimeMs });
      if (fixture.setsMtime) expect(written.mtimeMs).toBe(mtimeMs);
    });

    it('lists files but not folders, never through a symlink, and skips pruned folders', async () => {
      await tree.write('keep/x.txt', pieces('x'));
      await tree.write('skip/y.txt', pieces('y'));
      await tree.write('skip/deeper/z.txt', pieces('z'));
      await fixture.mkdir('empty/dir');
      await fixture.symlink('keep', 'link-to-dir');
      await fixture.symlink('keep/x.txt', 'keep/link-to-file');
      const asked: string[] = [];
      const entries = await tree.list((dir) => {
        asked.push(dir);
        return dir === 'skip' || dir === STATE_DIR;
      });
      expect(entries.map((e) => [e.path, e.type]).sort()).toEqual([
        ['keep/link-to-file', 'symlink'],
        ['keep/x.txt', 'file'],
        ['link-to-dir', 'symlink'],
      ]);
      expect(entries.find((e) => e.type === 'symlink')?.size).toBe(0);
      // Folders are offered to `prune` by their relative path; a pruned one is not entered.
      expect(asked).toEqual(expect.arrayContaining(['keep', 'skip', 'empty', 'empty/dir']));
      expect(asked).not.toContain('skip/deeper');
      expect(asked).not.toContain('link-to-dir');
    });

    it('stats files and links, and gives null for folders and missing paths', async () => {
      await tree.write('d/f.txt', pieces('f'));
      await fixture.symlink('d', 'ln');
      expect(await tree.stat('d/f.txt')).toMatchObject({ path: 'd/f.txt', type: 'file', size: 1 });
      expect(await tree.stat('ln')).toMatchObject({ path: 'ln', type: 'symlink', size: 0 });
      expect(await tree.stat('d')).toBeNull();
      expect(await tree.stat('missing.txt')).toBeNull();
      expect(await tree.stat('d/f.txt/below')).toBeNull();
      expect(await tree.stat('no/such/dir/file')).toBeNull();
    });

    it('stats many paths at once as it stats each (statAll, where the tree has it)', async () => {
      await tree.write('d/f.txt', pieces('f'));
      await tree.write('d/e/g.txt', pieces('gg'));
      await tree.write('top.txt', pieces('top'));
      await fixture.symlink('d', 'ln');
      const paths = ['d/f.txt', 'ln', 'ln/f.txt', 'd', 'missing.txt', 'd/e/g.txt', 'd/f.txt/x'];
      paths.push('no/such/file', 'top.txt', 'no/such/other', 'no/x', 'd/f.txt', 'd/gone/x');
      const one = await Promise.all(paths.map((path) => tree.stat(path)));
      expect(one.filter((entry) => entry?.type === 'file')).toHaveLength(4);
      if (tree.statAll) expect(await tree.statAll(paths)).toEqual(one);
    });

    it('fails reading a missing file with ENOENT (a file deleted under a scan)', async () => {
      expect((await errorOf(bytes(tree.read('missing.txt')))).code).toBe('ENOENT');
      expect((await errorOf(bytes(tree.read('no/such/dir.txt')))).code).toBe('ENOENT');
    });

    it('replaces atomically: readers see the old content until the write is done', async () => {
      await tree.write('r.txt', pieces('old content'));
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started: () => void = () => undefined;
      const halfway = new Promise<void>((resolve) => {
        started = resolve;
      });
      async function* slow(): AsyncGenerator<Uint8Array> {
        yield Buffer.from('new ');
        started();
        await gate;
        yield Buffer.from('content, longer');
      }
      const writing = tree.write('r.txt', slow());
      await halfway;
      expect(await text(tree, 'r.txt')).toBe('old content');
      expect(await tree.stat('r.txt')).toMatchObject({ size: 11 });
      release();
      const written = await writing;
      expect(await text(tree, 'r.txt')).toBe('new content, longer');
      expect(await tree.stat('r.txt')).toMatchObject({ size: 19, mtimeMs: written.mtimeMs });
    });

    it('leaves the old content and no temporary file when the source fails', async () => {
      await tree.write('keep.txt', pieces('kept'));
      async function* failing(): AsyncGenerator<Uint8Array> {
        yield Buffer.from('partial');
        throw new Error('source broke');
      }
      await expect(tree.write('keep.txt', failing())).rejects.toThrow('source broke');
      await expect(tree.write('new/never.txt', failing())).rejects.toThrow('source broke');
      expect(await text(tree, 'keep.txt')).toBe('kept');
      expect(await tree.stat('new/never.txt')).toBeNull();
      // Nothing anywhere but the one file, the state folder included.
      const all = await tree.list(() => false);
      expect(all.map((e) => e.path)).toEqual(['keep.txt']);
    });

    it('refuses a file where a folder is, or beneath a file, with a type-mismatch code', async () => {
      await tree.write('dir/inside.txt', pieces('in'));
      await tree.write('file.txt', pieces('f'));
      const over = await errorOf(tree.write('dir', pieces('x')));
      expect(TYPE_MISMATCH).toContain(over.code);
      const below = await errorOf(tree.write('file.txt/below.txt', pieces('x')));
      expect(TYPE_MISMATCH).toContain(below.code);
      expect(await text(tree, 'dir/inside.txt')).toBe('in');
      expect(await text(tree, 'file.txt')).toBe('f');
    });

    it('removes a file and the folders it left empty, and nothing more', async () => {
      await tree.write('a/b/c/gone.txt', pieces('g'));
      await tree.write('a/stays.txt', pieces('s'));
      await tree.remove('a/b/c/gone.txt');
      expect(await tree.stat('a/b/c/gone.txt')).toBeNull();
      expect((await listed(tree)).map((e) => e.path)).toEqual(['a/stays.txt']);
      // a/b and a/b/c went (empty); a stays (not empty): nothing is left to prune but `a`.
      const dirs: string[] = [];
      await tree.list((dir) => {
        if (dir !== STATE_DIR) dirs.push(dir);
        return dir === STATE_DIR;
      });
      expect(dirs).toEqual(['a']);

      await tree.remove('a/b/c/gone.txt');
      await tree.remove('never/was.txt');
      await tree.remove('a/stays.txt');
      expect(await listed(tree)).toEqual([]);
      expect(await tree.exists()).toBe(true);
    });

    it('renames a file, creating parents, and refuses a taken target with EEXIST', async () => {
      await tree.write('from.txt', pieces('moving'));
      await tree.rename('from.txt', 'to/deep/to.txt');
      expect(await tree.stat('from.txt')).toBeNull();
      expect(await text(tree, 'to/deep/to.txt')).toBe('moving');

      await tree.write('other.txt', pieces('other'));
      const taken = await errorOf(tree.rename('other.txt', 'to/deep/to.txt'));
      expect(taken.code).toBe('EEXIST');
      expect(await text(tree, 'other.txt')).toBe('other');
      expect(await text(tree, 'to/deep/to.txt')).toBe('moving');

      const missing = await errorOf(tree.rename('missing.txt', 'anywhere.txt'));
      expect(missing.code).toBe('ENOENT');
      expect(await tree.stat('anywhere.txt')).toBeNull();
    });

    it('keeps state files in the state folder: read, replace, append', async () => {
      expect(await tree.readState('state.json')).toBeNull();
      await tree.writeState('state.json', '{"v":1}');
      await tree.writeState('state.json', '{"v":2}');
      expect(await tree.readState('state.json')).toBe('{"v":2}');
      expect(await tree.readState('journal')).toBeNull();
      await tree.appendState('journal', 'one\n');
      await tree.appendState('journal', 'twö\n');
      expect(await tree.readState('journal')).toBe('one\ntwö\n');
      await tree.writeState('journal', '');
      expect(await tree.readState('journal')).toBe('');

      // They live in the state folder, which a scan prunes; nothing else is left there.
      expect(await listed(tree)).toEqual([]);
      const all = await tree.list(() => false);
      expect(all.map((e) => e.path).sort()).toEqual([
        `${STATE_DIR}/journal`,
        `${STATE_DIR}/state.json`,
      ]);
    });

    it('reports changed paths relative to the root, never the state folder', async () => {
      const seen: string[] = [];
      // The folder exists before the watch starts: a file written into a folder created after
      // it can be missed by a watcher that attaches to the new folder late (chokidar, under
      // load), which is why watch mode also runs a full cycle every 60 s.
      await fixture.mkdir('w');
      const watcher = await tree.watch((paths) => seen.push(...paths));
      try {
        await tree.writeState('state.json', '{}');
        await tree.write('w/watched.txt', pieces('w'));
        await eventually(() => seen.includes('w/watched.txt'));
        const beforeRemove = seen.length;
        await tree.remove('w/watched.txt');
        // The removal takes the emptied folder with it: a watcher may report the file, the
        // folder, or both.
        await eventually(() =>
          seen.slice(beforeRemove).some((p) => p === 'w/watched.txt' || p === 'w'),
        );
        expect(seen.filter((p) => p === STATE_DIR || p.startsWith(`${STATE_DIR}/`))).toEqual([]);
        expect(seen.filter((p) => p.startsWith('/') || p === '')).toEqual([]);
      } finally {
        await watcher.close();
      }
      // File-system events arrive late on a loaded machine: the wait above bounds it, not this.
    }, 30_000);
  });
}
