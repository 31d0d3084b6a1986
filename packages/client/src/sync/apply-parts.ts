/**
 * The one-by-one path's small pieces: how an error reads, whether a file is as scanned, and the
 * JSON batches of small uploads.
 */
import { isSatchelError } from '../errors.js';
import type { Upload } from './batch-apply.js';
import type { LocalFile } from './plan.js';
import type { TreeEntry } from './tree.js';

/** Small uploads per JSON batch (`writeFiles`, one transaction), and their bytes. */
const BATCH_FILES = 200;
const BATCH_BYTES = 2 * 1024 * 1024;

export function raced(error: unknown): boolean {
  return isSatchelError(error, 'PRECONDITION_FAILED') || isSatchelError(error, 'LOCKED');
}

export function typeMismatch(error: unknown): boolean {
  if (isSatchelError(error, 'CONFLICT')) return error.data.reason === 'type_mismatch';
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'EISDIR' || code === 'ENOTDIR' || code === 'EEXIST' || code === 'ENOTEMPTY';
}

export function unchangedSince(now: TreeEntry | null, scanned: LocalFile | null): boolean {
  if (scanned === null) return now === null;
  return now?.type === 'file' && now.size === scanned.size && now.mtimeMs === scanned.mtimeMs;
}

export async function readAll(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for await (const piece of source) pieces.push(Buffer.from(piece));
  return Buffer.concat(pieces);
}

export function* batches(uploads: readonly Upload[]): Generator<Upload[]> {
  let batch: Upload[] = [];
  let bytes = 0;
  for (const upload of uploads) {
    if (batch.length >= BATCH_FILES || bytes + upload.local.size > BATCH_BYTES) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(upload);
    bytes += upload.local.size;
  }
  if (batch.length > 0) yield batch;
}
