/** StreamHasher records the same digests as ChunkedHasher: refs stay readable either way. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ChunkedHasher } from './content-hash.js';
import { StreamHasher } from './stream-hasher.js';

const KIB = 1024;
const MIB = 1024 * KIB;

async function streamed(data: Buffer, chunkSize: number, pieces: readonly number[]) {
  const hasher = new StreamHasher(chunkSize);
  // One buffer overwritten after every piece: the hasher must not read a piece later.
  const scratch = Buffer.alloc(Math.max(1, ...pieces));
  for (let offset = 0, i = 0; offset < data.byteLength; i++) {
    const size = Math.min(pieces[i % pieces.length] ?? 1, data.byteLength - offset);
    const piece = scratch.subarray(0, size);
    data.copy(piece, 0, offset, offset + size);
    offset += size;
    const waiting = hasher.update(piece);
    scratch.fill(0xee);
    if (waiting) await waiting;
  }
  return hasher.digest();
}

function reference(data: Buffer, chunkSize: number) {
  const hasher = new ChunkedHasher(chunkSize);
  hasher.update(data);
  return hasher.digest();
}

describe('StreamHasher', () => {
  const cases: Array<[string, number, number, number[]]> = [
    ['empty content', MIB, 0, [64 * KIB]],
    ['less than a chunk', MIB, 100 * KIB, [64 * KIB]],
    ['whole chunks, in 64 KiB pieces', MIB, 4 * MIB, [64 * KIB]],
    ['a short last chunk, odd pieces', MIB, 5 * MIB + 12_345, [64 * KIB + 3, 7, 3 * MIB]],
    ['a last chunk too short for the thread pool', 512 * KIB, 2 * MIB + 10, [300 * KIB]],
    ['chunks hashed on the calling thread', 4 * KIB, 100 * KIB + 1, [1000, 5 * KIB]],
  ];
  for (const [name, chunkSize, size, pieces] of cases) {
    it(`records the same digests as ChunkedHasher: ${name}`, async () => {
      const data = randomBytes(size);
      const got = await streamed(data, chunkSize, pieces);
      const want = reference(data, chunkSize);
      expect(got.hash).toBe(want.hash);
      expect(got.size).toBe(want.size);
      expect(got.chunkSize).toBe(want.chunkSize);
      expect(got.chunks.equals(want.chunks)).toBe(true);
    });
  }
});
