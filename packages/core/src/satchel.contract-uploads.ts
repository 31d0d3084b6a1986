/**
 * The large-file part of the Satchel contract (run from satchel.contract.ts): resumable upload
 * sessions and signed URLs give the same results and refusals from the engine (SQLite and
 * PostgreSQL) and from RemoteSatchel over HTTP.
 */
import { randomBytes } from 'node:crypto';
import type { UploadEntry } from '@satchel/client/operations/satchel.js';
import { resumableUpload } from '@satchel/client/transfer/resumable-upload.js';
import { expect, it } from 'vitest';
import { bytesOf, sha256, type World } from './satchel.contract.js';

async function* stream(list: readonly UploadEntry[]): AsyncGenerator<UploadEntry> {
  yield* list;
}

export function uploadBehaviour(w: () => World): void {
  it('writes a batch upload in bulk: a seq per file, parents once, a refused file answered alone', async () => {
    const { editor, viewer } = w();
    const ws = await w().workspace('bulk');
    const kept = await editor.writeFile(ws, '/kept.txt', 'kept');
    const files = Array.from({ length: 40 }, (_, i) => ({
      path: `/deep/d${i % 3}/f${i}.txt`,
      content: Buffer.from(`file ${i}`),
    }));
    const first = await editor.uploadFiles(ws, stream(files));
    const seqs = first.items.map((item) => (item.ok ? item.info.seq : -1));
    expect(seqs).toEqual(files.map((_, i) => kept.seq + 1 + i));
    const feed = await viewer.listChanges(ws, { after: kept.seq });
    expect(feed.cursor).toBe(kept.seq + 40);
    const writes = feed.events.filter((event) => event.type === 'write');
    expect(writes.map((event) => [event.path, event.seq])).toEqual(
      files.map((file, i) => [file.path, kept.seq + 1 + i]),
    );
    const dirs = feed.events.filter((event) => event.type === 'mkdir');
    expect(dirs.map((event) => [event.path, event.seq])).toEqual([
      ['/deep', kept.seq + 1],
      ['/deep/d0', kept.seq + 1],
      ['/deep/d1', kept.seq + 2],
      ['/deep/d2', kept.seq + 3],
    ]);
    expect(await bytesOf((await viewer.readFile(ws, '/deep/d1/f7.txt')).body)).toEqual(
      Buffer.from('file 7'),
    );
    // One refusal in the middle of a group: the others commit, the refused file has its answer.
    const second = await editor.uploadFiles(
      ws,
      stream([
        { path: '/g/a.txt', content: Buffer.from('a') },
        { path: '/kept.txt', content: Buffer.from('lost'), ifNoneMatch: '*' },
        { path: '/deep/d0/f0.txt/under', content: Buffer.from('under a file') },
        { path: '/g/b.txt', content: Buffer.from('b') },
      ]),
    );
    expect(second.items.map((item) => (item.ok ? item.info.seq : item.error.code))).toEqual([
      kept.seq + 41,
      'PRECONDITION_FAILED',
      'CONFLICT',
      kept.seq + 42,
    ]);
    expect(await bytesOf((await viewer.readFile(ws, '/kept.txt')).body)).toEqual(
      Buffer.from('kept'),
    );
    const after = await viewer.listChanges(ws, { after: kept.seq + 40 });
    expect(after.events.map((event) => [event.type, event.path])).toEqual([
      ['mkdir', '/g'],
      ['write', '/g/a.txt'],
      ['write', '/g/b.txt'],
    ]);
  });

  it('uploads in parts from the offset the server tells, as one version at completion', async () => {
    const { editor, viewer } = w();
    const ws = await w().workspace('uploads');
    const content = randomBytes(300_000);
    const upload = await editor.createUpload(ws, '/data/blob.bin', {
      size: content.length,
      sha256: sha256(content),
      message: 'in parts',
    });
    expect(upload).toMatchObject({ path: '/data/blob.bin', size: 300_000, offset: 0 });
    await editor.appendUpload(ws, upload.id, 0, content.subarray(0, 100_000));
    await expect(
      editor.appendUpload(ws, upload.id, 0, content.subarray(0, 10)),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      data: { offset: 100_000, reason: 'offset_mismatch' },
    });
    expect((await editor.getUpload(ws, upload.id)).offset).toBe(100_000);
    expect(await editor.listUploads(ws, { path: '/data/blob.bin' })).toHaveLength(1);
    await expect(viewer.stat(ws, '/data/blob.bin')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await editor.appendUpload(ws, upload.id, 100_000, content.subarray(100_000));
    const info = await editor.completeUpload(ws, upload.id);
    expect(info).toMatchObject({ path: '/data/blob.bin', size: 300_000, hash: sha256(content) });
    expect((await editor.listVersions(ws, '/data/blob.bin')).items[0]).toMatchObject({
      message: 'in parts',
    });
    expect(await bytesOf((await viewer.readFile(ws, '/data/blob.bin')).body)).toEqual(content);
    await expect(editor.getUpload(ws, upload.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses bytes past the declared size, and content other than the declared hash', async () => {
    const { editor } = w();
    const ws = await w().workspace('uploads-refused');
    const small = await editor.createUpload(ws, '/a.txt', { size: 3 });
    await expect(editor.appendUpload(ws, small.id, 0, 'abcd')).rejects.toMatchObject({
      code: 'TOO_LARGE',
    });
    expect((await editor.getUpload(ws, small.id)).offset).toBe(0);
    await editor.cancelUpload(ws, small.id);
    await expect(editor.getUpload(ws, small.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const hashed = await editor.createUpload(ws, '/b.txt', {
      size: 3,
      sha256: sha256(Buffer.from('abc')),
    });
    await editor.appendUpload(ws, hashed.id, 0, 'xyz');
    await expect(editor.completeUpload(ws, hashed.id)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      data: { reason: 'hash_mismatch' },
    });
    await expect(editor.stat(ws, '/b.txt')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(w().viewer.createUpload(ws, '/c.txt', { size: 1 })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('resumes with resumableUpload from where an earlier run stopped', async () => {
    const { editor } = w();
    const ws = await w().workspace('uploads-resume');
    const content = randomBytes(200_000);
    const earlier = await editor.createUpload(ws, '/r.bin', {
      size: content.length,
      sha256: sha256(content),
    });
    await editor.appendUpload(ws, earlier.id, 0, content.subarray(0, 150_000));
    let resumed = -1;
    const info = await resumableUpload(
      editor,
      ws,
      '/r.bin',
      {
        size: content.length,
        open: async function* (start) {
          yield content.subarray(start);
        },
      },
      {
        partSize: 20_000,
        onResume: (offset) => {
          resumed = offset;
        },
      },
    );
    expect(resumed).toBe(150_000);
    expect(info.hash).toBe(sha256(content));
  });

  it('signs transfer URLs only for what the caller may do', async () => {
    const { editor, viewer } = w();
    const ws = await w().workspace('signed');
    await editor.writeFile(ws, '/x.txt', 'x');
    const up = await editor.createUploadUrl(ws, '/y.txt', { size: 1 });
    expect(up.url).toMatch(/\/signed\/[\w-]+\.[\w-]+$/);
    expect(Date.parse(up.expiresAt) - Date.now()).toBeLessThanOrEqual(15 * 60 * 1000);
    const down = await viewer.createDownloadUrl(ws, '/x.txt', { reusable: true, expiresIn: 60 });
    expect(down.url).toMatch(/\/signed\//);
    await expect(viewer.createUploadUrl(ws, '/y.txt')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(w().stranger.createDownloadUrl(ws, '/x.txt')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
}
