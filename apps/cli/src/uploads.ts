/**
 * Large files to a server: `put` and `sync` send files of at least the threshold (default
 * 8 MiB, SATCHEL_UPLOAD_THRESHOLD) as resumable uploads, so a dropped connection or a restarted
 * command continues from the server's offset; the progress bar shows the resumed part. Loaded
 * by the commands that send files, when they run: it loads the HTTP client.
 */
import { createReadStream } from 'node:fs';
import { RemoteSatchel } from '@satchel/client/remote/remote-satchel.js';
import {
  DEFAULT_RESUMABLE_THRESHOLD,
  type ResumableUploadOptions,
  resumableUpload,
} from '@satchel/client/transfer/resumable-upload.js';
import type { FileInfo, Satchel, WriteOptions } from '@satchel/core';
import { usageError } from './errors.js';
import type { Progress } from './progress.js';

const UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1000,
  kb: 1000,
  kib: 1024,
  m: 1000 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1000 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
};

/** SATCHEL_UPLOAD_THRESHOLD as bytes: `8388608`, `8MiB`, `10MB`; `off` never resumes. */
export function uploadThreshold(value: string | undefined): number {
  if (value === undefined) return DEFAULT_RESUMABLE_THRESHOLD;
  if (value.trim().toLowerCase() === 'off') return Number.POSITIVE_INFINITY;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = UNITS[match?.[2]?.toLowerCase() ?? 'x'];
  if (!match || unit === undefined) {
    throw usageError(
      `invalid SATCHEL_UPLOAD_THRESHOLD ${JSON.stringify(value)}`,
      'give bytes, e.g. 8MiB, 50MB or 1048576, or off',
    );
  }
  return Math.round(Number(match[1]) * unit);
}

/** Whether a file of `size` bytes goes to `satchel` as a resumable upload. */
export function resumes(satchel: Satchel, size: number | null, threshold: number): boolean {
  return satchel instanceof RemoteSatchel && size !== null && size >= threshold;
}

/** Uploads the local file `file` (`size` bytes) to `path`, resuming, with `bar` showing it. */
export function putResumable(
  satchel: Satchel,
  workspace: string,
  path: string,
  file: { readonly absolute: string; readonly size: number },
  options: WriteOptions,
  bar: Progress,
  more: Partial<ResumableUploadOptions> = {},
): Promise<FileInfo> {
  return resumableUpload(
    satchel,
    workspace,
    path,
    {
      size: file.size,
      open: (start) => createReadStream(file.absolute, { start, highWaterMark: 1024 * 1024 }),
    },
    {
      ...options,
      ...more,
      onResume: (offset) => bar.resume(offset),
      onProgress: (bytes) => bar.set(bytes),
    },
  );
}
