/**
 * BlobStore in an S3-compatible bucket: write-once objects at `<prefix>blobs/<hash>`.
 *
 * put: bytes are hashed while they stream out in parts (bounded memory: `concurrency` parts in
 * flight, each sent with Content-MD5 so the server refuses damaged parts). Content smaller than
 * one part goes straight to its name with one `PutObject` `If-None-Match: *`; bigger content goes
 * to a temporary key `<prefix>tmp/<random>` by multipart upload, and once its hash is known is
 * copied server-side to its name with `CopyObject` `If-None-Match: *` (beyond 5 GiB: a multipart
 * copy completed with `If-None-Match: *`), after a HEAD showed the name free. An existing name
 * is never replaced unless its content fails verification (then the new bytes, which hash to the
 * name, take its place — as `FsBlobStore` does). Where a server ignores `If-None-Match`, the
 * race between HEAD and copy can at worst overwrite content with identical bytes (same hash),
 * which readers cannot tell apart: S3 replaces objects atomically. See docs/storage.md.
 *
 * get: verified, chunk-aligned ranged GETs (s3-read.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { SatchelError } from '@satchel/client/errors.js';
import type { BlobPutOptions, BlobRef, BlobStore } from './blob-store.js';
import {
  checkHash,
  checkRef,
  DEFAULT_CHUNK_SIZE,
  integrityError,
  isHash,
  resolveRange,
  verifyChunk,
} from './content-hash.js';
import { s3Sdk } from './lazy-sdks.js';
import {
  checkPartSize,
  copySource,
  etagContradicts,
  isNotFound,
  isTaken,
  MAX_COPY_OBJECT,
  MIB,
  MultipartUpload,
  makeS3Client,
  md5Base64,
  partSizeFor,
  type S3ClientSettings,
  storeError,
} from './s3-multipart.js';
import { getRange, readChunks } from './s3-read.js';
import { StreamHasher } from './stream-hasher.js';

export interface S3BlobStoreOptions extends S3ClientSettings {
  readonly bucket: string;
  /** Key prefix, e.g. "satchel/" (a trailing slash is added when missing; default none). */
  readonly prefix?: string;
  /** Verification chunk size recorded in the refs `put` returns (default 1 MiB). */
  readonly chunkSize?: number;
  /**
   * Upload part size, at least 5 MiB (default 5 MiB, S3's smallest: parts are held in memory
   * until stored, so the size times `concurrency` is what an upload holds); also the "small
   * content" cut-off.
   */
  readonly partSize?: number;
  /** Parts uploading at once (default 4): memory is about concurrency × partSize. */
  readonly concurrency?: number;
  /** Largest content published with one CopyObject (default 5 GiB, S3's limit); tests lower it. */
  readonly maxCopyObject?: number;
  /** Part size of the multipart copy beyond `maxCopyObject` (default 1 GiB). */
  readonly copyPartSize?: number;
  /** An already made client (tests, benchmarks); otherwise one is made from the settings. */
  readonly client?: S3Client;
}

export class S3BlobStore implements BlobStore {
  readonly #s3: S3Client;
  readonly #ownsClient: boolean;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #chunkSize: number;
  readonly #partSize: number;
  readonly #concurrency: number;
  readonly #maxCopyObject: number;
  readonly #copyPartSize: number;
  /** Spare part buffers of the base size, reused across puts so memory stays flat. */
  readonly #spare: Buffer[] = [];

  /** Errors: INVALID_INPUT for bad sizes or an empty bucket name. */
  constructor(options: S3BlobStoreOptions) {
    if (options.bucket === '') throw new SatchelError('INVALID_INPUT', 'S3 bucket name is empty');
    const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
    if (!Number.isSafeInteger(chunkSize) || chunkSize <= 0) {
      throw new SatchelError(
        'INVALID_INPUT',
        `chunk size must be a positive integer, got ${chunkSize}`,
      );
    }
    this.#partSize = options.partSize ?? 5 * MIB;
    checkPartSize(this.#partSize);
    this.#copyPartSize = options.copyPartSize ?? 1024 * MIB;
    checkPartSize(this.#copyPartSize);
    this.#chunkSize = chunkSize;
    this.#concurrency = Math.max(1, options.concurrency ?? 4);
    this.#maxCopyObject = options.maxCopyObject ?? MAX_COPY_OBJECT;
    this.#bucket = options.bucket;
    const prefix = options.prefix ?? '';
    this.#prefix = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
    this.#ownsClient = options.client === undefined;
    this.#s3 = options.client ?? makeS3Client(options);
  }

  /** Where this store keeps content, as `s3://bucket/prefix`. */
  get location(): string {
    return `s3://${this.#bucket}/${this.#prefix}`;
  }

  close(): void {
    if (this.#ownsClient) this.#s3.destroy();
  }

  async put(source: AsyncIterable<Uint8Array>, options: BlobPutOptions = {}): Promise<BlobRef> {
    const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    const hasher = new StreamHasher(this.#chunkSize);
    const tempKey = `${this.#prefix}tmp/${randomUUID()}`;
    let upload: MultipartUpload | undefined;
    let multipart = false;
    let part = this.#takeBuffer(this.#partSize);
    let filled = 0;
    try {
      for await (const piece of source) {
        if (hasher.size + piece.byteLength > maxBytes) throw tooLarge(maxBytes);
        const hashed = hasher.update(piece);
        for (let offset = 0; offset < piece.byteLength; ) {
          const take = Math.min(part.byteLength - filled, piece.byteLength - offset);
          part.set(piece.subarray(offset, offset + take), filled);
          filled += take;
          offset += take;
          if (filled < part.byteLength) continue;
          multipart = true;
          upload ??= await MultipartUpload.start(
            this.#s3,
            this.#bucket,
            tempKey,
            this.#concurrency,
          );
          const full = part;
          await upload.add(full, () => this.#giveBack(full));
          part = this.#takeBuffer(partSizeFor(upload.parts + 1, this.#partSize));
          filled = 0;
        }
        if (hashed) await hashed;
      }
      const digest = await hasher.digest();
      const key = this.#keyOf(digest.hash);
      if (upload === undefined) {
        await this.#putSmall(key, digest.hash, part.subarray(0, filled)).catch((error) => {
          throw storeError('storing content', error);
        });
      } else {
        if (filled > 0) await upload.add(part.subarray(0, filled));
        await upload.complete().catch((error) => {
          throw storeError('completing an upload', error);
        });
        upload = undefined; // complete: nothing left to abort
        await this.#publish(tempKey, key, digest.hash, digest.size).catch((error) => {
          throw storeError('publishing content under its name', error);
        });
      }
      return {
        hash: digest.hash,
        size: digest.size,
        chunkSize: digest.chunkSize,
        chunks: digest.chunks,
      };
    } catch (error) {
      // The source's own error, TOO_LARGE, or the store's (UNAVAILABLE, INTEGRITY) as it came.
      await upload?.abort();
      throw error;
    } finally {
      this.#giveBack(part);
      // The temp object is gone whether the put worked or not (a lifecycle rule catches a crash).
      if (multipart) await this.#deleteKey(tempKey).catch(() => undefined);
    }
  }

  async *get(ref: BlobRef, range?: { start: number; end: number }): AsyncIterable<Uint8Array> {
    checkRef(ref);
    const { start, end } = resolveRange(ref, range);
    const key = this.#keyOf(ref.hash);
    if (ref.size === 0 || start === end) {
      await this.#checkSize(ref, key);
      if (ref.size === 0) verifyChunk(ref, 0, new Uint8Array(0));
      return;
    }
    yield* readChunks(ref, start, end, (from, to) =>
      getRange(this.#s3, this.#bucket, key, ref, from, to),
    );
  }

  async has(hash: string): Promise<boolean> {
    checkHash(hash);
    return (await this.#head(this.#keyOf(hash))) !== null;
  }

  async verify(hash: string): Promise<'ok' | 'missing' | 'corrupt'> {
    checkHash(hash);
    let body: Readable;
    try {
      const out = await this.#s3.send(
        new (s3Sdk().GetObjectCommand)({ Bucket: this.#bucket, Key: this.#keyOf(hash) }),
      );
      body = out.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) return 'missing';
      throw storeError('verifying content', error);
    }
    try {
      const sha = createHash('sha256');
      for await (const piece of body as AsyncIterable<Buffer>) sha.update(piece);
      return sha.digest('hex') === hash ? 'ok' : 'corrupt';
    } catch (error) {
      throw storeError('verifying content', error);
    } finally {
      body.destroy();
    }
  }

  async *list(): AsyncIterable<string> {
    const prefix = `${this.#prefix}blobs/`;
    let token: string | undefined;
    do {
      const page = await this.#s3
        .send(
          new (s3Sdk().ListObjectsV2Command)({
            Bucket: this.#bucket,
            Prefix: prefix,
            ...(token === undefined ? {} : { ContinuationToken: token }),
          }),
        )
        .catch((error) => {
          throw storeError('listing content', error);
        });
      for (const object of page.Contents ?? []) {
        const name = object.Key?.slice(prefix.length) ?? '';
        if (isHash(name)) yield name;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  async delete(hash: string): Promise<void> {
    checkHash(hash);
    await this.#deleteKey(this.#keyOf(hash)).catch((error) => {
      throw storeError('deleting content', error);
    });
  }

  #keyOf(hash: string): string {
    return `${this.#prefix}blobs/${hash}`;
  }

  /** One conditional PutObject straight under the content's name. */
  async #putSmall(key: string, hash: string, body: Buffer): Promise<void> {
    const md5 = md5Base64(body);
    const send = async (conditional: boolean) => {
      const out = await this.#s3.send(
        new (s3Sdk().PutObjectCommand)({
          Bucket: this.#bucket,
          Key: key,
          Body: body,
          ContentMD5: md5,
          ContentLength: body.byteLength,
          ...(conditional ? { IfNoneMatch: '*' } : {}),
        }),
      );
      if (etagContradicts(out.ETag, md5)) {
        throw new SatchelError('INTEGRITY', 'the object store stored other bytes than were sent');
      }
    };
    try {
      await send(true);
    } catch (error) {
      if (!isTaken(error)) throw error;
      await this.#whenTaken(hash, () => send(false));
    }
  }

  /** Makes the uploaded temp object visible under its name without replacing intact content. */
  async #publish(tempKey: string, key: string, hash: string, size: number): Promise<void> {
    const copy = async (conditional: boolean) => {
      if (size <= this.#maxCopyObject) {
        await this.#s3.send(
          new (s3Sdk().CopyObjectCommand)({
            Bucket: this.#bucket,
            Key: key,
            CopySource: copySource(this.#bucket, tempKey),
            ...(conditional ? { IfNoneMatch: '*' } : {}),
          }),
        );
        return;
      }
      const upload = await MultipartUpload.start(this.#s3, this.#bucket, key, 1, conditional);
      try {
        for (let from = 0; from < size; from += this.#copyPartSize) {
          await upload.addCopy(tempKey, from, Math.min(from + this.#copyPartSize, size));
        }
        await upload.complete();
      } catch (error) {
        await upload.abort();
        throw error;
      }
    };
    // A HEAD first: cheap next to a copy, and it keeps servers without conditional writes from
    // rewriting content that is already there (but for the harmless race described above).
    if ((await this.#head(key)) !== null) {
      await this.#whenTaken(hash, () => copy(false));
      return;
    }
    try {
      await copy(true);
    } catch (error) {
      if (!isTaken(error)) throw error;
      await this.#whenTaken(hash, () => copy(false));
    }
  }

  /** The name is taken: keep intact content; put ours in place of content that is damaged. */
  async #whenTaken(hash: string, replace: () => Promise<void>): Promise<void> {
    if ((await this.verify(hash)) !== 'ok') await replace();
  }

  async #head(key: string): Promise<{ size: number } | null> {
    try {
      const out = await this.#s3.send(
        new (s3Sdk().HeadObjectCommand)({ Bucket: this.#bucket, Key: key }),
      );
      return { size: out.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw storeError('looking up content', error);
    }
  }

  async #checkSize(ref: BlobRef, key: string): Promise<void> {
    const head = await this.#head(key);
    if (head === null) throw integrityError(ref.hash, 'content is missing');
    if (head.size !== ref.size) {
      throw integrityError(ref.hash, `size is ${head.size} bytes, ${ref.size} expected`);
    }
  }

  async #deleteKey(key: string): Promise<void> {
    await this.#s3.send(new (s3Sdk().DeleteObjectCommand)({ Bucket: this.#bucket, Key: key }));
  }

  #takeBuffer(size: number): Buffer {
    if (size === this.#partSize) {
      const spare = this.#spare.pop();
      if (spare) return spare;
    }
    return Buffer.allocUnsafe(size);
  }

  #giveBack(buffer: Buffer): void {
    // One put holds at most `concurrency` buffers (one filling while the others upload).
    if (buffer.byteLength === this.#partSize && this.#spare.length < this.#concurrency) {
      this.#spare.push(buffer);
    }
  }
}

function tooLarge(maxBytes: number): SatchelError {
  return new SatchelError('TOO_LARGE', `content exceeds the limit of ${maxBytes} bytes`, {
    maxBytes,
  });
}
