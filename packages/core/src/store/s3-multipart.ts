/**
 * Low-level S3 pieces of `S3BlobStore`: the client it is built on, a multipart upload with a
 * bounded number of parts in flight, and the mapping of S3 errors to Satchel's codes.
 */
import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { SatchelError } from '@satchel/client/errors.js';
import { s3Sdk } from './lazy-sdks.js';

export const MIB = 1024 * 1024;
/** S3's smallest part (except the last) and most parts in one upload. */
const MIN_PART = 5 * MIB;
const MAX_PARTS = 10_000;
/** Largest object a single CopyObject may copy (S3's limit). */
export const MAX_COPY_OBJECT = 5 * 1024 * MIB;

/** Where the client connects; unset fields come from the AWS SDK's usual sources (env, files). */
export interface S3ClientSettings {
  readonly endpoint?: string;
  readonly region?: string;
  readonly forcePathStyle?: boolean;
  readonly credentials?: {
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
    readonly sessionToken?: string;
  };
  /** Attempts per request, retries included (default 3; the SDK retries 5xx, throttling, resets). */
  readonly maxAttempts?: number;
  /** Milliseconds a request may sit without progress before it fails (default 60 000). */
  readonly requestTimeout?: number;
  /** Milliseconds to connect (default 10 000). */
  readonly connectionTimeout?: number;
}

export function makeS3Client(settings: S3ClientSettings): S3Client {
  return new (s3Sdk().S3Client)({
    ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
    region:
      settings.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
    ...(settings.forcePathStyle === undefined ? {} : { forcePathStyle: settings.forcePathStyle }),
    ...(settings.credentials === undefined ? {} : { credentials: settings.credentials }),
    maxAttempts: settings.maxAttempts ?? 3,
    // Bodies are whole Buffers sent with Content-MD5, which every S3-compatible server checks;
    // CRC trailers (aws-chunked) are not understood by many of them. Reads verify our own digests.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      // Idle time on the socket (no byte either way), also while a body streams; a stall fails
      // the request, which the SDK (or `get`, for a body) retries.
      socketTimeout: settings.requestTimeout ?? 60_000,
      connectionTimeout: settings.connectionTimeout ?? 10_000,
    },
  });
}

export function md5Base64(data: Uint8Array): string {
  return createHash('md5').update(data).digest('base64');
}

/** Whether an S3 ETag (quoted MD5 hex for plain parts and objects) contradicts `data`'s MD5. */
export function etagContradicts(etag: string | undefined, md5: string): boolean {
  const hex = etag?.replaceAll('"', '').toLowerCase();
  if (hex === undefined || !/^[0-9a-f]{32}$/.test(hex)) return false; // SSE-KMS etc.: no MD5
  return hex !== Buffer.from(md5, 'base64').toString('hex');
}

export function s3Status(error: unknown): number | undefined {
  if (error instanceof s3Sdk().S3ServiceException) return error.$metadata.httpStatusCode;
  return undefined;
}

export function isNotFound(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'NoSuchKey' ||
    error.name === 'NotFound' ||
    (error instanceof s3Sdk().S3ServiceException && s3Status(error) === 404)
  );
}

/** 412: `If-None-Match: *` found the key taken. 409: a concurrent conditional write to it. */
export function isTaken(error: unknown): boolean {
  const status = s3Status(error);
  return status === 412 || status === 409;
}

/** Anything the object store did wrong, as UNAVAILABLE naming what failed; ours pass through. */
export function storeError(what: string, error: unknown): unknown {
  if (error instanceof SatchelError) return error;
  if (error instanceof Error && error.name === 'AbortError') return error;
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new SatchelError('UNAVAILABLE', `object store: ${what} failed (${reason})`, {
    reason,
    retryAfter: 5,
  });
}

/** Part size for part `n` (1-based): `base`, doubled every 1000 parts so 10 000 parts reach far. */
export function partSizeFor(n: number, base: number): number {
  return base * 2 ** Math.floor((n - 1) / 1000);
}

export function checkPartSize(partSize: number): void {
  if (!Number.isSafeInteger(partSize) || partSize < MIN_PART) {
    throw new SatchelError('INVALID_INPUT', `S3 part size must be at least 5 MiB, got ${partSize}`);
  }
}

interface Part {
  readonly PartNumber: number;
  readonly ETag: string;
}

/**
 * One multipart upload to `key`. `add` hands a part over and returns once fewer than
 * `concurrency` parts are in flight (back-pressure); each part is retried by the SDK (its body is
 * a Buffer, so a retry resends the same bytes) and checked by the server against its Content-MD5.
 */
export class MultipartUpload {
  readonly #parts: Part[] = [];
  readonly #inflight = new Set<Promise<void>>();
  #failure: { error: unknown } | null = null;
  #count = 0;

  private constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly key: string,
    private readonly uploadId: string,
    private readonly concurrency: number,
    private readonly ifNoneMatch: boolean,
  ) {}

  static async start(
    s3: S3Client,
    bucket: string,
    key: string,
    concurrency: number,
    ifNoneMatch = false,
  ): Promise<MultipartUpload> {
    const created = await s3
      .send(new (s3Sdk().CreateMultipartUploadCommand)({ Bucket: bucket, Key: key }))
      .catch((error) => {
        throw storeError('starting an upload', error);
      });
    if (created.UploadId === undefined) throw storeError('starting an upload', 'no upload id');
    return new MultipartUpload(s3, bucket, key, created.UploadId, concurrency, ifNoneMatch);
  }

  get parts(): number {
    return this.#count;
  }

  /** Uploads `body` as the next part; `onDone` runs when it is stored (to recycle the buffer). */
  async add(body: Buffer, onDone?: () => void): Promise<void> {
    this.#throwIfFailed();
    const partNumber = ++this.#count;
    if (partNumber > MAX_PARTS) {
      throw new SatchelError('TOO_LARGE', `content needs more than ${MAX_PARTS} S3 parts`);
    }
    const md5 = md5Base64(body);
    const sent = this.s3
      .send(
        new (s3Sdk().UploadPartCommand)({
          Bucket: this.bucket,
          Key: this.key,
          UploadId: this.uploadId,
          PartNumber: partNumber,
          Body: body,
          ContentMD5: md5,
          ContentLength: body.byteLength,
        }),
      )
      .then((out) => {
        if (out.ETag === undefined || etagContradicts(out.ETag, md5)) {
          throw new SatchelError(
            'INTEGRITY',
            `object store stored part ${partNumber} with other bytes than were sent`,
          );
        }
        this.#parts[partNumber - 1] = { PartNumber: partNumber, ETag: out.ETag };
        onDone?.();
      })
      .catch((error: unknown) => {
        this.#failure ??= { error: storeError(`uploading part ${partNumber}`, error) };
      });
    const tracked = sent.finally(() => this.#inflight.delete(tracked));
    this.#inflight.add(tracked);
    while (this.#inflight.size >= this.concurrency) await Promise.race(this.#inflight);
    this.#throwIfFailed();
  }

  /** Copies bytes [start, end) of `sourceKey` as the next part (server-side). */
  async addCopy(sourceKey: string, start: number, end: number): Promise<void> {
    const partNumber = ++this.#count;
    const out = await this.s3
      .send(
        new (s3Sdk().UploadPartCopyCommand)({
          Bucket: this.bucket,
          Key: this.key,
          UploadId: this.uploadId,
          PartNumber: partNumber,
          CopySource: copySource(this.bucket, sourceKey),
          CopySourceRange: `bytes=${start}-${end - 1}`,
        }),
      )
      .catch((error) => {
        throw storeError(`copying part ${partNumber}`, error);
      });
    const etag = out.CopyPartResult?.ETag;
    if (etag === undefined) throw storeError(`copying part ${partNumber}`, 'no ETag');
    this.#parts[partNumber - 1] = { PartNumber: partNumber, ETag: etag };
  }

  /** Waits for every part and completes the upload; errors as S3 gave them (412 included). */
  async complete(): Promise<void> {
    await Promise.all(this.#inflight);
    this.#throwIfFailed();
    await this.s3.send(
      new (s3Sdk().CompleteMultipartUploadCommand)({
        Bucket: this.bucket,
        Key: this.key,
        UploadId: this.uploadId,
        MultipartUpload: { Parts: this.#parts },
        ...(this.ifNoneMatch ? { IfNoneMatch: '*' } : {}),
      }),
    );
  }

  /** Drops the parts sent so far (best effort: a bucket lifecycle rule catches what is left). */
  async abort(): Promise<void> {
    await Promise.all(this.#inflight);
    await this.s3
      .send(
        new (s3Sdk().AbortMultipartUploadCommand)({
          Bucket: this.bucket,
          Key: this.key,
          UploadId: this.uploadId,
        }),
      )
      .catch(() => undefined);
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure.error;
  }
}

/** The x-amz-copy-source value naming `key` in `bucket` (path segments URI-encoded). */
export function copySource(bucket: string, key: string): string {
  return `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}
