/** The SyncTree contract on a local directory. */
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../test-support/temp.js';
import { LocalTree } from './local-tree.js';
import { runSyncTreeContract } from './tree.contract.js';

runSyncTreeContract('LocalTree', async () => {
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
});
