/**
 * `satchel migrate --to-blobs`: copies a data directory's content (its blob folder) into another
 * content store, usually an S3-compatible bucket. Resumable: content the target already holds
 * intact is skipped, so an interrupted run continues where it stopped. Verified: the target
 * hashes what it receives (content whose bytes do not hash to their name fails the run with
 * INTEGRITY, the source being damaged), and at the end every blob is read back from the target
 * and checked against its name. The source is only read; nothing is removed from it.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SatchelError } from '@satchel/client/errors.js';
import { FsBlobStore } from '../store/fs-blob-store.js';
import { BLOBS_DIR, type BlobsConfig, describeBlobs, openBlobs } from '../store/open-stores.js';

export interface MigrateBlobsOptions {
  /** The data directory whose `blobs/` folder is copied. */
  readonly data: string;
  /** Where the content goes (an S3 bucket, or another directory). */
  readonly target: BlobsConfig;
  /** Stops between blobs (AbortError); a re-run continues. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: MigrateBlobsProgress) => void;
}

export interface MigrateBlobsProgress {
  readonly phase: 'scan' | 'copy' | 'verify';
  /** Blobs handled so far in this phase, of `total`. */
  readonly done: number;
  readonly total: number;
  /** Bytes copied so far (phase copy) or checked (phase verify). */
  readonly bytes: number;
}

export interface MigrateBlobsReport {
  readonly ok: true;
  readonly source: string;
  readonly target: string;
  /** Blobs in the source. */
  readonly blobs: number;
  /** Blobs this run copied, and their bytes. */
  readonly copied: number;
  readonly copiedBytes: number;
  /** Blobs the target already held intact (an earlier, interrupted run, or shared content). */
  readonly skipped: number;
  /** Blobs read back from the target and found intact. */
  readonly verified: number;
}

/**
 * Copies and verifies. NOT_FOUND without a blob folder in `data`; INVALID_INPUT when the target
 * is the source folder; INTEGRITY for source content that does not hash to its name or target
 * content that fails the final check; UNAVAILABLE when the target cannot be reached.
 */
export async function migrateBlobs(options: MigrateBlobsOptions): Promise<MigrateBlobsReport> {
  const data = resolve(options.data);
  const dir = join(data, BLOBS_DIR);
  if (!existsSync(dir)) {
    throw new SatchelError('NOT_FOUND', `no Satchel content at ${dir}`, { data });
  }
  if (options.target.kind === 'directory' && resolve(options.target.path) === dir) {
    throw new SatchelError('INVALID_INPUT', `--to-blobs names the source itself (${dir})`);
  }
  const source = await FsBlobStore.open(dir);
  const target = await openBlobs(options.target);
  const progress = (
    phase: MigrateBlobsProgress['phase'],
    done: number,
    total: number,
    bytes: number,
  ) => options.onProgress?.({ phase, done, total, bytes });
  try {
    const hashes: string[] = [];
    for await (const hash of source.list()) hashes.push(hash);
    hashes.sort();
    progress('scan', 0, hashes.length, 0);
    let copied = 0;
    let copiedBytes = 0;
    let skipped = 0;
    let done = 0;
    for (const hash of hashes) {
      options.signal?.throwIfAborted();
      if ((await target.has(hash)) && (await target.verify(hash)) === 'ok') {
        skipped++;
      } else {
        const { size, bytes } = await source.raw(hash);
        const ref = await target.put(bytes);
        if (ref.hash !== hash) {
          // The target keeps content under the hash of what it got: take that back out.
          await target.delete(ref.hash).catch(() => undefined);
          throw new SatchelError(
            'INTEGRITY',
            `source content ${hash.slice(0, 12)}… is damaged (its bytes hash to ${ref.hash.slice(0, 12)}…); run satchel fsck`,
            { hash, reason: 'source_corrupt' },
          );
        }
        copied++;
        copiedBytes += size;
      }
      progress('copy', ++done, hashes.length, copiedBytes);
    }
    let verified = 0;
    for (const hash of hashes) {
      options.signal?.throwIfAborted();
      const state = await target.verify(hash);
      if (state !== 'ok') {
        throw new SatchelError(
          'INTEGRITY',
          `content ${hash.slice(0, 12)}… is ${state} in ${describeBlobs(options.target)} after the copy`,
          { hash, reason: `target_${state}` },
        );
      }
      progress('verify', ++verified, hashes.length, 0);
    }
    return {
      ok: true,
      source: dir,
      target: describeBlobs(options.target),
      blobs: hashes.length,
      copied,
      copiedBytes,
      skipped,
      verified,
    };
  } finally {
    target.close?.();
  }
}
