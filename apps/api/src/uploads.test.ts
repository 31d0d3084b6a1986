/**
 * Resumable uploads through a real listening server: an upload cut off mid-body resumes from
 * the server's offset (a new client, no local state) and sends only the bytes still missing; the
 * result is byte-identical. Size: SATCHEL_RESUME_TEST_MB (default 32; the bench uses 200).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LocalTree,
  RemoteSatchel,
  type ResumableSource,
  resumableUpload,
  syncOnce,
} from '@satchel/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, serve } from './serve.js';
import { createHarness, type Harness, problemOf } from './test-support/harness.js';

const MB = 1024 * 1024;
const SIZE = Number(process.env.SATCHEL_RESUME_TEST_MB ?? 32) * MB;

let h: Harness;
let server: RunningServer;

beforeAll(async () => {
  h = await createHarness();
  server = await serve(h.engine, { host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await server.close();
  await h.close();
});

/** Deterministic content: byte i of the file is the same whichever offset it is read from. */
function contentSource(size: number): ResumableSource {
  const block = randomBytes(MB);
  return {
    size,
    async *open(start: number) {
      for (let at = start; at < size; ) {
        const index = Math.floor(at / MB);
        const blockAt = at - index * MB;
        const n = Math.min(MB - blockAt, size - at);
        // Each MiB differs (its index in front), so the file is no repetition of one block.
        const piece = Buffer.from(block);
        piece.writeUInt32BE(index, 0);
        yield piece.subarray(blockAt, blockAt + n);
        at += n;
      }
    },
  };
}

async function hashOf(source: AsyncIterable<Uint8Array>): Promise<string> {
  const hash = createHash('sha256');
  for await (const piece of source) hash.update(piece);
  return hash.digest('hex');
}

/** PATCHes `source` from 0 through node:http and destroys the socket after `cut` bytes. */
function cutOffPatch(id: string, source: ResumableSource, cut: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}/v1/workspaces/demo/uploads/${id}`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${h.keys.editor}`, 'Upload-Offset': '0' },
    });
    req.on('error', () => undefined);
    let sent = 0;
    (async () => {
      for await (const piece of source.open(0)) {
        const take = Math.min(piece.byteLength, cut - sent);
        if (!req.write(piece.subarray(0, take))) {
          await new Promise((r) => req.once('drain', r));
        }
        sent += take;
        if (sent >= cut) break;
      }
      // Give the bytes time to leave, then drop the connection as a crashed client would.
      await new Promise((r) => setTimeout(r, 200));
      req.destroy();
      resolve(sent);
    })().catch(reject);
  });
}

/** Polls the server's offset until it stops moving. */
async function settledOffset(remote: RemoteSatchel, id: string): Promise<number> {
  let last = -1;
  for (let i = 0; i < 100; i++) {
    const { offset } = await remote.getUpload('demo', id);
    if (offset === last && offset > 0) return offset;
    last = offset;
    await new Promise((r) => setTimeout(r, 100));
  }
  return last;
}

describe('resumable uploads', () => {
  it(`resumes a ${SIZE / MB} MB upload cut off at half from the server's offset, sending only the rest`, async () => {
    const source = contentSource(SIZE);
    const sha256 = await hashOf(source.open(0));
    const first = new RemoteSatchel({ url: server.url, token: h.keys.editor });
    const upload = await first.createUpload('demo', '/big.bin', { size: SIZE, sha256 });
    await cutOffPatch(upload.id, source, SIZE / 2);
    const kept = await settledOffset(first, upload.id);
    // Most of what was sent before the cut is kept (the socket's buffers may lose a little).
    expect(kept).toBeGreaterThan(SIZE / 4);
    expect(kept).toBeLessThanOrEqual(SIZE / 2);
    // Nothing is visible before completion.
    expect((await h.request('GET', '/v1/workspaces/demo/files/big.bin')).status).toBe(404);

    // A restarted client: a new RemoteSatchel, no local state; it finds the session by path,
    // size and SHA-256 and sends from the server's offset.
    const restarted = new RemoteSatchel({ url: server.url, token: h.keys.editor });
    let resumedFrom = -1;
    let sent = 0;
    const counting: ResumableSource = {
      size: SIZE,
      async *open(start) {
        for await (const piece of source.open(start)) {
          sent += piece.byteLength;
          yield piece;
        }
      },
    };
    const info = await resumableUpload(restarted, 'demo', '/big.bin', counting, {
      sha256,
      partSize: 4 * MB,
      onResume: (offset) => {
        resumedFrom = offset;
      },
    });
    expect(resumedFrom).toBe(kept);
    expect(sent).toBe(SIZE - kept);
    expect(info).toMatchObject({ path: '/big.bin', size: SIZE, hash: sha256 });
    const res = await fetch(`${server.url}/v1/workspaces/demo/files/big.bin`, {
      headers: { Authorization: `Bearer ${h.keys.editor}` },
    });
    expect(res.status).toBe(200);
    const body = res.body;
    if (body === null) throw new Error('no body');
    expect(await hashOf(body as unknown as AsyncIterable<Uint8Array>)).toBe(sha256);
    // The session is gone once complete.
    expect(await restarted.listUploads('demo', { path: '/big.bin' })).toEqual([]);
  }, 120_000);

  it('retries a part whose connection drops, from the offset the server kept', async () => {
    const size = 6 * MB;
    const source = contentSource(size);
    let cutOnce = true;
    // A connection that dies after 1 MiB of the first PATCH body (the server keeps that MiB).
    const flaky: typeof fetch = async (input, init) => {
      if (init?.method === 'PATCH' && cutOnce && init.body instanceof ReadableStream) {
        cutOnce = false;
        const reader = (init.body as ReadableStream<Uint8Array>).getReader();
        let passed = 0;
        const controller = new AbortController();
        const body = new ReadableStream<Uint8Array>({
          async pull(c) {
            if (passed >= MB) {
              await new Promise((r) => setTimeout(r, 200));
              controller.abort(new Error('connection reset'));
              return;
            }
            const next = await reader.read();
            if (next.done) return c.close();
            passed += next.value.byteLength;
            c.enqueue(next.value);
          },
        });
        return fetch(input, {
          ...init,
          body,
          signal: controller.signal,
          duplex: 'half',
        } as RequestInit);
      }
      return fetch(input, init);
    };
    const remote = new RemoteSatchel({ url: server.url, token: h.keys.editor, fetch: flaky });
    let progress = 0;
    const info = await resumableUpload(remote, 'demo', '/flaky.bin', source, {
      partSize: 3 * MB,
      retryDelayMs: 300,
      onProgress: (bytes) => {
        progress = bytes;
      },
    });
    expect(cutOnce).toBe(false);
    expect(info.size).toBe(size);
    expect(progress).toBe(size);
    expect(info.hash).toBe(await hashOf(source.open(0)));
  }, 60_000);

  it('tells where to resume: HEAD gives Upload-Offset, a wrong offset is 409 with the offset', async () => {
    const remote = new RemoteSatchel({ url: server.url, token: h.keys.editor });
    const upload = await remote.createUpload('demo', '/small.txt', { size: 10 });
    await remote.appendUpload('demo', upload.id, 0, 'hello');
    const head = await fetch(`${server.url}/v1/workspaces/demo/uploads/${upload.id}`, {
      method: 'HEAD',
      headers: { Authorization: `Bearer ${h.keys.editor}` },
    });
    expect(head.headers.get('Upload-Offset')).toBe('5');
    expect(head.headers.get('Upload-Length')).toBe('10');
    const wrong = await h.request('PATCH', `/v1/workspaces/demo/uploads/${upload.id}`, {
      key: h.keys.editor,
      headers: { 'Upload-Offset': '0' },
      body: 'hello',
    });
    expect(wrong.status).toBe(409);
    expect(await problemOf(wrong)).toMatchObject({ offset: 5, reason: 'offset_mismatch' });
    const over = await h.request('PATCH', `/v1/workspaces/demo/uploads/${upload.id}`, {
      key: h.keys.editor,
      headers: { 'Upload-Offset': '5' },
      body: 'world, and more',
    });
    expect(over.status).toBe(413);
    // Completing early is refused; the file does not exist yet.
    const early = await h.request('POST', `/v1/workspaces/demo/uploads/${upload.id}/complete`, {
      key: h.keys.editor,
    });
    expect(early.status).toBe(409);
    expect(await problemOf(early)).toMatchObject({ reason: 'incomplete', offset: 5 });
    await remote.appendUpload('demo', upload.id, 5, 'world');
    const info = await remote.completeUpload('demo', upload.id);
    expect(info).toMatchObject({ path: '/small.txt', size: 10 });
    const read = await h.request('GET', '/v1/workspaces/demo/files/small.txt');
    expect(await read.text()).toBe('helloworld');
  });

  it('refuses at completion bytes that do not hash to the declared SHA-256, writing nothing', async () => {
    const remote = new RemoteSatchel({ url: server.url, token: h.keys.editor });
    const declared = createHash('sha256').update('expected').digest('hex');
    const upload = await remote.createUpload('demo', '/hashed.txt', { size: 8, sha256: declared });
    await remote.appendUpload('demo', upload.id, 0, 'tampered');
    const res = await h.request('POST', `/v1/workspaces/demo/uploads/${upload.id}/complete`, {
      key: h.keys.editor,
    });
    expect(res.status).toBe(400);
    expect(await problemOf(res)).toMatchObject({ reason: 'hash_mismatch', expected: declared });
    expect((await h.request('GET', '/v1/workspaces/demo/files/hashed.txt')).status).toBe(404);
  });

  it("keeps one principal's uploads from every other, and re-checks write access at completion", async () => {
    const mine = new RemoteSatchel({ url: server.url, token: h.keys.editor });
    const upload = await mine.createUpload('demo', '/private.txt', { size: 3 });
    const other = new RemoteSatchel({ url: server.url, token: h.keys.admin });
    await expect(other.getUpload('demo', upload.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(other.appendUpload('demo', upload.id, 0, 'abc')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const viewer = new RemoteSatchel({ url: server.url, token: h.keys.viewer });
    await expect(viewer.createUpload('demo', '/v.txt', { size: 1 })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await mine.appendUpload('demo', upload.id, 0, 'abc');
    await h.engine.setMember('demo', 'ed', 'viewer');
    try {
      await expect(mine.completeUpload('demo', upload.id)).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
    } finally {
      await h.engine.setMember('demo', 'ed', 'editor');
    }
    expect((await mine.completeUpload('demo', upload.id)).size).toBe(3);
  });

  it('lets sync resume a large file a reset sandbox left half-uploaded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'satchel-sync-resume-'));
    try {
      const content = randomBytes(3 * MB);
      const sha256 = createHash('sha256').update(content).digest('hex');
      await writeFile(join(dir, 'model.bin'), content);
      const remote = new RemoteSatchel({ url: server.url, token: h.keys.editor });
      // The sandbox died after 2 MiB of the file had reached the server.
      await h.engine.createWorkspace('synced');
      await h.engine.setMember('synced', 'ed', 'editor');
      const upload = await remote.createUpload('synced', '/model.bin', {
        size: content.length,
        sha256,
        ifNoneMatch: '*',
      });
      await remote.appendUpload('synced', upload.id, 0, content.subarray(0, 2 * MB));
      const report = await syncOnce({
        satchel: remote,
        workspace: 'synced',
        tree: new LocalTree(dir),
        mode: 'push',
        resumableAbove: MB,
      });
      expect(report.uploaded).toBe(1);
      expect((await h.engine.stat('synced', '/model.bin')).hash).toBe(sha256);
      // The half-done session was the one completed (a new one would have left it behind).
      expect(await remote.listUploads('synced')).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
