/**
 * CodeSandboxTree and sync when the sandbox is slow, silent, disconnected or holds files too
 * large to move: the real SDK against the wire-level stand-in (test-support/codesandbox-wire.ts).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { syncOnce } from '@satchel/client/sync/sync.js';
import { watch } from '@satchel/client/sync/watch.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CodeSandboxWire, type WireOptions } from '../test-support/codesandbox-wire.js';
import { catFile, openTemp, tempDir } from '../test-support/temp.js';
import type { CsbClient, CsbSandboxes } from './codesandbox.js';
import { CodeSandboxTree, type CodeSandboxTreeOptions } from './codesandbox-tree.js';

const ROOT = '/project/workspace';
const open: Array<() => Promise<void>> = [];

afterEach(async () => {
  while (open.length > 0) await open.pop()?.();
});

/** A stand-in with `options`, and one sandbox forked from its empty template, connected. */
async function sandbox(options: WireOptions = {}, tree: CodeSandboxTreeOptions = {}) {
  const wire = await new CodeSandboxWire(await tempDir('satchel-csb-'), options).start();
  open.push(() => wire.close());
  await wire.template('tpl', {});
  const { CodeSandbox } = await import('@codesandbox/sdk');
  const sdk = new CodeSandbox('csb_test', { baseUrl: wire.baseUrl })
    .sandboxes as unknown as CsbSandboxes;
  const started = await sdk.create({ id: 'tpl' });
  const client: CsbClient = await started.connect();
  // Not `disconnect`: it waits for calls the stand-in was told never to answer.
  open.push(async () => client.dispose());
  const id = started.id;
  return {
    wire,
    id,
    client,
    tree: new CodeSandboxTree(client.fs, ROOT, id, { connection: client, ...tree }),
    /** Writes a file into the sandbox's tree behind sync's back. */
    put: async (path: string, content: string | Buffer) => {
      await mkdir(wire.treePath(id, path.split('/').slice(0, -1).join('/')), { recursive: true });
      await writeFile(wire.treePath(id, path), content);
    },
  };
}

async function workspaceFiles(satchel: Awaited<ReturnType<typeof openTemp>>['satchel']) {
  const page = await satchel.list('ws', { recursive: true, limit: 1000 });
  return page.items
    .filter((i) => i.type === 'file')
    .map((i) => i.path)
    .sort();
}

async function eventually(check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a sandbox that does not answer', () => {
  it('a scan whose readdir gets no answer stops within callTimeoutMs, and nothing is deleted', async () => {
    const { satchel } = await openTemp();
    const { wire, tree, put } = await sandbox({}, { callTimeoutMs: 500 });
    for (let i = 0; i < 5; i++) {
      await put(`top${i}.txt`, `${i}`);
      await put(`d/in${i}.txt`, `${i}`);
    }
    expect(await syncOnce({ satchel, workspace: 'ws', tree })).toMatchObject({ uploaded: 10 });

    // The folder's listing never comes back (the SDK itself would wait 90 s).
    wire.inject('fs/readdir', { kind: 'hang' }, `${ROOT}/d`);
    await expect(syncOnce({ satchel, workspace: 'ws', tree })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining(`did not answer readdir ${ROOT}/d within 500 ms`),
    });
    expect(await workspaceFiles(satchel)).toHaveLength(10);
    // The next cycle, answered, finds everything in step.
    expect(await syncOnce({ satchel, workspace: 'ws', tree })).toMatchObject({
      uploaded: 0,
      deletedRemote: 0,
      unchanged: 10,
    });
  });

  it('lists a slow sandbox with at most 16 calls in flight', async () => {
    const { wire, tree, put } = await sandbox({ latencyMs: { 'fs/readdir': 20, 'fs/stat': 5 } });
    for (let i = 0; i < 40; i++) await put(`dir${i}/a/f.txt`, `${i}`);
    wire.maxInFlight = 0;
    const entries = await tree.list(() => false);
    expect(entries).toHaveLength(40);
    expect(wire.maxInFlight).toBeGreaterThan(1);
    expect(wire.maxInFlight).toBeLessThanOrEqual(16);
  });

  it('a call lost to a dropped connection stops the cycle within callTimeoutMs; the next one, reconnected, completes', async () => {
    const { satchel } = await openTemp();
    const { wire, tree, put } = await sandbox({}, { callTimeoutMs: 1000 });
    for (let i = 0; i < 6; i++) await put(`f${i}.txt`, `${i}`);
    expect(await syncOnce({ satchel, workspace: 'ws', tree })).toMatchObject({ uploaded: 6 });
    for (let i = 0; i < 3; i++) await put(`f${i}.txt`, `changed ${i}`);
    // The SDK reconnects by itself and sends the call again, but no longer waits for its
    // answer: without a bound of our own it would fail only after the SDK's 90 s.
    wire.inject('fs/stat', { kind: 'disconnect' });
    await expect(syncOnce({ satchel, workspace: 'ws', tree })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    expect(await workspaceFiles(satchel)).toHaveLength(6);
    expect(await syncOnce({ satchel, workspace: 'ws', tree })).toMatchObject({
      uploaded: 3,
      deletedRemote: 0,
    });
    expect(wire.calls.filter((c) => c.startsWith('start'))).toHaveLength(2);
  });
});

describe('watching a sandbox', () => {
  it('follows adds, changes and removals, and watches again after the SDK reconnects', async () => {
    const { satchel } = await openTemp();
    const { wire, id, tree, put } = await sandbox({}, { callTimeoutMs: 2000 });
    const controller = new AbortController();
    let fullCycles = 0;
    let ready = false;
    const errors: unknown[] = [];
    const running = watch({
      satchel,
      workspace: 'ws',
      tree,
      signal: controller.signal,
      debounceMs: 20,
      fullEveryMs: 3_600_000,
      waitSeconds: 1,
      onReady: () => {
        ready = true;
      },
      onCycle: (_report, full) => {
        if (full) fullCycles++;
      },
      onError: (error) => errors.push(error),
    });
    try {
      await eventually(() => ready);
      await put('a.txt', 'one');
      await put('gone.txt', 'x');
      await eventually(async () => (await workspaceFiles(satchel)).length === 2);
      await put('a.txt', 'two, changed');
      await rm(wire.treePath(id, 'gone.txt'));
      await eventually(async () => (await workspaceFiles(satchel)).join() === '/a.txt');
      await eventually(
        async () => (await catFile(satchel, '/a.txt')).toString() === 'two, changed',
      );

      // The network drops: the SDK reconnects by itself; the VM forgot the watch.
      const before = fullCycles;
      wire.dropConnections(id);
      await eventually(() => fullCycles > before);
      await put('after.txt', 'seen through the new watch');
      await eventually(async () => (await workspaceFiles(satchel)).includes('/after.txt'));
      expect(fullCycles).toBe(before + 1);
    } finally {
      controller.abort();
      await running;
    }
  });
});

describe('files too large to move', () => {
  it('reports them, moves the rest, and never takes one for a deletion', async () => {
    const { satchel } = await openTemp();
    const { tree, put } = await sandbox({}, { maxFileBytes: 1024 });
    await put('small.txt', 'small');
    await put('grows.bin', Buffer.alloc(100));
    await put('big.bin', Buffer.alloc(2048));
    const first = await syncOnce({ satchel, workspace: 'ws', tree });
    expect(first).toMatchObject({ uploaded: 2 });
    expect(first.skipped).toContainEqual(
      expect.objectContaining({ path: 'big.bin', reason: 'too_large' }),
    );

    // A synced file that grows past the cap stays in the workspace as it was.
    await put('grows.bin', Buffer.alloc(4096));
    await satchel.writeFile('ws', '/huge-in-workspace.bin', Buffer.alloc(5000));
    const second = await syncOnce({ satchel, workspace: 'ws', tree });
    expect(second).toMatchObject({ deletedRemote: 0, downloaded: 0 });
    expect(second.skipped.map((s) => [s.path, s.reason])).toEqual(
      expect.arrayContaining([
        ['grows.bin', 'too_large'],
        ['/huge-in-workspace.bin', 'too_large'],
      ]),
    );
    expect(await workspaceFiles(satchel)).toEqual([
      '/grows.bin',
      '/huge-in-workspace.bin',
      '/small.txt',
    ]);
    expect((await catFile(satchel, '/grows.bin')).length).toBe(100);
  });
});
