/**
 * The SyncTree and symbolic-link contracts on CodeSandboxTree, over the local stand-in of the
 * SDK's `client.fs`.
 */
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { runSyncTreeContract } from '../sync/tree.contract.js';
import { runTreeSymlinkContract } from '../sync/tree-symlinks.contract.js';
import { tempDir } from '../test-support/temp.js';
import { StandInFs } from './codesandbox-stand-in.js';
import { CodeSandboxTree } from './codesandbox-tree.js';

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
