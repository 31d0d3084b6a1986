/** BlobStore in process memory, with the same write-once and verify-before-yield rules as disk. */
import { SatchelError } from '@satchel/client/errors.js';
import type { BlobPutOptions, BlobRef, BlobStore } from './blob-store.js';
import {
  ChunkedHasher,
  checkHash,
  checkRef,
  DEFAULT_CHUNK_SIZE,
  integrityError,
  resolveRange,
  sha256Hex,
  verifyChunk,
} from './content-hash.js';

export interface MemoryBlobStoreOptions {
  /** Verification chunk size recorded in the refs `put` returns (default 1 MiB). */
  readonly chunkSize?: number;
  /**
   * The backing map, hash to content. Injected by tests that need to damage or lose content
   * behind the store's back; nobody else should touch it.
   */
  readonly blobs?: Map<string, Buffer>;
}

export class MemoryBlobStore implements BlobStore {
  readonly #blobs: Map<string, Buffer>;
  readonly #chunkSize: number;

  /** Errors: INVALID_INPUT for a bad chunk size. */
  constructor(options: MemoryBlobStoreOptions = {}) {
    const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
    if (!Number.isSafeInteger(chunkSize) || chunkSize <= 0) {
      throw new SatchelError(
        'INVALID_INPUT',
        `chunk size must be a positive integer, got ${chunkSize}`,
      );
    }
    this.#chunkSize = chunkSize;
    this.#blobs = options.blobs ?? new Map();
  }

  async put(source: AsyncIterable<Uint8Array>, options: BlobPutOptions = {}): Promise<BlobRef> {
    const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    const hasher = new ChunkedHasher(this.#chunkSize);
    const pieces: Buffer[] = [];
    for await (const piece of source) {
      if (hasher.size + piece.byteLength > maxBytes) {
        throw new SatchelError('TOO_LARGE', `content exceeds the limit of ${maxBytes} bytes`, {
          maxBytes,
        });
      }
      hasher.update(piece);
      // Copied now: a source may reuse its buffer once we ask for the next piece.
      pieces.push(Buffer.from(piece));
    }
    const digest = hasher.digest();
    // Write-once, as on disk: intact content is left alone; damaged content is replaced.
    const existing = this.#blobs.get(digest.hash);
    if (existing === undefined || sha256Hex(existing) !== digest.hash) {
      this.#blobs.set(digest.hash, Buffer.concat(pieces, digest.size));
    }
    return {
      hash: digest.hash,
      size: digest.size,
      chunkSize: digest.chunkSize,
      chunks: digest.chunks,
    };
  }

  async *get(ref: BlobRef, range?: { start: number; end: number }): AsyncIterable<Uint8Array> {
    checkRef(ref);
    const { start, end } = resolveRange(ref, range);
    const data = this.#blobs.get(ref.hash);
    if (data === undefined) throw integrityError(ref.hash, 'content is missing');
    if (data.byteLength !== ref.size) {
      throw integrityError(ref.hash, `size is ${data.byteLength} bytes, ${ref.size} expected`);
    }
    if (ref.size === 0) verifyChunk(ref, 0, data);
    if (start === end) return;
    const last = Math.floor((end - 1) / ref.chunkSize);
    for (let index = Math.floor(start / ref.chunkSize); index <= last; index++) {
      const position = index * ref.chunkSize;
      const chunk = data.subarray(position, Math.min(position + ref.chunkSize, ref.size));
      verifyChunk(ref, index, chunk);
      // A copy: a caller writing into what it was given must not change stored content.
      yield Buffer.from(
        chunk.subarray(Math.max(start - position, 0), Math.min(end - position, chunk.length)),
      );
    }
  }

  async has(hash: string): Promise<boolean> {
    checkHash(hash);
    return this.#blobs.has(hash);
  }

  async verify(hash: string): Promise<'ok' | 'missing' | 'corrupt'> {
    checkHash(hash);
    const data = this.#blobs.get(hash);
    if (data === undefined) return 'missing';
    return sha256Hex(data) === hash ? 'ok' : 'corrupt';
  }

  async *list(): AsyncIterable<string> {
    // A snapshot, so deletes during iteration behave as they do on disk.
    yield* [...this.#blobs.keys()];
  }

  async delete(hash: string): Promise<void> {
    checkHash(hash);
    this.#blobs.delete(hash);
  }
}
