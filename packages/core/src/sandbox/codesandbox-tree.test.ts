/**
 * The SyncTree and symbolic-link contracts on CodeSandboxTree, over the local stand-in of the
 * SDK's `client.fs`.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { syncOnce } from '@satchel/client/sync/sync.js';
import { describe, expect, it } from 'vitest';
import { runSyncTreeContract } from '../sync/tree.contract.js';
import { runTreeSymlinkContract } from '../sync/tree-symlinks.contract.js';
import { openTemp, tempDir } from '../test-support/temp.js';
import { errnoOf, isMissing } from './codesandbox-errors.js';
import { StandInFs } from './codesandbox-stand-in.js';
import { CodeSandboxTree, type CsbFileSystem } from './codesandbox-tree.js';

const ROOT = '/project/workspace';

runSyncTreeContract('CodeSandboxTree (stand-in SDK)', async () => {
  const vm = await tempDir('satchel-csb-tree-');
  const local = join(vm, ROOT);
  await mkdir(local, { recursive: true });
  const fs = new StandInFs(vm);
  return {
    tree: new CodeSandboxTree(fs, ROOT, 'sbx-contract'),
    absent: new CodeSandboxTree(fs, '/project/not-there', 'sbx-contract'),
    symlink: (target, path) => symlink(target, join(local, path)),
    mkdir: async (path) => {
      await mkdir(join(local, path), { recursive: true });
    },
    // The SDK cannot set mtimes (codesandbox-tree.ts).
    setsMtime: false,
    // tempDir removes the directory after each test.
    cleanup: async () => undefined,
  };
});

// The stand-in's VM root is `base`, so the tree `/tree` is `<base>/tree` on this machine.
runTreeSymlinkContract(
  'CodeSandboxTree (stand-in fs)',
  (base) => new CodeSandboxTree(new StandInFs(base), '/tree', 'sbx-links'),
);

describe('CodeSandboxTree on a VM that fails the way the SDK does', () => {
  it('reads only an ENOENT errno as "missing": a timed-out stat fails the sync, nothing deleted', async () => {
    const { satchel } = await openTemp();
    const vm = await tempDir('satchel-csb-fail-');
    await mkdir(join(vm, ROOT), { recursive: true });
    const fs = new StandInFs(vm);
    const names = Array.from({ length: 10 }, (_, i) => `f${i}.txt`);
    for (const name of names) await writeFile(join(vm, ROOT, name), name);
    const sync = (tree: CodeSandboxTree) => syncOnce({ satchel, workspace: 'ws', tree });
    expect(await sync(new CodeSandboxTree(fs, ROOT, 'sbx'))).toMatchObject({ uploaded: 10 });

    // The SDK's errors carry no code: "<errno>: <message>", errno null for a timeout.
    const timesOut: CsbFileSystem = Object.assign(Object.create(fs) as StandInFs, {
      stat: async (path: string) => {
        if (path.endsWith('/f3.txt')) throw new Error('null: Pitcher message fs/stat timed out');
        return fs.stat(path);
      },
      readdir: async (path: string) => {
        const entries = await fs.readdir(path);
        return entries.filter((e) => e.name !== 'f4.txt');
      },
    });
    await expect(sync(new CodeSandboxTree(timesOut, ROOT, 'sbx'))).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('timed out'),
    });
    const listed = await satchel.list('ws', { recursive: true });
    expect(listed.items).toHaveLength(10);

    expect(errnoOf(new Error('2: no such file or directory'))).toBe(2);
    expect(isMissing(new Error('2: no such file or directory'))).toBe(true);
    expect(isMissing(new Error('null: ENOENT in a message is not an errno'))).toBe(false);
    expect(isMissing(new Error('Pitcher message fs/stat has been disposed'))).toBe(false);
  });

  it('refuses a file above the size cap with TOO_LARGE, in both directions', async () => {
    const vm = await tempDir('satchel-csb-cap-');
    await mkdir(join(vm, ROOT), { recursive: true });
    await writeFile(join(vm, ROOT, 'big.bin'), Buffer.alloc(2048));
    const tree = new CodeSandboxTree(new StandInFs(vm), ROOT, 'sbx', { maxFileBytes: 1024 });
    await expect(collectText(tree.read('big.bin'))).rejects.toMatchObject({ code: 'TOO_LARGE' });
    await expect(
      tree.write(
        'up.bin',
        (async function* () {
          yield Buffer.alloc(2048);
        })(),
      ),
    ).rejects.toMatchObject({ code: 'TOO_LARGE', message: expect.stringContaining('1024 bytes') });
    expect(await tree.stat('up.bin')).toBeNull();
  });
});

async function collectText(source: AsyncIterable<Uint8Array>): Promise<string> {
  const pieces: Buffer[] = [];
  for await (const piece of source) pieces.push(Buffer.from(piece));
  return Buffer.concat(pieces).toString();
}
