/**
 * The BlobStore contract on `S3BlobStore` against a real S3-compatible HTTP server on 127.0.0.1
 * (test-support/s3-server.ts), once with conditional writes and once on a server that ignores
 * them; plus what only the S3 store promises (temp keys, multipart, write-once).
 */
import { mkdtemp, open, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type S3TestServer,
  startS3Server,
  TEST_S3_CREDENTIALS,
} from '../test-support/s3-server.js';
import { CONTRACT_CHUNK_SIZE, runBlobStoreContract } from './blob-store.contract.js';
import { S3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.js';

const MIB = 1024 * 1024;

async function flipLastByte(path: string): Promise<void> {
  const { size } = await stat(path);
  const fh = await open(path, 'r+');
  try {
    const byte = Buffer.alloc(1);
    await fh.read(byte, 0, 1, size - 1);
    byte.writeUInt8(byte.readUInt8(0) ^ 0xff, 0);
    await fh.write(byte, 0, 1, size - 1);
  } finally {
    await fh.close();
  }
}

async function s3Fixture(
  options: { ignoreConditions?: boolean; store?: Partial<S3BlobStoreOptions> } = {},
) {
  const dir = await mkdtemp(join(tmpdir(), 'satchel-s3-'));
  const server = await startS3Server(dir);
  server.ignoreConditions = options.ignoreConditions ?? false;
  const store = new S3BlobStore({
    bucket: server.bucket,
    prefix: 'pre/fix',
    endpoint: server.endpoint,
    forcePathStyle: true,
    credentials: TEST_S3_CREDENTIALS,
    chunkSize: CONTRACT_CHUNK_SIZE,
    ...options.store,
  });
  const keyPath = (hash: string) => server.pathOf(`pre/fix/blobs/${hash}`);
  return {
    server,
    store,
    corrupt: (hash: string) => flipLastByte(keyPath(hash)),
    remove: (hash: string) => unlink(keyPath(hash)),
    cleanup: async () => {
      store.close();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

runBlobStoreContract('S3BlobStore', () => s3Fixture());
runBlobStoreContract('S3BlobStore on a server without conditional writes', () =>
  s3Fixture({ ignoreConditions: true }),
);

describe('S3BlobStore on an S3-compatible server', () => {
  let fixture: Awaited<ReturnType<typeof s3Fixture>>;
  let server: S3TestServer;

  beforeEach(async () => {
    fixture = await s3Fixture({ store: { partSize: 5 * MIB, chunkSize: 64 * 1024 } });
    server = fixture.server;
  });

  afterEach(async () => {
    await fixture.cleanup();
  });

  function content(size: number, seed: number): Buffer {
    const data = Buffer.allocUnsafe(size);
    for (let i = 0; i + 4 <= size; i += 4) data.writeUInt32LE((i * 2654435761 + seed) >>> 0, i);
    return data;
  }

  async function* pieces(data: Buffer, size = 300 * 1024): AsyncGenerator<Uint8Array> {
    for (let offset = 0; offset < data.byteLength; offset += size)
      yield data.subarray(offset, offset + size);
  }

  async function collect(iterable: AsyncIterable<Uint8Array>): Promise<Buffer> {
    const parts: Uint8Array[] = [];
    for await (const part of iterable) parts.push(part);
    return Buffer.concat(parts);
  }

  it('uploads big content in parts to a temp key, publishes it under its hash and leaves no temp', async () => {
    const data = content(12 * MIB + 17, 1);
    const ref = await fixture.store.put(pieces(data));
    expect(await server.keys()).toEqual([`pre/fix/blobs/${ref.hash}`]);
    expect(server.openUploads.size).toBe(0);
    const uploads = server.requests.filter((r) => r.includes('partNumber='));
    expect(uploads.length).toBe(3);
    expect(server.requests.some((r) => r.startsWith(`PUT pre/fix/blobs/${ref.hash}`))).toBe(true);
    expect((await collect(fixture.store.get(ref))).equals(data)).toBe(true);
    const range = { start: 5 * MIB - 3, end: 9 * MIB + 5 };
    expect(
      (await collect(fixture.store.get(ref, range))).equals(data.subarray(range.start, range.end)),
    ).toBe(true);
  });

  it('puts small content with one conditional request straight under its name', async () => {
    const ref = await fixture.store.put(pieces(content(MIB, 2)));
    const writes = server.requests.filter((r) => r.startsWith('PUT') || r.startsWith('POST'));
    expect(writes).toEqual([`PUT pre/fix/blobs/${ref.hash}`]);
  });

  it('never replaces intact content, whichever way it arrives', async () => {
    const data = content(11 * MIB, 3);
    const ref = await fixture.store.put(pieces(data));
    const before = await stat(server.pathOf(`pre/fix/blobs/${ref.hash}`));
    server.requests.length = 0;
    await fixture.store.put(pieces(data));
    const after = await stat(server.pathOf(`pre/fix/blobs/${ref.hash}`));
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(server.requests.filter((r) => r.startsWith(`PUT pre/fix/blobs/`))).toEqual([]);
    expect(await server.keys()).toEqual([`pre/fix/blobs/${ref.hash}`]);
  });

  it('publishes content over the single-copy limit with a multipart copy', async () => {
    await fixture.cleanup();
    fixture = await s3Fixture({
      store: {
        partSize: 5 * MIB,
        chunkSize: 64 * 1024,
        maxCopyObject: 6 * MIB,
        copyPartSize: 5 * MIB,
      },
    });
    server = fixture.server;
    const data = content(13 * MIB + 1, 4);
    const ref = await fixture.store.put(pieces(data));
    expect(
      server.requests.filter((r) => r.startsWith(`PUT pre/fix/blobs/${ref.hash}?`)).length,
    ).toBe(3);
    expect(await server.keys()).toEqual([`pre/fix/blobs/${ref.hash}`]);
    expect(await fixture.store.verify(ref.hash)).toBe('ok');
    expect(server.openUploads.size).toBe(0);
  });

  it('leaves neither temp objects nor open uploads after a failed big put', async () => {
    const data = content(12 * MIB, 5);
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield* pieces(data.subarray(0, 11 * MIB));
      throw new Error('source broke');
    }
    await expect(fixture.store.put(failing())).rejects.toThrow('source broke');
    const tooLarge = await fixture.store.put(pieces(data), { maxBytes: 11 * MIB }).catch((e) => e);
    expect(tooLarge).toMatchObject({ code: 'TOO_LARGE' });
    expect(await server.keys()).toEqual([]);
    expect(server.openUploads.size).toBe(0);
  });
});
