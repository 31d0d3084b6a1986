/**
 * The SyncTree and symbolic-link contracts on CodeSandboxTree, over the real SDK's `client.fs`
 * talking to a wire-level stand-in (test-support/codesandbox-wire.ts), plus how the tree reads
 * the SDK's code-less errors.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syncOnce } from '@satchel/client/sync/sync.js';
import { afterAll, describe, expect, it } from 'vitest';
import { runSyncTreeContract } from '../sync/tree.contract.js';
import { runTreeSymlinkContract } from '../sync/tree-symlinks.contract.js';
import { CodeSandboxWire } from '../test-support/codesandbox-wire.js';
import { openTemp, tempDir } from '../test-support/temp.js';
import type { CsbSandboxes } from './codesandbox.js';
import { errnoOf, isMissing } from './codesandbox-errors.js';
import { CodeSandboxTree } from './codesandbox-tree.js';

const ROOT = '/project/workspace';
// Shared by the whole file (tempDir would remove it after the first test).
const wireRoot = await mkdtemp(join(tmpdir(), 'satchel-csb-wire-'));
const wire = await new CodeSandboxWire(wireRoot).start();
const { CodeSandbox } = await import('@codesandbox/sdk');
const sandboxes = new CodeSandbox('csb_test', { baseUrl: wire.baseUrl })
  .sandboxes as unknown as CsbSandboxes;
await wire.template('tpl', {});
// A sandbox whose `/` is this machine's: the symlink contract hands the tree absolute paths.
wire.attach('host', '/');
const host = await (await sandboxes.resume('host')).connect();

afterAll(async () => {
  await host.disconnect();
  await wire.close();
  await rm(wireRoot, { recursive: true, force: true });
});

/** A new sandbox forked from the empty template, connected: its id and `client.fs`. */
async function fresh() {
  const sandbox = await sandboxes.create({ id: 'tpl' });
  const client = await sandbox.connect();
  return { id: sandbox.id, fs: client.fs };
}

runSyncTreeContract('CodeSandboxTree (real SDK, wire stand-in)', async () => {
  const { id, fs } = await fresh();
  return {
    tree: new CodeSandboxTree(fs, ROOT, id),
    absent: new CodeSandboxTree(fs, '/project/not-there', id),
    symlink: (target, path) => symlink(target, wire.treePath(id, path)),
    mkdir: async (path) => {
      await mkdir(wire.treePath(id, path), { recursive: true });
    },
    // The SDK cannot set mtimes (codesandbox-tree.ts).
    setsMtime: false,
    cleanup: async () => undefined,
  };
});

runTreeSymlinkContract(
  'CodeSandboxTree (real SDK, wire stand-in)',
  (base) => new CodeSandboxTree(host.fs, join(base, 'tree'), 'host'),
);

describe('CodeSandboxTree on a VM that fails the way the SDK does', () => {
  it('reads only an ENOENT errno as "missing": a failed stat during a scan stops the sync, nothing deleted', async () => {
    const { satchel } = await openTemp();
    const { id, fs } = await fresh();
    for (let i = 0; i < 10; i++) await writeFile(wire.treePath(id, `f${i}.txt`), `${i}`);
    const sync = () =>
      syncOnce({ satchel, workspace: 'ws', tree: new CodeSandboxTree(fs, ROOT, id) });
    expect(await sync()).toMatchObject({ uploaded: 10 });

    // An error without errno, as the SDK reports a timeout or a refused call: "null: …".
    wire.inject('fs/stat', { kind: 'error', message: 'Pitcher message fs/stat timed out' });
    await expect(sync()).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('timed out'),
    });
    expect((await satchel.list('ws', { recursive: true })).items).toHaveLength(10);

    expect(errnoOf(new Error('2: no such file or directory'))).toBe(2);
    expect(isMissing(new Error('2: no such file or directory'))).toBe(true);
    expect(isMissing(new Error('null: ENOENT in a message is not an errno'))).toBe(false);
    expect(isMissing(new Error('Pitcher message fs/stat has been disposed'))).toBe(false);
  });

  it('refuses a file above the size cap with TOO_LARGE, in both directions', async () => {
    const { id, fs } = await fresh();
    await writeFile(wire.treePath(id, 'big.bin'), Buffer.alloc(2048));
    const tree = new CodeSandboxTree(fs, ROOT, id, { maxFileBytes: 1024 });
    await expect(collectText(tree.read('big.bin'))).rejects.toMatchObject({ code: 'TOO_LARGE' });
    const upload = (async function* () {
      yield Buffer.alloc(2048);
    })();
    await expect(tree.write('up.bin', upload)).rejects.toMatchObject({
      code: 'TOO_LARGE',
      message: expect.stringContaining('1024 bytes'),
    });
    expect(await tree.stat('up.bin')).toBeNull();
  });
});

describe('CodeSandboxTree where the VM behaves one way or the other (unknowns)', () => {
  it.each([true, false])(
    'replaces files whether or not rename clobbers (%s), and mkdir of an existing folder may fail',
    async (clobbers) => {
      const other = await new CodeSandboxWire(await tempDir('satchel-csb-wire-'), {
        renameClobbers: clobbers,
        mkdirExistingFails: !clobbers,
      }).start();
      try {
        await other.template('tpl', {});
        const sdk = new CodeSandbox('csb_test', { baseUrl: other.baseUrl })
          .sandboxes as unknown as CsbSandboxes;
        const sandbox = await sdk.create({ id: 'tpl' });
        const client = await sandbox.connect();
        const tree = new CodeSandboxTree(client.fs, ROOT, sandbox.id);
        const once = async function* (text: string) {
          yield Buffer.from(text);
        };
        await tree.write('d/a.txt', once('one'));
        await tree.write('d/a.txt', once('two, longer'));
        await tree.write('d/b.txt', once('b'));
        expect(await collectText(tree.read('d/a.txt'))).toBe('two, longer');
        const left = (await tree.list(() => false)).map((e) => e.path).sort();
        expect(left).toEqual(['d/a.txt', 'd/b.txt']);
        await client.disconnect();
      } finally {
        await other.close();
      }
    },
  );
});

async function collectText(source: AsyncIterable<Uint8Array>): Promise<string> {
  const pieces: Buffer[] = [];
  for await (const piece of source) pieces.push(Buffer.from(piece));
  return Buffer.concat(pieces).toString();
}
