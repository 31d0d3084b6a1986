/**
 * Hashing a stream for `put` in one pass over its bytes, on two threads: the whole-content
 * SHA-256 (incremental, so it stays on the calling thread) while the per-chunk digests run on
 * the libuv thread pool. Same digests as `ChunkedHasher`; this is the same format, computed
 * faster where a second core is free.
 */
import { createHash, webcrypto } from 'node:crypto';

/**
 * Chunks smaller than this are hashed on the calling thread: a thread-pool hop costs tens of
 * microseconds, more than hashing a small chunk.
 */
const OFF_THREAD_MIN_CHUNK = 256 * 1024;
/** Chunk digests running on the thread pool at once; each holds a copy of its chunk. */
const MAX_IN_FLIGHT = 3;

export interface ContentDigest {
  readonly hash: string;
  readonly size: number;
  readonly chunkSize: number;
  readonly chunks: Buffer;
}

export class StreamHasher {
  readonly #whole = createHash('sha256');
  readonly #chunkSize: number;
  /** Off the thread: the chunk being collected (digests need a chunk in one piece). */
  readonly #collect: Buffer | undefined;
  /** On the thread: the running digest of the current chunk. */
  #chunk = createHash('sha256');
  #inChunk = 0;
  /** One per finished chunk, in order; off the thread these settle out of order. */
  readonly #digests: Array<Buffer | Promise<Buffer>> = [];
  /** Chunk digests started on the thread pool and not finished yet. */
  readonly #running = new Set<Promise<unknown>>();
  #size = 0;

  constructor(chunkSize: number) {
    this.#chunkSize = chunkSize;
    this.#collect = chunkSize >= OFF_THREAD_MIN_CHUNK ? Buffer.allocUnsafe(chunkSize) : undefined;
  }

  get size(): number {
    return this.#size;
  }

  /**
   * Takes `data`, hashing or copying all it needs of it before returning: the caller may reuse
   * that memory at once. Returns a promise to await (back-pressure) while MAX_IN_FLIGHT chunk
   * digests are running, nothing otherwise (it runs for every piece of a stream).
   */
  update(data: Uint8Array): Promise<void> | undefined {
    this.#whole.update(data);
    this.#size += data.byteLength;
    for (let offset = 0; offset < data.byteLength; ) {
      const take = Math.min(this.#chunkSize - this.#inChunk, data.byteLength - offset);
      const part = data.subarray(offset, offset + take);
      if (this.#collect) this.#collect.set(part, this.#inChunk);
      else this.#chunk.update(part);
      this.#inChunk += take;
      offset += take;
      if (this.#inChunk === this.#chunkSize) this.#endChunk();
    }
    return this.#running.size < MAX_IN_FLIGHT ? undefined : this.#waitForRoom();
  }

  /** The digests of everything taken; the hasher is spent afterwards. */
  async digest(): Promise<ContentDigest> {
    if (this.#inChunk > 0 || this.#size === 0) this.#endChunk();
    const chunks = await Promise.all(this.#digests);
    return {
      hash: this.#whole.digest('hex'),
      size: this.#size,
      chunkSize: this.#chunkSize,
      chunks: Buffer.concat(chunks),
    };
  }

  #endChunk(): void {
    if (this.#collect && this.#inChunk < OFF_THREAD_MIN_CHUNK) {
      // A short last chunk (small content): not worth the hop either.
      this.#digests.push(
        createHash('sha256').update(this.#collect.subarray(0, this.#inChunk)).digest(),
      );
    } else if (this.#collect) {
      // digest() copies its input before it returns: #collect can take the next chunk at once.
      const running = webcrypto.subtle
        .digest('SHA-256', this.#collect.subarray(0, this.#inChunk))
        .then((digest) => Buffer.from(digest));
      // Observed here, so that a put abandoned by an error leaves no unhandled rejection.
      const settled = running.catch(() => undefined).finally(() => this.#running.delete(settled));
      this.#running.add(settled);
      this.#digests.push(running);
    } else {
      this.#digests.push(this.#chunk.digest());
      this.#chunk = createHash('sha256');
    }
    this.#inChunk = 0;
  }

  async #waitForRoom(): Promise<void> {
    while (this.#running.size >= MAX_IN_FLIGHT) await Promise.race(this.#running);
  }
}
