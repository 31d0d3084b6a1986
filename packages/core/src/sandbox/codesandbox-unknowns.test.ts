/**
 * What the real VM does is unknown for some calls (docs/sandboxes.md has a probe script to
 * settle it); CodeSandboxTree must work either way. The SyncTree and symbolic-link contracts
 * run here on a stand-in that answers the other way from codesandbox-tree.test.ts (`fs/stat`
 * follows links, mtimes in seconds), and the watch is checked with every path style the VM
 * might use, with and without `excludes` honoured. Rename clobbering and mkdir of an existing
 * folder are checked both ways in codesandbox-tree.test.ts.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSyncTreeContract } from '../sync/tree.contract.js';
import { runTreeSymlinkContract } from '../sync/tree-symlinks.contract.js';
import { CodeSandboxWire, type WireOptions } from '../test-support/codesandbox-wire.js';
import { tempDir } from '../test-support/temp.js';
import type { CsbSandboxes } from './codesandbox.js';
import { CodeSandboxTree } from './codesandbox-tree.js';

const ROOT = '/project/workspace';
const { CodeSandbox } = await import('@codesandbox/sdk');

async function connectTo(options: WireOptions, root: string) {
  const wire = await new CodeSandboxWire(root, options).start();
  const sandboxes = new CodeSandbox('csb_test', { baseUrl: wire.baseUrl })
    .sandboxes as unknown as CsbSandboxes;
  await wire.template('tpl', {});
  return { wire, sandboxes };
}

const wireRoot = await mkdtemp(join(tmpdir(), 'satchel-csb-other-'));
const other = await connectTo({ statFollowsLinks: true, mtimeUnit: 's' }, wireRoot);
other.wire.attach('host', '/');
const host = await (await other.sandboxes.resume('host')).connect();

afterAll(async () => {
  await host.disconnect();
  await other.wire.close();
  await rm(wireRoot, { recursive: true, force: true });
});

runSyncTreeContract('CodeSandboxTree (stat follows links, mtimes in seconds)', async () => {
  const sandbox = await other.sandboxes.create({ id: 'tpl' });
  const { fs } = await sandbox.connect();
  const { wire } = other;
  return {
    tree: new CodeSandboxTree(fs, ROOT, sandbox.id),
    absent: new CodeSandboxTree(fs, '/project/not-there', sandbox.id),
    symlink: (target, path) => symlink(target, wire.treePath(sandbox.id, path)),
    mkdir: async (path) => {
      await mkdir(wire.treePath(sandbox.id, path), { recursive: true });
    },
    setsMtime: false,
    cleanup: async () => undefined,
  };
});

runTreeSymlinkContract(
  'CodeSandboxTree (stat follows links, mtimes in seconds)',
  (base) => new CodeSandboxTree(host.fs, join(base, 'tree'), 'host'),
);

describe('CodeSandboxTree mtimes in seconds', () => {
  it('reads them as ms', async () => {
    const sandbox = await other.sandboxes.create({ id: 'tpl' });
    const { fs } = await sandbox.connect();
    const tree = new CodeSandboxTree(fs, ROOT, sandbox.id);
    await writeFile(other.wire.treePath(sandbox.id, 'a.txt'), 'a');
    const entry = await tree.stat('a.txt');
    expect(Math.abs((entry?.mtimeMs ?? 0) - Date.now())).toBeLessThan(600_000);
  });
});

describe('CodeSandboxTree watch, whatever paths the VM reports', () => {
  const styles = ['absolute', 'relative', 'sandbox'] as const;
  it.each(styles.flatMap((style) => [true, false].map((excludes) => [style, excludes] as const)))(
    'paths %s, excludes honoured: %s',
    async (watchPaths, watchExcludes) => {
      const { wire, sandboxes } = await connectTo(
        { watchPaths, watchExcludes },
        await tempDir('satchel-csb-watch-'),
      );
      try {
        const sandbox = await sandboxes.create({ id: 'tpl' });
        const client = await sandbox.connect();
        const tree = new CodeSandboxTree(client.fs, ROOT, sandbox.id);
        const seen: string[] = [];
        await mkdir(wire.treePath(sandbox.id, 'd'), { recursive: true });
        await mkdir(wire.treePath(sandbox.id, '.satchel-sync'), { recursive: true });
        const watcher = await tree.watch((paths) => seen.push(...paths));
        await writeFile(wire.treePath(sandbox.id, '.satchel-sync/noise'), 'x');
        await writeFile(wire.treePath(sandbox.id, 'd/a.txt'), 'a');
        const until = Date.now() + 10_000;
        while (!seen.includes('d/a.txt') && Date.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        await watcher.close();
        await client.disconnect();
        expect(seen).toContain('d/a.txt');
        expect(seen.filter((p) => p.startsWith('.satchel-sync'))).toEqual([]);
      } finally {
        await wire.close();
      }
    },
  );
});
