/**
 * The TreeWriteGroup contract (tree.ts), for every tree that writes in groups: files land with
 * their parents and read back whole, outcomes come in the order the files were added, one
 * file's failure (a file on the way, a folder in the place, a symbolic link on the way) is that
 * file's outcome and not the group's, and nothing of a group is left outside its targets.
 */
import { STATE_DIR, SymlinkInPathError, type SyncTree } from '@satchel/client/sync/tree.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pieces, type SyncTreeFixture, TYPE_MISMATCH, text } from './tree.contract.js';

/** Every file and link, the state folder included, by path. */
async function everything(tree: SyncTree): Promise<string[]> {
  return (await tree.list(() => false)).map((e) => e.path).sort();
}

export function runTreeWriteGroupContract(
  name: string,
  factory: () => Promise<SyncTreeFixture>,
): void {
  describe(`TreeWriteGroup contract: ${name}`, () => {
    let fixture: SyncTreeFixture;
    let tree: SyncTree;

    beforeEach(async () => {
      fixture = await factory();
      tree = fixture.tree;
    });

    afterEach(async () => {
      await fixture.cleanup();
    });

    function group() {
      const made = tree.writeGroup?.();
      if (!made) throw new Error(`${name} writes no groups`);
      return made;
    }

    it('writes its files with their parents; outcomes in the order added, as stat and list see them', async () => {
      await tree.write('d/old.txt', pieces('old content'));
      const g = group();
      const paths = ['a.txt', 'd/e/f.txt', 'd/old.txt', 'd/e/g.txt', 'h/i/j/k.txt', 'empty'];
      for (const path of paths) {
        await g.add(path, path === 'empty' ? pieces() : pieces(`${path} `, 'content'));
      }
      expect(g.size).toBe(paths.length);
      const outcomes = await g.commit();
      expect(outcomes.map((o) => o.path)).toEqual(paths);
      for (const outcome of outcomes) {
        if (!('written' in outcome)) throw outcome.error;
        const expected = outcome.path === 'empty' ? '' : `${outcome.path} content`;
        expect(await text(tree, outcome.path)).toBe(expected);
        expect(outcome.written.size).toBe(Buffer.byteLength(expected));
        expect(await tree.stat(outcome.path)).toMatchObject({
          type: 'file',
          size: outcome.written.size,
          mtimeMs: outcome.written.mtimeMs,
        });
      }
      // Nothing else anywhere, the state folder included: no staged or temporary file left.
      expect(await everything(tree)).toEqual([...paths].sort());
      expect(g.size).toBe(0);
    });

    it('gives each file its own outcome: a file beneath a file, a folder in its place, a link on the way', async () => {
      await tree.write('file.txt', pieces('f'));
      await tree.write('dir/inside.txt', pieces('in'));
      await fixture.mkdir('real');
      await fixture.symlink('real', 'link');
      const g = group();
      for (const path of ['file.txt/below.txt', 'dir', 'link/x.txt', 'ok/fine.txt']) {
        await g.add(path, pieces('new'));
      }
      const outcomes = await g.commit();
      const byPath = new Map(outcomes.map((o) => [o.path, o]));
      const errorAt = (path: string) => {
        const outcome = byPath.get(path);
        return outcome && 'error' in outcome ? (outcome.error as NodeJS.ErrnoException) : null;
      };
      expect(TYPE_MISMATCH).toContain(errorAt('file.txt/below.txt')?.code);
      expect(TYPE_MISMATCH).toContain(errorAt('dir')?.code);
      expect(errorAt('link/x.txt')).toBeInstanceOf(SymlinkInPathError);
      expect(byPath.get('ok/fine.txt')).toHaveProperty('written');
      expect(await text(tree, 'ok/fine.txt')).toBe('new');
      expect(await text(tree, 'file.txt')).toBe('f');
      expect(await text(tree, 'dir/inside.txt')).toBe('in');
      // Nothing went through the link.
      const listed = await tree.list((dir) => dir === STATE_DIR);
      expect(listed.map((e) => e.path).sort()).toEqual([
        'dir/inside.txt',
        'file.txt',
        'link',
        'ok/fine.txt',
      ]);
    });

    it('opens the folders of each group anew: a folder that became a link since is refused', async () => {
      await fixture.mkdir('real');
      const first = group();
      await first.add('a/one.txt', pieces('1'));
      await first.add('a/two.txt', pieces('2'));
      expect((await first.commit()).map((o) => 'written' in o)).toEqual([true, true]);
      // `a` goes (with its last file) and comes back as a link to `real`.
      await tree.remove('a/one.txt');
      await tree.remove('a/two.txt');
      await fixture.symlink('real', 'a');
      const second = group();
      await second.add('a/three.txt', pieces('3'));
      const [outcome] = await second.commit();
      expect(outcome && 'error' in outcome ? outcome.error : null).toBeInstanceOf(
        SymlinkInPathError,
      );
      expect(await everything(tree)).toEqual(['a']);
    });

    it('leaves nothing behind when discarded', async () => {
      await tree.write('kept.txt', pieces('kept'));
      const g = group();
      await g.add('kept.txt', pieces('never'));
      await g.add('new/never.txt', pieces('never'));
      await g.discard();
      expect(await text(tree, 'kept.txt')).toBe('kept');
      expect(await tree.stat('new/never.txt')).toBeNull();
      expect(await everything(tree)).toEqual(['kept.txt']);
    });
  });
}
