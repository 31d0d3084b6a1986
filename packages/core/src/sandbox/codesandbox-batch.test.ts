/**
 * CodeSandboxTree's write groups (codesandbox-write-group.ts) over the real SDK's
 * `fs.batchWrite`, which the wire stand-in answers with a real `unzip`: the write-group
 * contract where rename replaces files and where it does not, a root below the workspace path,
 * and a sync that rehydrates a sandbox in a handful of calls instead of several per file.
 */
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syncOnce } from '@satchel/client/sync/sync.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { SyncTreeFixture } from '../sync/tree.contract.js';
import { runTreeWriteGroupContract } from '../sync/tree-groups.contract.js';
import { withoutBatchWrite } from '../test-support/codesandbox-plain-fs.js';
import { CodeSandboxWire } from '../test-support/codesandbox-wire.js';
import { openTemp } from '../test-support/temp.js';
import type { CsbSandboxes } from './codesandbox.js';
import { CodeSandboxTree, type CodeSandboxTreeOptions } from './codesandbox-tree.js';

const WORKSPACE = '/project/workspace';
const { CodeSandbox } = await import('@codesandbox/sdk');

async function startWire(options: ConstructorParameters<typeof CodeSandboxWire>[1] = {}) {
  const root = await mkdtemp(join(tmpdir(), 'satchel-csb-batch-'));
  const wire = await new CodeSandboxWire(root, options).start();
  await wire.template('tpl', {});
  const sandboxes = new CodeSandbox('csb_test', { baseUrl: wire.baseUrl })
    .sandboxes as unknown as CsbSandboxes;
  return { root, wire, sandboxes };
}

// Shared by the whole file: one where rename replaces files, one where it does not.
const clobbering = await startWire();
const careful = await startWire({ renameClobbers: false, mkdirExistingFails: false });

afterAll(async () => {
  for (const { wire, root } of [clobbering, careful]) {
    await wire.close();
    await rm(root, { recursive: true, force: true });
  }
});

/** A fresh sandbox forked from the empty template: its tree at `root` and the tree's fixture. */
async function fresh(
  on = clobbering,
  root = WORKSPACE,
  options: CodeSandboxTreeOptions = {},
  batch = true,
): Promise<{ id: string; tree: CodeSandboxTree; fixture: SyncTreeFixture }> {
  const sandbox = await on.sandboxes.create({ id: 'tpl' });
  const client = await sandbox.connect();
  const id = sandbox.id;
  const local = (path: string) => join(on.wire.vmRoot(id), root, path);
  await mkdir(local(''), { recursive: true });
  const fs = batch ? client.fs : withoutBatchWrite(client.fs);
  const tree = new CodeSandboxTree(fs, root, id, { workspacePath: WORKSPACE, ...options });
  const fixture: SyncTreeFixture = {
    tree,
    absent: new CodeSandboxTree(client.fs, '/project/not-there', id),
    symlink: (target, path) => symlink(target, local(path)),
    mkdir: async (path) => {
      await mkdir(local(path), { recursive: true });
    },
    setsMtime: false,
    cleanup: () => client.disconnect(),
  };
  return { id, tree, fixture };
}

runTreeWriteGroupContract('CodeSandboxTree (batchWrite, rename replaces)', async () => {
  return (await fresh()).fixture;
});
runTreeWriteGroupContract('CodeSandboxTree (batchWrite, rename does not replace)', async () => {
  return (await fresh(careful)).fixture;
});
runTreeWriteGroupContract('CodeSandboxTree (batchWrite, root below the workspace)', async () => {
  return (await fresh(clobbering, `${WORKSPACE}/apps/web`)).fixture;
});

/** 240 files in 12 folders, written to workspace `ws` of a new store. */
async function workspaceOf240() {
  const { satchel } = await openTemp();
  const files = new Map<string, string>();
  for (let i = 0; i < 240; i++) files.set(`dir-${i % 12}/file-${i}.txt`, `content of ${i}\n`);
  for (const [path, text] of files) await satchel.writeFile('ws', `/${path}`, text);
  return { satchel, files };
}

/** Calls the stand-in answered, by method, while `run` ran. */
async function callsDuring(wire: CodeSandboxWire, run: () => Promise<unknown>) {
  const before = new Map(wire.methods);
  await run();
  const count = (method: string) => (wire.methods.get(method) ?? 0) - (before.get(method) ?? 0);
  return { writes: count('fs/writeFile'), shells: count('shell/create'), all: count };
}

describe('CodeSandboxTree rehydrating a sandbox through batchWrite', () => {
  it('writes 240 files in one zip per group instead of a write per file, byte for byte', async () => {
    const { satchel, files } = await workspaceOf240();
    const { id, tree, fixture } = await fresh();
    const sync = () => syncOnce({ satchel, workspace: 'ws', tree });
    let report: Awaited<ReturnType<typeof sync>> | undefined;
    const calls = await callsDuring(clobbering.wire, async () => {
      report = await sync();
    });
    expect(report).toMatchObject({ downloaded: 240, skipped: [] });
    for (const [path, text] of files) {
      expect(await readFile(clobbering.wire.treePath(id, path), 'utf8')).toBe(text);
    }
    // One zip and one shell per group (512 files), plus the probe and the sync state's files.
    expect(calls.shells).toBe(1);
    expect(calls.writes).toBeLessThan(12);
    // Nothing staged is left, and the next sync finds nothing to do.
    expect(await readdir(clobbering.wire.treePath(id, '.satchel-sync/tmp'))).toEqual([]);
    expect(await sync()).toMatchObject({ downloaded: 0, uploaded: 0, deletedRemote: 0, retry: 0 });
    await fixture.cleanup();

    // The same rehydrate where the SDK has no batchWrite: a write per file.
    const plain = await fresh(clobbering, WORKSPACE, {}, false);
    const perFile = await callsDuring(clobbering.wire, () =>
      syncOnce({ satchel, workspace: 'ws', tree: plain.tree }),
    );
    expect(perFile.shells).toBe(0);
    expect(perFile.writes).toBeGreaterThanOrEqual(240);
    await plain.fixture.cleanup();
  });

  it('writes one by one, and stops batching, when the VM cannot unzip', async () => {
    const { satchel, files } = await workspaceOf240();
    const { id, tree, fixture } = await fresh();
    clobbering.wire.inject('shell/create', { kind: 'error', message: 'unzip: command not found' });
    const report = await syncOnce({ satchel, workspace: 'ws', tree });
    expect(report).toMatchObject({ downloaded: 240, skipped: [] });
    for (const [path, text] of files) {
      expect(await readFile(clobbering.wire.treePath(id, path), 'utf8')).toBe(text);
    }
    await satchel.writeFile('ws', '/later.txt', 'later');
    const calls = await callsDuring(clobbering.wire, () =>
      syncOnce({ satchel, workspace: 'ws', tree }),
    );
    expect(calls.shells).toBe(0);
    expect(await readFile(clobbering.wire.treePath(id, 'later.txt'), 'utf8')).toBe('later');
    expect(await readdir(clobbering.wire.treePath(id, '.satchel-sync/tmp'))).toEqual([]);
    await fixture.cleanup();
  });

  it('sweeps what the temp folder held for more than a day, and keeps what is newer', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/a.txt', 'a');
    const { id, tree, fixture } = await fresh();
    const tmp = (path: string) => clobbering.wire.treePath(id, `.satchel-sync/tmp/${path}`);
    await mkdir(tmp('g-old'), { recursive: true });
    await mkdir(tmp('g-new'), { recursive: true });
    await writeFile(tmp('g-old/0'), 'left by a batchWrite that came too late');
    await writeFile(tmp('g-new/0'), 'another sync, under way');
    await writeFile(tmp('old-write'), 'left by a crash');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    for (const path of ['g-old/0', 'g-old', 'old-write']) {
      await utimes(tmp(path), twoDaysAgo, twoDaysAgo);
    }
    expect(await syncOnce({ satchel, workspace: 'ws', tree })).toMatchObject({ downloaded: 1 });
    expect((await readdir(tmp(''))).sort()).toEqual(['g-new']);
    expect(await readFile(tmp('g-new/0'), 'utf8')).toBe('another sync, under way');
    await fixture.cleanup();
  });

  it('reports a file above the size cap as too large and writes the rest of its group', async () => {
    const { satchel } = await openTemp();
    await satchel.writeFile('ws', '/small.txt', 'small');
    await satchel.writeFile('ws', '/big.bin', Buffer.alloc(4096, 1));
    const { id, tree, fixture } = await fresh(clobbering, WORKSPACE, { maxFileBytes: 1024 });
    const report = await syncOnce({ satchel, workspace: 'ws', tree });
    expect(report.skipped).toEqual([
      expect.objectContaining({ path: '/big.bin', reason: 'too_large' }),
    ]);
    expect(await readFile(clobbering.wire.treePath(id, 'small.txt'), 'utf8')).toBe('small');
    expect(await tree.stat('big.bin')).toBeNull();
    await fixture.cleanup();
  });
});
