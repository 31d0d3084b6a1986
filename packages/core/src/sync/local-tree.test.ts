/**
 * LocalTree: the SyncTree and write-group contracts, the symbolic-link contract in both modes,
 * a swap mid-write and mid-scan, a linked root, the state read back.
 */

import { renameSync, statSync, symlinkSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalTree } from '@satchel/client/sync/local-tree.js';
import { syncOnce } from '@satchel/client/sync/sync.js';
import type { TreeEntry } from '@satchel/client/sync/tree.js';
import { describe, expect, it } from 'vitest';
import { catFile, openTemp, tempDir } from '../test-support/temp.js';
import { runSyncTreeContract, type SyncTreeFixture } from './tree.contract.js';
import { runTreeWriteGroupContract } from './tree-groups.contract.js';
import { runTreeSymlinkContract } from './tree-symlinks.contract.js';

/** A local tree whose folder `a` is swapped for a link to `../outside` right after one scan. */
class SwappedAfterScan extends LocalTree {
  armed = false;

  override async list(prune: (dir: string) => boolean): Promise<TreeEntry[]> {
    const entries = await super.list(prune);
    if (this.armed) {
      this.armed = false;
      await rename(join(this.root, 'a'), join(this.root, '../outside'));
      await symlink('../outside', join(this.root, 'a'));
    }
    return entries;
  }
}

async function localFixture(): Promise<SyncTreeFixture> {
  const root = await tempDir('satchel-tree-');
  return {
    tree: new LocalTree(root),
    absent: new LocalTree(join(root, 'not-there')),
    symlink: (target, path) => symlink(target, join(root, path)),
    mkdir: async (path) => {
      await mkdir(join(root, path), { recursive: true });
    },
    setsMtime: true,
    // tempDir removes the directory after each test.
    cleanup: async () => undefined,
  };
}

runSyncTreeContract('LocalTree', localFixture);
runTreeWriteGroupContract('LocalTree', localFixture);

runTreeSymlinkContract('LocalTree', (base) => new LocalTree(join(base, 'tree')));
runTreeSymlinkContract(
  'LocalTree checking each folder (the mode without /proc/self/fd)',
  (base) => new LocalTree(join(base, 'tree'), { folderHandles: false }),
);

describe('LocalTree', () => {
  it.runIf(process.platform === 'linux')(
    'writes into the folder it verified even when that folder is swapped for a link mid-download',
    async () => {
      const base = await tempDir('tree-race-');
      const root = join(base, 'tree');
      await mkdir(join(root, 'a'), { recursive: true });
      await mkdir(join(base, 'outside'));
      async function* swapping(): AsyncGenerator<Uint8Array> {
        yield Buffer.from('first half, ');
        await rename(join(root, 'a'), join(base, 'a-moved'));
        await symlink('../outside', join(root, 'a'));
        yield Buffer.from('second half');
      }
      await new LocalTree(root).write('a/f.txt', swapping());
      expect(await readdir(join(base, 'outside'))).toEqual([]);
      expect(await readFile(join(base, 'a-moved/f.txt'), 'utf8')).toBe('first half, second half');
    },
  );

  it.runIf(process.platform === 'linux')(
    "stats a folder's files through its descriptor when its name leads elsewhere mid-scan",
    async () => {
      const base = await tempDir('tree-scan-swap-');
      const root = join(base, 'tree');
      await mkdir(join(root, 'a/b'), { recursive: true });
      await writeFile(join(root, 'a/b/f.txt'), 'in the tree');
      await mkdir(join(base, 'outside/b'), { recursive: true });
      await writeFile(join(base, 'outside/b/f.txt'), 'a longer file, outside the tree');
      const entries = await new LocalTree(root).list((dir) => {
        // After a/ is opened, before a/b is: a/ moves away and a link to outside/ takes its
        // name, so "a/b/f.txt" by name is outside/b/f.txt while the scan holds the real a/.
        if (dir === 'a/b') {
          renameSync(join(root, 'a'), join(base, 'a-moved'));
          symlinkSync('../outside', join(root, 'a'));
        }
        return false;
      });
      const real = statSync(join(base, 'a-moved/b/f.txt'));
      expect(entries).toEqual([
        { path: 'a/b/f.txt', type: 'file', size: real.size, mtimeMs: real.mtimeMs, ino: real.ino },
      ]);
    },
  );

  it('reads its state back as written, ASCII or not', async () => {
    const tree = new LocalTree(join(await tempDir('tree-state-'), 'tree'));
    for (const text of ['{"files":{"/a.txt":1}}', '{"files":{"/café ☕/日本語.txt":1}}']) {
      await tree.writeState('state.json', text);
      expect(await tree.readState('state.json')).toBe(text);
    }
  });

  it('holds a path whose folder became a link after the scan, and reports it', async () => {
    const { satchel } = await openTemp();
    const base = await tempDir('tree-swap-');
    await mkdir(join(base, 'tree/a'), { recursive: true });
    await writeFile(join(base, 'tree/a/x.txt'), 'v1');
    const tree = new SwappedAfterScan(join(base, 'tree'));
    await syncOnce({ satchel, workspace: 'ws', tree });
    await satchel.writeFile('ws', '/a/x.txt', 'v2 from the workspace');
    tree.armed = true;
    const report = await syncOnce({ satchel, workspace: 'ws', tree });
    expect(await readFile(join(base, 'outside/x.txt'), 'utf8')).toBe('v1');
    expect(report).toMatchObject({ downloaded: 0, deletedRemote: 0 });
    expect(report.skipped).toEqual([
      expect.objectContaining({ path: '/a/x.txt', reason: 'symlink' }),
    ]);
    expect((await catFile(satchel, '/a/x.txt')).toString()).toBe('v2 from the workspace');
  });

  it('syncs a tree whose root is itself a symbolic link (the caller chose it)', async () => {
    const { satchel } = await openTemp();
    const base = await tempDir('tree-root-link-');
    await mkdir(join(base, 'real/d'), { recursive: true });
    await writeFile(join(base, 'real/d/f.txt'), 'through the root link');
    await symlink('real', join(base, 'root'));
    const tree = new LocalTree(join(base, 'root'));
    expect(await syncOnce({ satchel, workspace: 'ws', tree })).toMatchObject({ uploaded: 1 });
    await satchel.writeFile('ws', '/d/g.txt', 'back');
    expect(await syncOnce({ satchel, workspace: 'ws', tree })).toMatchObject({ downloaded: 1 });
    expect(await readFile(join(base, 'real/d/g.txt'), 'utf8')).toBe('back');
    expect((await catFile(satchel, '/d/f.txt')).toString()).toBe('through the root link');
  });

  it('reads files of every size whole: around the one-call limit, and streamed past it', async () => {
    const base = await tempDir('tree-read-');
    const tree = new LocalTree(base);
    const sizes = [0, 1, 256 * 1024 - 1, 256 * 1024, 256 * 1024 + 1, 2_500_000];
    for (const size of sizes) {
      const data = Buffer.alloc(size);
      for (let i = 0; i < size; i += 4096) data[i] = (i / 4096) % 251;
      await writeFile(join(base, `f-${size}`), data);
      const pieces: Uint8Array[] = [];
      for await (const piece of tree.read(`f-${size}`)) pieces.push(piece);
      expect(Buffer.concat(pieces).equals(data), `${size} bytes`).toBe(true);
    }
  });

  it('rehydrates a tree in several write groups, each file durable and recorded, no temporary file left', async () => {
    const { satchel } = await openTemp();
    const files = 1300; // more than two groups of 512: one group is written while another flushes
    await satchel.uploadFiles(
      'ws',
      (async function* () {
        for (let i = 0; i < files; i++)
          yield { path: `/d${i % 7}/f${i}.txt`, content: Buffer.from(`file ${i}`) };
      })(),
    );
    const base = await tempDir('tree-groups-');
    const report = await syncOnce({ satchel, workspace: 'ws', tree: new LocalTree(base) });
    expect(report).toMatchObject({ downloaded: files, uploaded: 0, retry: 0 });
    for (const i of [0, 511, 512, 1023, 1024, files - 1]) {
      expect(await readFile(join(base, `d${i % 7}/f${i}.txt`), 'utf8')).toBe(`file ${i}`);
    }
    const names = await readdir(base, { recursive: true });
    expect(names.filter((name) => name.includes('.satchel-tmp-'))).toEqual([]);
    // The state knows every file: a second cycle moves nothing.
    expect(await syncOnce({ satchel, workspace: 'ws', tree: new LocalTree(base) })).toMatchObject({
      downloaded: 0,
      uploaded: 0,
    });
  });

  it('never syncs a write group temporary file, and removes one a crash left an hour ago', async () => {
    const { satchel } = await openTemp();
    const base = await tempDir('tree-temps-');
    await mkdir(join(base, 'd'));
    await writeFile(join(base, 'd/real.txt'), 'synced');
    await writeFile(join(base, 'd/.satchel-tmp-fresh'), 'being written');
    await writeFile(join(base, 'd/.satchel-tmp-stale'), 'left by a crash');
    const hourAgo = new Date(Date.now() - 61 * 60 * 1000);
    await utimes(join(base, 'd/.satchel-tmp-stale'), hourAgo, hourAgo);
    const report = await syncOnce({ satchel, workspace: 'ws', tree: new LocalTree(base) });
    expect(report).toMatchObject({ uploaded: 1 });
    const page = await satchel.list('ws', { recursive: true });
    expect(page.items.filter((f) => f.type === 'file').map((f) => f.path)).toEqual(['/d/real.txt']);
    expect((await readdir(join(base, 'd'))).sort()).toEqual(['.satchel-tmp-fresh', 'real.txt']);
  });
});
