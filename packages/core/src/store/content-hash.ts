/** Hashing helpers shared by every blob store: whole-content SHA-256 plus per-chunk digests. */
import { createHash } from 'node:crypto';
import { SatchelError } from '@satchel/client/errors.js';
import type { BlobRef } from './blob-store.js';

export const DEFAULT_CHUNK_SIZE = 1024 * 1024;
const DIGEST_BYTES = 32;

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

const HASH_PATTERN = /^[0-9a-f]{64}$/;

export function isHash(value: string): boolean {
  return HASH_PATTERN.test(value);
}

/**
 * Consumes bytes in any pieces and produces the SHA-256 of the whole and of every
 * `chunkSize` chunk, with O(1) memory beyond the digests.
 */
export class ChunkedHasher {
  readonly #whole = createHash('sha256');
  #chunk = createHash('sha256');
  #inChunk = 0;
  #digests: Buffer[] = [];
  #size = 0;

  constructor(readonly chunkSize = DEFAULT_CHUNK_SIZE) {}

  get size(): number {
    return this.#size;
  }

  update(data: Uint8Array): void {
    this.#whole.update(data);
    this.#size += data.byteLength;
    let offset = 0;
    while (offset < data.byteLength) {
      const take = Math.min(this.chunkSize - this.#inChunk, data.byteLength - offset);
      this.#chunk.update(data.subarray(offset, offset + take));
      this.#inChunk += take;
      offset += take;
      if (this.#inChunk === this.chunkSize) {
        this.#digests.push(this.#chunk.digest());
        this.#chunk = createHash('sha256');
        this.#inChunk = 0;
      }
    }
  }

  digest(): { hash: string; size: number; chunkSize: number; chunks: Buffer } {
    if (this.#inChunk > 0 || this.#size === 0) this.#digests.push(this.#chunk.digest());
    return {
      hash: this.#whole.digest('hex'),
      size: this.#size,
      chunkSize: this.chunkSize,
      chunks: Buffer.concat(this.#digests),
    };
  }
}

/** Number of chunks a blob of `size` bytes has (an empty blob has one, empty, chunk). */
export function chunkCount(size: number, chunkSize: number): number {
  return Math.max(1, Math.ceil(size / chunkSize));
}

/** Throws INTEGRITY unless `data` is chunk `index` of the blob described by `ref`. */
export function verifyChunk(
  ref: { hash: string; chunks: Uint8Array },
  index: number,
  data: Uint8Array,
): void {
  const expected = ref.chunks.subarray(index * DIGEST_BYTES, (index + 1) * DIGEST_BYTES);
  const actual = createHash('sha256').update(data).digest();
  if (expected.byteLength !== DIGEST_BYTES || !actual.equals(expected)) {
    throw integrityError(ref.hash, `chunk ${index} does not match its recorded hash`);
  }
}

export function integrityError(hash: string, reason: string): SatchelError {
  return new SatchelError(
    'INTEGRITY',
    `stored content ${hash.slice(0, 12)}… is damaged: ${reason}`,
    {
      hash,
      reason,
    },
  );
}

export function checkHash(hash: string): void {
  // Also what keeps a caller's string from addressing any path outside the store.
  if (!isHash(hash)) {
    throw new SatchelError('INVALID_INPUT', 'blob hash must be 64 lowercase hex digits', { hash });
  }
}

export function checkRef(ref: BlobRef): void {
  checkHash(ref.hash);
  if (!Number.isSafeInteger(ref.chunkSize) || ref.chunkSize <= 0) {
    throw new SatchelError('INVALID_INPUT', `blob chunk size must be a positive integer`, {
      chunkSize: ref.chunkSize,
    });
  }
  if (!Number.isSafeInteger(ref.size) || ref.size < 0) {
    throw new SatchelError('INVALID_INPUT', `blob size must be a non-negative integer`, {
      size: ref.size,
    });
  }
}

export function resolveRange(
  ref: BlobRef,
  range: { start: number; end: number } | undefined,
): { start: number; end: number } {
  const start = range?.start ?? 0;
  const end = range?.end ?? ref.size;
  if (
    !Number.isSafeInteger(start) ||
    !Number.isSafeInteger(end) ||
    start < 0 ||
    start > end ||
    end > ref.size
  ) {
    throw new SatchelError(
      'INVALID_INPUT',
      `range [${start}, ${end}) is not within the ${ref.size} bytes of the content`,
      { start, end, size: ref.size },
    );
  }
  return { start, end };
}
