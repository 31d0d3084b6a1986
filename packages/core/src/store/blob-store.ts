/**
 * BlobStore: where the bytes of large files live (small ones live inline in the metadata
 * database; see docs/storage.md). Content-addressed by SHA-256, write-once, verified on read.
 */

/** Address of stored content plus what is needed to verify any part of it before returning it. */
export interface BlobRef {
  /** SHA-256 of the whole content, lowercase hex. */
  readonly hash: string;
  readonly size: number;
  /** Size of the verification chunks (the last one may be shorter). */
  readonly chunkSize: number;
  /** SHA-256 digests of consecutive `chunkSize` pieces, 32 bytes each, concatenated. */
  readonly chunks: Uint8Array;
}

export interface BlobPutOptions {
  /** Reject with TOO_LARGE (keeping nothing) as soon as more than this many bytes arrive. */
  readonly maxBytes?: number;
}

export interface BlobStore {
  /**
   * Consumes `source` exactly once and stores it. Resolves only when the content is durable
   * (fsynced, linked into place without replacing anything, directory fsynced). Intact content
   * that is already stored is never rewritten; stored content that fails verification is
   * replaced by the received bytes (which hash to the same name). On any failure nothing is left
   * behind but possibly a temp file that a later `open` removes; errors: TOO_LARGE, or the
   * source's own error.
   */
  put(source: AsyncIterable<Uint8Array>, options?: BlobPutOptions): Promise<BlobRef>;

  /**
   * Yields bytes [start, end) of the content. Every chunk is hashed and compared with
   * `ref.chunks` before any of its bytes are yielded: corrupt or missing content fails with
   * INTEGRITY and is never returned as data.
   */
  get(ref: BlobRef, range?: { start: number; end: number }): AsyncIterable<Uint8Array>;

  has(hash: string): Promise<boolean>;

  /** Re-reads the whole content and checks it against its name. */
  verify(hash: string): Promise<'ok' | 'missing' | 'corrupt'>;

  /** Every stored hash, in no particular order. */
  list(): AsyncIterable<string>;

  /** Removes content (for garbage collection of orphans); absent content is not an error. */
  delete(hash: string): Promise<void>;

  /** Releases what the store holds open (an S3 client's connections); optional. */
  close?(): void;
}
