/**
 * Uploads a large file so that a dropped connection or a restarted client continues where the
 * server's copy ends instead of starting again (docs/api.md, "Large files"). Works over any
 * Satchel — `RemoteSatchel` is the one it pays off for — with the upload operations: a session
 * found again by path, size and SHA-256 (so a new process resumes without local state), parts
 * sent from the server's offset, and one completion that writes the file as a new version.
 */
import { createHash } from 'node:crypto';
import { isSatchelError, SatchelError } from '../errors.js';
import type { Satchel } from '../operations/satchel.js';
import type { FileInfo, Upload, WriteOptions } from '../schemas/index.js';

/** Files at least this large go through a resumable upload (CLI and sync; configurable). */
export const DEFAULT_RESUMABLE_THRESHOLD = 8 * 1024 * 1024;
/** Bytes per request: at most this much is sent again after a connection drops mid-part. */
export const DEFAULT_PART_SIZE = 8 * 1024 * 1024;

/** A file that can be read again from any offset (a local file, a file of a sync tree). */
export interface ResumableSource {
  readonly size: number;
  /** The bytes from `start` to the end. */
  open(start: number): AsyncIterable<Uint8Array>;
}

export interface ResumableUploadOptions extends WriteOptions {
  /** SHA-256 of the whole file, when the caller knows it; computed (one read) otherwise. */
  readonly sha256?: string;
  readonly partSize?: number;
  /** Attempts per part after a connection fault before giving up (default 5). */
  readonly retries?: number;
  /** The server already held `offset` bytes: a resumed upload. Called at most once. */
  readonly onResume?: (offset: number) => void;
  /** Bytes of the file that have reached the server or are on their way, absolute. */
  readonly onProgress?: (bytes: number) => void;
  /** Wait between attempts (ms, doubled each time; default 200). */
  readonly retryDelayMs?: number;
}

/** The SHA-256 of a source, read once. */
export async function sourceHash(source: ResumableSource): Promise<string> {
  const hash = createHash('sha256');
  for await (const piece of source.open(0)) hash.update(piece);
  return hash.digest('hex');
}

/** The bytes of `source` after skipping the first `skip` (for readers that cannot seek). */
export async function* skipBytes(
  source: AsyncIterable<Uint8Array>,
  skip: number,
): AsyncGenerator<Uint8Array> {
  let left = skip;
  for await (const piece of source) {
    if (left >= piece.byteLength) {
      left -= piece.byteLength;
      continue;
    }
    yield left > 0 ? piece.subarray(left) : piece;
    left = 0;
  }
}

/** At most `limit` bytes of `source`, counting them as they are handed on. */
async function* part(
  source: AsyncIterable<Uint8Array>,
  limit: number,
  sent: (n: number) => void,
): AsyncGenerator<Uint8Array> {
  let left = limit;
  const iterator = source[Symbol.asyncIterator]();
  try {
    while (left > 0) {
      const next = await iterator.next();
      if (next.done) return;
      const piece = next.value.byteLength > left ? next.value.subarray(0, left) : next.value;
      left -= piece.byteLength;
      sent(piece.byteLength);
      yield piece;
    }
  } finally {
    await iterator.return?.();
  }
}

/** A fault worth another attempt: the connection, or a server that is briefly unavailable. */
function transient(error: unknown): boolean {
  if (!isSatchelError(error)) return true;
  if (error.code === 'UNAVAILABLE') return true;
  return (
    error.code === 'INTERNAL' && /cannot reach|lost the connection|fetch failed/.test(error.message)
  );
}

/** The caller's unfinished upload of the same bytes to `path`, or a new one. */
async function session(
  satchel: Satchel,
  workspace: string,
  path: string,
  size: number,
  sha256: string,
  write: WriteOptions,
): Promise<Upload> {
  const open = await satchel.listUploads(workspace, { path });
  const same = open.find((u) => u.size === size && u.sha256 === sha256);
  return same ?? satchel.createUpload(workspace, path, { ...write, size, sha256 });
}

/**
 * Uploads `source` to `path` as one new version, resuming an unfinished upload of the same
 * bytes by this principal if there is one. Connection faults are retried from the server's
 * offset (`retries` per part); any other error is thrown, leaving the session to resume later.
 */
export async function resumableUpload(
  satchel: Satchel,
  workspace: string,
  path: string,
  source: ResumableSource,
  options: ResumableUploadOptions = {},
): Promise<FileInfo> {
  const {
    sha256: given,
    partSize = DEFAULT_PART_SIZE,
    retries = 5,
    onResume,
    onProgress,
    retryDelayMs = 200,
    ...write
  } = options;
  const sha256 = given ?? (await sourceHash(source));
  const upload = await session(satchel, workspace, path, source.size, sha256, write);
  let offset = upload.offset;
  if (offset > 0) onResume?.(offset);
  onProgress?.(offset);
  let failures = 0;
  while (offset < source.size) {
    const start = offset;
    let sent = 0;
    try {
      const body = part(source.open(start), partSize, (n) => {
        sent += n;
        onProgress?.(start + sent);
      });
      offset = (await satchel.appendUpload(workspace, upload.id, start, body)).offset;
      failures = 0;
      if (offset === start) {
        throw new SatchelError(
          'INVALID_INPUT',
          `${path}: the source ended at ${start} of ${source.size} bytes (did it change?)`,
          { path },
        );
      }
    } catch (error) {
      if (isSatchelError(error, 'CONFLICT') && typeof error.data.offset === 'number') {
        offset = error.data.offset;
      } else if (transient(error) && failures < retries) {
        failures += 1;
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs * 2 ** (failures - 1)));
        offset = (await satchel.getUpload(workspace, upload.id)).offset;
      } else {
        throw error;
      }
      onProgress?.(offset);
    }
  }
  return satchel.completeUpload(workspace, upload.id);
}
