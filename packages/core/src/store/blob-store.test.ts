/** Runs the BlobStore contract on every implementation, plus what only the disk store promises. */
import { createHash } from 'node:crypto';
import {
  appendFile,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  rm,
  stat,
  truncate,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSatchelError } from '@satchel/client/errors.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONTRACT_CHUNK_SIZE, runBlobStoreContract } from './blob-store.contract.js';
import { FsBlobStore } from './fs-blob-store.js';
import { MemoryBlobStore } from './memory-blob-store.js';

function contentPath(root: string, hash: string): string {
  return join(root, hash.slice(0, 2), hash);
}

async function flipLastByte(path: string): Promise<void> {
  const { size } = await stat(path);
  if (size === 0) throw new Error('cannot corrupt empty content in place');
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

runBlobStoreContract('FsBlobStore', async () => {
  const root = await mkdtemp(join(tmpdir(), 'satchel-blobs-'));
  const store = await FsBlobStore.open(root, { chunkSize: CONTRACT_CHUNK_SIZE });
  return {
    store,
    corrupt: (hash) => flipLastByte(contentPath(root, hash)),
    remove: (hash) => unlink(contentPath(root, hash)),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
});

runBlobStoreContract('MemoryBlobStore', async () => {
  const blobs = new Map<string, Buffer>();
  const store = new MemoryBlobStore({ chunkSize: CONTRACT_CHUNK_SIZE, blobs });
  return {
    store,
    corrupt: async (hash) => {
      const data = blobs.get(hash);
      if (data === undefined || data.byteLength === 0) throw new Error(`cannot corrupt ${hash}`);
      data.writeUInt8(data.readUInt8(data.byteLength - 1) ^ 0xff, data.byteLength - 1);
    },
    remove: async (hash) => {
      blobs.delete(hash);
    },
    cleanup: async () => undefined,
  };
});

describe('FsBlobStore on disk', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'satchel-blobs-'));
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function collect(iterable: AsyncIterable<Uint8Array>): Promise<Buffer> {
    const parts: Uint8Array[] = [];
    for await (const part of iterable) parts.push(part);
    return Buffer.concat(parts);
  }

  async function* once(data: Uint8Array): AsyncGenerator<Uint8Array> {
    yield data;
  }

  it('fans content out by hash prefix and leaves no temp files behind', async () => {
    const store = await FsBlobStore.open(root, { chunkSize: CONTRACT_CHUNK_SIZE });
    const data = Buffer.from('hello, satchel\n'.repeat(500));
    const ref = await store.put(once(data));
    const prefix = ref.hash.slice(0, 2);
    expect((await readdir(root)).sort()).toEqual([prefix, 'tmp'].sort());
    expect(await readdir(join(root, prefix))).toEqual([ref.hash]);
    expect(await readFile(contentPath(root, ref.hash))).toEqual(data);
    expect(await readdir(join(root, 'tmp'))).toEqual([]);
  });

  it('leaves no temp files behind after failed puts', async () => {
    const store = await FsBlobStore.open(root, { chunkSize: CONTRACT_CHUNK_SIZE });
    const tooLarge = await store.put(once(Buffer.alloc(5000)), { maxBytes: 4096 }).catch((e) => e);
    expect(isSatchelError(tooLarge, 'TOO_LARGE')).toBe(true);
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield Buffer.alloc(3000, 1);
      throw new Error('source broke');
    }
    await expect(store.put(failing())).rejects.toThrow('source broke');
    expect(await readdir(join(root, 'tmp'))).toEqual([]);
    expect(await readdir(root)).toEqual(['tmp']);
  });

  it('creates a missing root and removes temp files of interrupted writes on open', async () => {
    const nested = join(root, 'data', 'blobs');
    const first = await FsBlobStore.open(nested, { chunkSize: CONTRACT_CHUNK_SIZE });
    const ref = await first.put(once(Buffer.from('kept')));
    await writeFile(join(nested, 'tmp', 'interrupted.tmp'), 'half a file');
    await mkdir(join(nested, 'tmp', 'stray-dir'));
    const reopened = await FsBlobStore.open(nested, { chunkSize: CONTRACT_CHUNK_SIZE });
    expect(await readdir(join(nested, 'tmp'))).toEqual([]);
    expect(await reopened.has(ref.hash)).toBe(true);
    expect(await reopened.verify(ref.hash)).toBe('ok');
  });

  it('fails with INTEGRITY when the file is shorter or longer than the ref says', async () => {
    const store = await FsBlobStore.open(root, { chunkSize: CONTRACT_CHUNK_SIZE });
    const data = Buffer.alloc(3 * CONTRACT_CHUNK_SIZE, 7);
    const ref = await store.put(once(data));
    const path = contentPath(root, ref.hash);
    await appendFile(path, 'trailing garbage');
    await expect(collect(store.get(ref))).rejects.toMatchObject({ code: 'INTEGRITY' });
    await truncate(path, 2 * CONTRACT_CHUNK_SIZE + 10);
    await expect(collect(store.get(ref))).rejects.toMatchObject({ code: 'INTEGRITY' });
    expect(await store.verify(ref.hash)).toBe('corrupt');
  });

  it('lists only content, not stray files', async () => {
    const store = await FsBlobStore.open(root, { chunkSize: CONTRACT_CHUNK_SIZE });
    const ref = await store.put(once(Buffer.from('content')));
    const prefix = ref.hash.slice(0, 2);
    await writeFile(join(root, prefix, 'notes.txt'), 'x');
    // A hash filed under the wrong prefix is not where `get` would look for it.
    await writeFile(join(root, prefix, (prefix === '00' ? '1' : '0').repeat(64)), 'x');
    await writeFile(join(root, 'README'), 'x');
    await mkdir(join(root, 'zz'));
    await writeFile(join(root, 'zz', 'f'.repeat(64)), 'x');
    await writeFile(join(root, 'tmp', 'a'.repeat(64)), 'x');
    const listed: string[] = [];
    for await (const hash of store.list()) listed.push(hash);
    expect(listed).toEqual([ref.hash]);
  });

  describe('put with big pieces (written straight from the source, overlapping the hashing)', () => {
    const MIB = 1024 * 1024;
    /** Piece sizes around the 1 MiB write size: straight writes, copies, and mixes of both. */
    const sizes = [3 * MIB + 5, 100, 2 * MIB, MIB - 105, 5 * MIB + 7, 1, MIB, 64 * 1024];
    const total = sizes.reduce((a, b) => a + b, 0);

    function content(): Buffer {
      const data = Buffer.allocUnsafe(total);
      for (let i = 0; i < total; i += 4) data.writeUInt32BE(i >>> 2, i);
      return data;
    }

    /** Yields `sizes` pieces of `data` from one buffer that it overwrites after each piece. */
    async function* reusing(data: Buffer, fail?: Error): AsyncGenerator<Uint8Array> {
      const buffer = Buffer.alloc(Math.max(...sizes));
      let offset = 0;
      for (const size of sizes) {
        const piece = buffer.subarray(0, size);
        data.copy(piece, 0, offset, offset + size);
        offset += size;
        yield piece;
        buffer.fill(0xee);
        if (fail && offset > 6 * MIB) throw fail;
      }
    }

    it('stores exactly the bytes of a source that reuses its buffer', async () => {
      const store = await FsBlobStore.open(root);
      const data = content();
      const ref = await store.put(reusing(data));
      expect(ref.hash).toBe(createHash('sha256').update(data).digest('hex'));
      expect(ref.size).toBe(total);
      // equals(), not toEqual(): a deep comparison of 12 MB takes minutes.
      expect((await readFile(contentPath(root, ref.hash))).equals(data)).toBe(true);
      expect((await collect(store.get(ref))).equals(data)).toBe(true);
      expect(await readdir(join(root, 'tmp'))).toEqual([]);
    });

    it('leaves nothing behind when the source fails or the content is too large', async () => {
      const store = await FsBlobStore.open(root);
      const data = content();
      await expect(store.put(reusing(data, new Error('source broke')))).rejects.toThrow(
        'source broke',
      );
      const tooLarge = await store.put(reusing(data), { maxBytes: 7 * MIB }).catch((e) => e);
      expect(isSatchelError(tooLarge, 'TOO_LARGE')).toBe(true);
      expect(await readdir(join(root, 'tmp'))).toEqual([]);
      expect(await readdir(root)).toEqual(['tmp']);
    });
  });

  it('streams a 50 MB put in flat memory', async () => {
    const store = await FsBlobStore.open(root);
    const pieceSize = 64 * 1024;
    const count = 800;
    const expected = createHash('sha256');
    const baseline = process.memoryUsage().arrayBuffers;
    let peak = baseline;
    async function* generate(): AsyncGenerator<Uint8Array> {
      // One reused buffer, so any growth measured is the store's.
      const piece = Buffer.alloc(pieceSize, 0x5a);
      for (let i = 0; i < count; i++) {
        piece.writeUInt32BE(i, (i * 4) % (pieceSize - 4));
        expected.update(piece);
        peak = Math.max(peak, process.memoryUsage().arrayBuffers);
        yield piece;
      }
    }
    const ref = await store.put(generate());
    peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    expect(ref.size).toBe(pieceSize * count);
    expect(ref.hash).toBe(expected.digest('hex'));
    expect(peak - baseline).toBeLessThan(20 * 1024 * 1024);
    expect(await store.verify(ref.hash)).toBe('ok');
  });
});
