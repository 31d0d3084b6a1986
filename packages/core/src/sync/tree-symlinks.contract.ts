/**
 * What every SyncTree must keep about symbolic links: nothing is created, replaced, removed or
 * read through a symlinked folder, whether a full cycle or a watch cycle asks; such paths are
 * reported skipped and the workspace keeps them. Each implementation runs it with a factory for
 * a tree rooted at `<base>/tree` on this machine (the CodeSandbox stand-in maps its VM there);
 * links point to siblings of `tree`, relatively, so they resolve the same inside a VM.
 */
import { mkdir, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadIgnoreRules } from '@satchel/client/sync/ignore.js';
import { SyncState } from '@satchel/client/sync/state.js';
import { syncOnce, syncPaths } from '@satchel/client/sync/sync.js';
import { SymlinkInPathError, type SyncTree } from '@satchel/client/sync/tree.js';
import { describe, expect, it } from 'vitest';
import type { SatchelEngine } from '../engine/satchel-engine.js';
import { catFile, openTemp, readAll, tempDir } from '../test-support/temp.js';

async function* once(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text, 'utf8');
}

async function listing(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}

async function workspaceFiles(satchel: SatchelEngine): Promise<Map<string, string>> {
  const page = await satchel.list('ws', { recursive: true, limit: 1000 });
  const out = new Map<string, string>();
  for (const item of page.items) {
    if (item.type === 'file') out.set(item.path, (await catFile(satchel, item.path)).toString());
  }
  return out;
}

/** `work` did nothing but fail with SymlinkInPathError naming `link`. */
async function refused(work: Promise<unknown>, link: string): Promise<void> {
  const error = await work.then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(SymlinkInPathError);
  expect(error).toMatchObject({ link });
}

export function runTreeSymlinkContract(name: string, treeAt: (base: string) => SyncTree): void {
  describe(`${name}: never through a symbolic link`, () => {
    async function setup() {
      const { satchel } = await openTemp();
      const base = await tempDir('tree-links-');
      const root = join(base, 'tree');
      await mkdir(root);
      const tree = treeAt(base);
      /** A folder beside the tree (outside it) holding `files`. */
      const outside = async (dir: string, files: Record<string, string> = {}) => {
        await mkdir(join(base, dir));
        for (const [file, text] of Object.entries(files)) {
          await writeFile(join(base, dir, file), text);
        }
        return join(base, dir);
      };
      const sync = () => syncOnce({ satchel, workspace: 'ws', tree, label: 'victim' });
      return { satchel, base, root, tree, outside, sync };
    }

    it('writes nothing through a symlinked folder, reports the paths skipped and keeps them in the workspace', async () => {
      const { satchel, root, outside, sync } = await setup();
      const out1 = await outside('outside-1', { 'keep.txt': 'mine' });
      const out2 = await outside('outside-2');
      await symlink('../outside-1', join(root, 'link'));
      await mkdir(join(root, 'a'));
      await symlink('../../outside-2', join(root, 'a/b'));
      await satchel.writeFile('ws', '/link/pwned.txt', 'an editor was here');
      await satchel.writeFile('ws', '/a/b/pwned.txt', 'nested');
      await satchel.writeFile('ws', '/a/ok.txt', 'fine');

      const report = await sync();
      expect(await listing(out1)).toEqual(['keep.txt']);
      expect(await listing(out2)).toEqual([]);
      expect(report.downloaded).toBe(1);
      expect(await readFile(join(root, 'a/ok.txt'), 'utf8')).toBe('fine');
      expect(report.skipped).toEqual(
        expect.arrayContaining([
          { path: 'link', reason: 'symlink' },
          { path: 'a/b', reason: 'symlink' },
          expect.objectContaining({ path: '/link/pwned.txt', reason: 'symlink' }),
          expect.objectContaining({ path: '/a/b/pwned.txt', reason: 'symlink' }),
        ]),
      );
      // Nor does the next cycle delete them from the workspace.
      expect(await sync()).toMatchObject({ deletedRemote: 0, downloaded: 0 });
      expect([...(await workspaceFiles(satchel)).keys()]).toEqual([
        '/a/b/pwned.txt',
        '/a/ok.txt',
        '/link/pwned.txt',
      ]);
      expect(await listing(out1)).toEqual(['keep.txt']);
    });

    it('keeps the workspace files of a synced folder that was replaced by a symlink', async () => {
      const { satchel, base, root, sync } = await setup();
      await mkdir(join(root, 'shared'));
      await writeFile(join(root, 'shared/x.txt'), 'shared');
      expect(await sync()).toMatchObject({ uploaded: 1 });
      await rename(join(root, 'shared'), join(base, 'elsewhere'));
      await symlink('../elsewhere', join(root, 'shared'));

      const report = await sync();
      expect(report).toMatchObject({ deletedRemote: 0, uploaded: 0, downloaded: 0 });
      expect(report.skipped).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: '/shared/x.txt' })]),
      );
      expect(await workspaceFiles(satchel)).toEqual(new Map([['/shared/x.txt', 'shared']]));
    });

    it('in a watch cycle, neither reads, replaces nor deletes a file through a symlinked folder', async () => {
      const { satchel, base, root, tree, sync } = await setup();
      await mkdir(join(root, 'link'));
      await writeFile(join(root, 'link/x.txt'), 'shared');
      await sync();
      // The synced folder now lives elsewhere (say ~/.ssh) and `link` points there.
      await rename(join(root, 'link'), join(base, 'dot-ssh'));
      await symlink('../dot-ssh', join(root, 'link'));
      await writeFile(join(base, 'dot-ssh/id_rsa'), 'PRIVATE KEY');
      // An editor deletes one file and plants the other: a conflict would upload the victim's.
      await satchel.remove('ws', '/link/x.txt');
      await satchel.writeFile('ws', '/link/id_rsa', 'attacker');

      const options = { satchel, workspace: 'ws', tree, label: 'victim' };
      const state = await SyncState.load(tree, 'ws');
      const rules = await loadIgnoreRules(tree);
      const report = await syncPaths(
        options,
        state,
        rules,
        new Set(['/link/x.txt', '/link/id_rsa']),
      );
      expect(await listing(join(base, 'dot-ssh'))).toEqual(['id_rsa', 'x.txt']);
      expect(await readFile(join(base, 'dot-ssh/id_rsa'), 'utf8')).toBe('PRIVATE KEY');
      expect(await readFile(join(base, 'dot-ssh/x.txt'), 'utf8')).toBe('shared');
      expect(await workspaceFiles(satchel)).toEqual(new Map([['/link/id_rsa', 'attacker']]));
      expect(report).toMatchObject({ deletedLocal: 0, uploaded: 0, downloaded: 0, conflicts: [] });
      expect(report.skipped).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: '/link/x.txt', reason: 'symlink' }),
          expect.objectContaining({ path: '/link/id_rsa', reason: 'symlink' }),
        ]),
      );
    });

    it('refuses to write, remove, rename or read through a symlinked folder', async () => {
      const { root, tree, outside } = await setup();
      const out = await outside('outside', { 'f.txt': 'outside' });
      await symlink('../outside', join(root, 'link'));
      await mkdir(join(root, 'a'));
      await symlink('../../outside', join(root, 'a/b'));
      await writeFile(join(root, 'own.txt'), 'own');
      await symlink('../outside/f.txt', join(root, 'f-link'));

      await refused(tree.write('link/new.txt', once('x')), 'link');
      await refused(tree.write('a/b/new.txt', once('x')), 'a/b');
      await refused(tree.write('link/sub/new.txt', once('x')), 'link');
      await refused(tree.remove('link/f.txt'), 'link');
      await refused(tree.remove('a/b/f.txt'), 'a/b');
      await refused(tree.rename('own.txt', 'link/own.txt'), 'link');
      await refused(tree.rename('link/f.txt', 'stolen.txt'), 'link');
      await refused(readAll(tree.read('link/f.txt')), 'link');
      await refused(readAll(tree.read('a/b/f.txt')), 'a/b');
      await refused(readAll(tree.read('f-link')), 'f-link');
      // A link at the path itself is replaced, never written through.
      await tree.write('f-link', once('replaced'));
      expect(await tree.stat('f-link')).toMatchObject({ type: 'file' });
      expect(await tree.stat('link/f.txt')).toMatchObject({ path: 'link', type: 'symlink' });
      expect(await tree.stat('a/b/f.txt')).toMatchObject({ path: 'a/b', type: 'symlink' });

      expect(await listing(out)).toEqual(['f.txt']);
      expect(await readFile(join(out, 'f.txt'), 'utf8')).toBe('outside');
      expect(await readFile(join(root, 'own.txt'), 'utf8')).toBe('own');
      expect(await listing(root)).toEqual(expect.arrayContaining(['a', 'link', 'own.txt']));
      expect(await listing(root)).not.toContain('stolen.txt');
    });
  });
}
