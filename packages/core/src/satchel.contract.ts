/**
 * The Satchel contract: the behaviour every implementation of the Satchel interface must show,
 * run once per implementation (the engine here in core; RemoteSatchel over `app.request` and
 * over a live server in apps/api, through `@satchel/core/testing`): the same calls give the
 * same results and fail with the same codes, messages and data. Workspaces and files are here;
 * batches, the tree and history in satchel.contract-tree.ts; locks, access, audit, the change
 * feed and refusals in satchel.contract-access.ts; webhooks in satchel.contract-webhooks.ts;
 * resumable uploads and signed URLs in satchel.contract-uploads.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { SatchelError } from '@satchel/client/errors.js';
import type { Satchel } from '@satchel/client/operations/satchel.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessBehaviour } from './satchel.contract-access.js';
import { forkBehaviour } from './satchel.contract-forks.js';
import { treeBehaviour } from './satchel.contract-tree.js';
import { uploadBehaviour } from './satchel.contract-uploads.js';
import { webhookBehaviour } from './satchel.contract-webhooks.js';

/** One implementation on a fresh data directory, reached through API keys. */
export interface SatchelFixture {
  /** The data directory's admin key. */
  readonly adminKey: string;
  /** The implementation acting as the principal of `key`; a bad key fails with UNAUTHENTICATED. */
  connect(key: string): Promise<Satchel>;
  close(): Promise<void>;
}

/** What the tests share: the admin, one principal per role, and a workspace factory. */
export interface World {
  readonly admin: Satchel;
  /** `ed`, `vi`, `st`: made editor and viewer of every workspace `workspace()` creates. */
  readonly editor: Satchel;
  readonly viewer: Satchel;
  readonly stranger: Satchel;
  readonly keys: { readonly editor: string; readonly viewer: string; readonly stranger: string };
  readonly fixture: SatchelFixture;
  /** Creates workspace `name` with `ed` as editor and `vi` as viewer. */
  workspace(name: string): Promise<string>;
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export async function bytesOf(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

const MiB = 1024 * 1024;

/** `size` bytes in 1 MiB pieces of one random block, each piece stamped with its offset. */
function generated(block: Buffer, size: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) {
        this.push(null);
        return;
      }
      const piece = Buffer.from(block.subarray(0, Math.min(block.length, size - sent)));
      piece.writeUInt32BE(sent, 0);
      sent += piece.length;
      this.push(piece);
    },
  });
}

/**
 * Registers the suite as `describe("Satchel contract: <name>")`. `make` opens the
 * implementation on a fresh data directory (once for the suite; every test works in workspaces
 * of its own), so a second backend or client only adds a test file that calls this.
 */
export function runSatchelContract(name: string, make: () => Promise<SatchelFixture>): void {
  describe(`Satchel contract: ${name}`, () => {
    let world: World;
    let fixture: SatchelFixture | undefined;
    const w = (): World => world;

    beforeAll(async () => {
      fixture = await make();
      const admin = await fixture.connect(fixture.adminKey);
      const keyFor = async (principal: string) => {
        await admin.createPrincipal({ name: principal, kind: 'agent' });
        return (await admin.createKey({ principal })).key;
      };
      const keys = {
        editor: await keyFor('ed'),
        viewer: await keyFor('vi'),
        stranger: await keyFor('st'),
      };
      world = {
        admin,
        editor: await fixture.connect(keys.editor),
        viewer: await fixture.connect(keys.viewer),
        stranger: await fixture.connect(keys.stranger),
        keys,
        fixture,
        workspace: async (ws) => {
          await admin.createWorkspace(ws);
          await admin.setMember(ws, 'ed', 'editor');
          await admin.setMember(ws, 'vi', 'viewer');
          return ws;
        },
      };
    });
    afterAll(async () => {
      await fixture?.close();
    });

    fileBehaviour(w);
    treeBehaviour(w);
    forkBehaviour(w);
    accessBehaviour(w);
    webhookBehaviour(w);
    uploadBehaviour(w);
  });
}

function fileBehaviour(w: () => World): void {
  it('creates, lists in pages, inspects and deletes workspaces', async () => {
    const { admin } = w();
    const created = await admin.createWorkspace('ws-a');
    expect(created).toMatchObject({ name: 'ws-a', seq: 0 });
    await admin.createWorkspace('ws-b');
    await admin.createWorkspace('ws-c');
    await expect(admin.createWorkspace('ws-a')).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(admin.createWorkspace('Not Valid!')).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });

    const first = await admin.listWorkspaces({ limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const names = first.items.map((ws) => ws.name);
    for (let cursor = first.nextCursor; cursor !== null; ) {
      const page = await admin.listWorkspaces({ cursor, limit: 2 });
      names.push(...page.items.map((ws) => ws.name));
      cursor = page.nextCursor;
    }
    expect(names.filter((n) => n.startsWith('ws-'))).toEqual(['ws-a', 'ws-b', 'ws-c']);

    // Writing /d/f.txt makes /d too: two versions.
    await admin.writeFile('ws-b', '/d/f.txt', 'four');
    expect(await admin.getWorkspace('ws-b')).toMatchObject({
      name: 'ws-b',
      seq: 1,
      files: 1,
      directories: 1,
      bytes: 4,
      versions: 2,
    });
    await admin.deleteWorkspace('ws-b');
    await expect(admin.getWorkspace('ws-b')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'workspace ws-b not found',
      data: { workspace: 'ws-b' },
    });
  });

  it('writes and reads text and binary files, with stat and append', async () => {
    const { admin } = w();
    const ws = await w().workspace('files');
    const text = 'héllo\nwörld\n';
    const info = await admin.writeFile(ws, 'notes/a.txt', text, { session: 'run-1' });
    expect(info).toMatchObject({
      path: '/notes/a.txt',
      type: 'file',
      size: Buffer.byteLength(text),
      hash: sha256(Buffer.from(text)),
      author: 'admin',
      session: 'run-1',
    });
    const read = await admin.readFile(ws, '/notes/a.txt');
    expect((await bytesOf(read.body)).toString('utf8')).toBe(text);
    expect(read.range).toEqual({ start: 0, end: info.size });
    expect(read.info).toMatchObject({ path: info.path, seq: info.seq, hash: info.hash });
    expect(await admin.stat(ws, '/notes/a.txt')).toMatchObject({
      path: info.path,
      type: 'file',
      seq: info.seq,
      size: info.size,
      hash: info.hash,
      contentType: info.contentType,
    });
    expect(await admin.stat(ws, '/notes')).toMatchObject({
      type: 'directory',
      size: 0,
      hash: null,
    });

    const binary = Buffer.from([0, 1, 2, 0, 255, 254, 0, 10, 13, 0]);
    const bin = await admin.writeFile(ws, '/b.bin', new Uint8Array(binary));
    expect(bin).toMatchObject({ size: binary.length, hash: sha256(binary) });
    expect(await bytesOf((await admin.readFile(ws, '/b.bin')).body)).toEqual(binary);
    await expect(admin.readText(ws, '/b.bin')).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: '/b.bin is a binary file; read it as bytes instead',
    });

    const appended = await admin.appendFile(ws, '/notes/a.txt', 'third\n');
    expect(appended).toMatchObject({ size: Buffer.byteLength(`${text}third\n`) });
    expect(await admin.readText(ws, '/notes/a.txt', { tail: 1 })).toMatchObject({
      text: 'third\n',
      lineStart: 3,
      lineEnd: 3,
      totalLines: 3,
      truncated: false,
    });
    expect(await admin.readText(ws, '/notes/a.txt', { head: 1 })).toMatchObject({
      text: 'héllo\n',
      totalLines: null,
      truncated: true,
    });
    expect(await admin.readText(ws, '/notes/a.txt', { offset: 2, limit: 1 })).toMatchObject({
      text: 'wörld\n',
      lineStart: 2,
    });
    expect((await admin.readText(ws, '/notes/a.txt', { version: info.seq })).text).toBe(text);
    await expect(admin.readText(ws, '/notes/a.txt', { head: 1, tail: 1 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });

    await expect(admin.readFile(ws, '/missing.txt')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'file /missing.txt not found',
      data: { path: '/missing.txt' },
    });
    await expect(admin.stat(ws, '/missing.txt')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'file /missing.txt not found',
    });
    await expect(admin.readFile(ws, '/notes')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(admin.writeFile(ws, '/a/../b.txt', 'x')).rejects.toMatchObject({
      code: 'INVALID_PATH',
    });
    await expect(admin.readFile('no-such-ws', '/a')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('streams 20 MB both ways with a matching hash, and reads byte ranges', async () => {
    const { admin } = w();
    const ws = await w().workspace('stream');
    const size = 20 * MiB;
    const block = randomBytes(MiB);
    const expected = await bytesOf(generated(block, size));
    const info = await admin.writeFile(ws, '/big.bin', generated(block, size));
    expect(info).toMatchObject({ size, hash: sha256(expected) });

    const whole = await admin.readFile(ws, '/big.bin');
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of whole.body as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
    }
    expect({ bytes, hash: hash.digest('hex') }).toEqual({ bytes: size, hash: info.hash });

    const mid = await admin.readFile(ws, '/big.bin', { range: { start: MiB - 3, end: MiB + 5 } });
    expect(mid.range).toEqual({ start: MiB - 3, end: MiB + 5 });
    expect(mid.info).toMatchObject({ size, seq: info.seq });
    expect(await bytesOf(mid.body)).toEqual(expected.subarray(MiB - 3, MiB + 5));
    const tail = await admin.readFile(ws, '/big.bin', { range: { start: size - 10 } });
    expect(tail.range).toEqual({ start: size - 10, end: size });
    expect(await bytesOf(tail.body)).toEqual(expected.subarray(size - 10));
    const clamped = await admin.readFile(ws, '/big.bin', { range: { start: 5, end: size + 99 } });
    expect(clamped.range).toEqual({ start: 5, end: size });
    await bytesOf(clamped.body);
    const empty = await admin.readFile(ws, '/big.bin', { range: { start: 7, end: 7 } });
    expect(empty.range).toEqual({ start: 7, end: 7 });
    expect(await bytesOf(empty.body)).toHaveLength(0);
    await expect(
      admin.readFile(ws, '/big.bin', { range: { start: size + 1 } }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });

    // An async generator of strings and bytes is content too.
    async function* parts() {
      yield 'abc';
      yield new Uint8Array([100, 101]);
    }
    expect(await admin.writeFile(ws, '/parts.txt', parts())).toMatchObject({ size: 5 });
    const none = await admin.writeFile(ws, '/empty.txt', '');
    expect(none.size).toBe(0);
    const emptyRead = await admin.readFile(ws, '/empty.txt', { range: { start: 0, end: 10 } });
    expect(emptyRead.range).toEqual({ start: 0, end: 0 });
    expect(await bytesOf(emptyRead.body)).toHaveLength(0);
  });

  it('refuses conditional writes whose condition fails, writing nothing', async () => {
    const { admin } = w();
    const ws = await w().workspace('cond');
    const v1 = await admin.writeFile(ws, '/c.txt', 'one\n', { ifNoneMatch: '*' });
    await expect(
      admin.writeFile(ws, '/c.txt', 'two\n', { ifNoneMatch: '*' }),
    ).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      data: { path: '/c.txt', expected: '*', actual: v1.seq },
    });
    await expect(
      admin.writeFile(ws, '/c.txt', 'two\n', { ifMatch: v1.seq + 100 }),
    ).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      data: { path: '/c.txt', expected: v1.seq + 100, actual: v1.seq },
    });
    await expect(admin.writeFile(ws, '/new.txt', 'x', { ifMatch: 1 })).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    await expect(admin.appendFile(ws, '/c.txt', 'more', { ifMatch: 0 })).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    await expect(admin.remove(ws, '/c.txt', { ifMatch: 0 })).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    await expect(
      admin.editFile(ws, '/c.txt', [{ oldText: 'one', newText: 'uno' }], { ifMatch: 0 }),
    ).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    await expect(admin.move(ws, '/c.txt', '/d.txt', { ifMatch: 0 })).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    await expect(admin.writeFile(ws, '/c.txt', 'x', { ifMatch: -1 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect((await admin.stat(ws, '/c.txt')).seq).toBe(v1.seq);

    const v2 = await admin.writeFile(ws, '/c.txt', 'two\n', { ifMatch: v1.seq });
    expect(v2.seq).toBeGreaterThan(v1.seq);
    expect((await admin.readText(ws, '/c.txt')).text).toBe('two\n');
  });

  it('reads carry the whole FileInfo: author, session, exact time, stored path', async () => {
    const { editor } = w();
    const ws = await w().workspace('info');
    const label = 'ünï run #7 ✓ 50% done';
    const written = await editor.writeFile(ws, '/d/café ü.txt', 'x\n', { session: label });
    expect(written).toMatchObject({ author: 'ed', session: label, path: '/d/café ü.txt' });
    expect(await editor.stat(ws, '/d/café ü.txt')).toEqual(written);
    const read = await editor.readFile(ws, '/d/café ü.txt');
    expect(read.info).toEqual(written);
    read.body.destroy();
    const ranged = await editor.readFile(ws, '/d/café ü.txt', { range: { start: 1 } });
    expect(ranged.info).toEqual(written);
    ranged.body.destroy();
    expect((await editor.readText(ws, '/d/café ü.txt')).info).toEqual(written);
    const dir = await editor.stat(ws, '/d');
    expect((await editor.list(ws)).items.find((i) => i.path === '/d')).toEqual(dir);
    const versions = await editor.listVersions(ws, '/d/café ü.txt');
    expect(versions.items[0]).toMatchObject({ session: label });
  });

  it('checks stored content with fsck (admins only)', async () => {
    expect(await w().admin.fsck()).toMatchObject({ ok: true, corrupt: [], missing: [] });
    await expect(w().editor.fsck()).rejects.toMatchObject({
      code: 'FORBIDDEN',
      data: { reason: 'not_admin' },
    });
  });

  it('errors are SatchelErrors', async () => {
    const error = await w()
      .admin.getWorkspace('nothing-here')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SatchelError);
  });
}
