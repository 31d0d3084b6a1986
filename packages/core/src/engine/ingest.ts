/**
 * Turns caller content into stored content: small content stays in memory to be committed inline
 * with its version (one transaction, one fsync); anything larger streams into the BlobStore.
 */
import { createHash } from 'node:crypto';
import { SatchelError } from '@satchel/client/errors.js';
import type { Content } from '@satchel/client/operations/satchel.js';
import type { BlobRef, BlobStore } from '../store/blob-store.js';
import type { BlobRecord, MetadataTx } from '../store/metadata/metadata-store.js';

export interface StoredContent {
  readonly hash: string;
  readonly size: number;
  /** Present when the content is small enough to live in the metadata database. */
  readonly inline: Buffer | null;
  readonly ref: BlobRef | null;
  /** The first bytes, for content-type sniffing. */
  readonly head: Buffer;
}

export interface IngestLimits {
  readonly maxFileSize: number;
  readonly inlineThreshold: number;
}

const SNIFF_BYTES = 8192;

function toBuffer(piece: Uint8Array | string): Buffer {
  return typeof piece === 'string'
    ? Buffer.from(piece, 'utf8')
    : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
}

export function tooLarge(limit: number): SatchelError {
  return new SatchelError('TOO_LARGE', `content exceeds the maximum file size of ${limit} bytes`, {
    limit,
  });
}

/**
 * Consumes `content` once. Up to `inlineThreshold` bytes are buffered; past that, the buffered
 * prefix and the rest of the stream go to `blobs.put`, which hashes and stores them durably in
 * flat memory. TOO_LARGE past `maxFileSize` (nothing is kept).
 */
export async function ingest(
  content: Content,
  limits: IngestLimits,
  blobs: BlobStore,
): Promise<StoredContent> {
  if (typeof content === 'string' || content instanceof Uint8Array) {
    const data = toBuffer(content);
    if (data.byteLength > limits.maxFileSize) throw tooLarge(limits.maxFileSize);
    if (data.byteLength <= limits.inlineThreshold) return inlineContent(data);
    const ref = await blobs.put(single(data), { maxBytes: limits.maxFileSize });
    return {
      hash: ref.hash,
      size: ref.size,
      inline: null,
      ref,
      head: data.subarray(0, SNIFF_BYTES),
    };
  }
  const iterator = content[Symbol.asyncIterator]();
  const prefix: Buffer[] = [];
  let buffered = 0;
  for (;;) {
    const next = await iterator.next();
    if (next.done) return inlineContent(Buffer.concat(prefix, buffered));
    const piece = toBuffer(next.value);
    prefix.push(piece);
    buffered += piece.byteLength;
    if (buffered > limits.inlineThreshold) break;
  }
  const head = Buffer.concat(prefix, buffered).subarray(0, SNIFF_BYTES);
  const ref = await blobs.put(resume(prefix, iterator), { maxBytes: limits.maxFileSize });
  return { hash: ref.hash, size: ref.size, inline: null, ref, head };
}

function inlineContent(data: Buffer): StoredContent {
  const hash = createHash('sha256').update(data).digest('hex');
  return {
    hash,
    size: data.byteLength,
    inline: data,
    ref: null,
    head: data.subarray(0, SNIFF_BYTES),
  };
}

async function* single(data: Buffer): AsyncGenerator<Uint8Array> {
  yield data;
}

async function* resume(
  prefix: Buffer[],
  iterator: AsyncIterator<Uint8Array | string>,
): AsyncGenerator<Uint8Array> {
  try {
    // Hand pieces over one at a time so the prefix can be collected as it is consumed.
    while (prefix.length > 0) {
      const piece = prefix.shift();
      if (piece) yield piece;
    }
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield toBuffer(next.value);
    }
  } finally {
    // The store may stop early (TOO_LARGE, a failed write): release the caller's stream too.
    await iterator.return?.();
  }
}

/** The registry record for stored content. */
export function blobRecord(content: StoredContent, now: number): BlobRecord {
  return {
    hash: content.hash,
    size: content.size,
    location: content.inline ? 'inline' : 'store',
    data: content.inline,
    chunkSize: content.ref?.chunkSize ?? null,
    chunks: content.ref ? Buffer.from(content.ref.chunks) : null,
    createdAt: now,
  };
}

/** Seconds a writer whose content garbage collection removed waits before trying again. */
const COLLECTED_RETRY_SECONDS = 1;

/**
 * UNAVAILABLE (retryable): garbage collection removed this content between the write storing
 * it (or finding it stored) and the write's commit. Content the engine still holds in memory is
 * stored again and the commit retried (`retryCollected`); a consumed stream must be sent again.
 */
export function contentCollected(hash: string): SatchelError {
  return new SatchelError(
    'UNAVAILABLE',
    `content ${hash} was removed by garbage collection while this write stored it; retry in ` +
      `${COLLECTED_RETRY_SECONDS} s`,
    { hash, reason: 'content_collected', retryAfter: COLLECTED_RETRY_SECONDS },
  );
}

export function isContentCollected(error: unknown): boolean {
  return error instanceof SatchelError && error.data.reason === 'content_collected';
}

/**
 * Registers stored content in the transaction of the version that refers to it, so that
 * garbage collection and this write agree (docs/storage.md, "Garbage collection"): content
 * whose bytes are in the blob store counts as stored only if no collection is deleting it and
 * either its registry row still exists (the row's existence guarantees the bytes) or the blob
 * store has the bytes now, inside this transaction, where no collection can decide about it.
 * Throws `contentCollected` otherwise; nothing is registered then.
 */
export async function registerContent(
  tx: MetadataTx,
  blobs: BlobStore,
  content: StoredContent,
  now: number,
): Promise<void> {
  // Inline content carries its bytes in the row: re-registering it is always enough.
  if (content.inline) return tx.putBlob(blobRecord(content, now));
  if (await tx.gc.isDeleting(content.hash)) throw contentCollected(content.hash);
  if (await tx.content.registered(content.hash)) return;
  if (!content.ref || !(await blobs.has(content.hash))) throw contentCollected(content.hash);
  await tx.putBlob(blobRecord(content, now));
}

const COLLECTED_ATTEMPTS = 8;

/**
 * Runs `attempt` (store content, then commit it) again while garbage collection keeps removing
 * the content under it; only for content the caller can produce again (in memory).
 */
export async function retryCollected<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isContentCollected(error) || n >= COLLECTED_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * n));
    }
  }
}
