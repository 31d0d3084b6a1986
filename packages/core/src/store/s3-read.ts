/**
 * Verified reads from S3 (S3BlobStore.get): a ranged GET aligned to the verification chunks; each
 * chunk is hashed and compared with the ref's digest before its bytes are yielded. A body that
 * breaks off is fetched again from the chunk it stopped in (reads are idempotent); a chunk that
 * fails verification is fetched once more (a damaged transfer) and then fails with INTEGRITY.
 */
import type { Readable } from 'node:stream';
import type { GetObjectCommandOutput, S3Client } from '@aws-sdk/client-s3';
import { SatchelError } from '@satchel/client/errors.js';
import type { BlobRef } from './blob-store.js';
import { integrityError, verifyChunk } from './content-hash.js';
import { s3Sdk } from './lazy-sdks.js';
import { isNotFound, storeError } from './s3-multipart.js';

/** Attempts of a ranged GET whose body failed part-way (the SDK retries failed requests). */
const READ_ATTEMPTS = 3;

/** Thrown inside `readChunks` to fetch again from the chunk being read. */
class RetryRead extends Error {}

/** A body that broke off: reset, timeout, premature close. Worth another GET. */
function isTransferError(error: unknown): boolean {
  if (error instanceof SatchelError) return false;
  return error instanceof Error;
}

/**
 * Bytes [start, end) of `ref` (start < end), verified chunk by chunk; `fetch(from, to)` returns
 * the body of bytes [from, to) of the object.
 */
export async function* readChunks(
  ref: BlobRef,
  start: number,
  end: number,
  fetch: (from: number, to: number) => Promise<Readable>,
): AsyncIterable<Uint8Array> {
  const last = Math.floor((end - 1) / ref.chunkSize);
  let index = Math.floor(start / ref.chunkSize);
  let failures = 0;
  let reread = -1;
  while (index <= last) {
    const from = index * ref.chunkSize;
    const to = Math.min((last + 1) * ref.chunkSize, ref.size);
    const body = await fetch(from, to);
    try {
      // A fresh buffer per chunk: callers may keep what they were given.
      let chunk = Buffer.allocUnsafe(Math.min(ref.chunkSize, ref.size - from));
      let filled = 0;
      for await (const piece of body as AsyncIterable<Buffer>) {
        for (let offset = 0; offset < piece.byteLength; ) {
          const position = index * ref.chunkSize;
          if (index > last) throw integrityError(ref.hash, 'the store sent more bytes than asked');
          const take = Math.min(chunk.byteLength - filled, piece.byteLength - offset);
          piece.copy(chunk, filled, offset, offset + take);
          filled += take;
          offset += take;
          if (filled < chunk.byteLength) continue;
          try {
            verifyChunk(ref, index, chunk);
          } catch (error) {
            // Damaged on the way, or at rest: fetch this chunk once more before saying so.
            if (reread === index) throw error;
            reread = index;
            throw new RetryRead();
          }
          yield chunk.subarray(
            Math.max(start - position, 0),
            Math.min(end - position, chunk.length),
          );
          index++;
          filled = 0;
          if (index <= last)
            chunk = Buffer.allocUnsafe(Math.min(ref.chunkSize, ref.size - index * ref.chunkSize));
        }
      }
      if (index <= last) throw new RetryRead('the body ended early');
    } catch (error) {
      if (!(error instanceof RetryRead) && !isTransferError(error)) throw error;
      if (error instanceof RetryRead && reread === index) {
        failures = 0; // a verification re-read does not use up transfer retries
      } else if (++failures >= READ_ATTEMPTS) {
        throw storeError(`reading ${ref.hash.slice(0, 12)}…`, error);
      }
    } finally {
      body.destroy();
    }
  }
}

/** The body of bytes [from, to) of `key` (to > from), after checking the object's size. */
export async function getRange(
  s3: S3Client,
  bucket: string,
  key: string,
  ref: BlobRef,
  from: number,
  to: number,
): Promise<Readable> {
  let out: GetObjectCommandOutput;
  try {
    out = await s3.send(
      new (s3Sdk().GetObjectCommand)({
        Bucket: bucket,
        Key: key,
        Range: `bytes=${from}-${to - 1}`,
      }),
    );
  } catch (error) {
    if (isNotFound(error)) throw integrityError(ref.hash, 'content is missing');
    if (error instanceof Error && error.name === 'InvalidRange') {
      throw integrityError(ref.hash, `content is shorter than ${ref.size} bytes`);
    }
    throw storeError(`reading ${ref.hash.slice(0, 12)}…`, error);
  }
  const body = out.Body as Readable;
  const total = Number(out.ContentRange?.split('/')[1]);
  if (Number.isFinite(total) && total !== ref.size) {
    body.destroy();
    throw integrityError(ref.hash, `size is ${total} bytes, ${ref.size} expected`);
  }
  return body;
}
