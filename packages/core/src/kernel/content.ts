/** Reading stored content back, verified: inline content by its hash, large content per chunk. */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { SatchelError } from '@satchel/client/errors.js';
import { baseName } from '@satchel/client/paths.js';
import type MimeTypes from 'mime-types';
import { integrityError } from '../store/content-hash.js';
import type { BlobRecord, MetadataQueries } from '../store/metadata/metadata-store.js';
import type { EngineContext } from './context.js';
import { knownGood, rememberGood } from './verified-inline.js';

/** The registered content of `hash`; an integrity error when the registry lacks it. */
export async function requireBlob(q: MetadataQueries, hash: string): Promise<BlobRecord> {
  const row = await q.getBlob(hash);
  if (!row) throw integrityError(hash, 'content is not registered');
  return row;
}

/**
 * The content of an inline blob, verified against its hash (INTEGRITY if it does not match).
 * `remember: false` verifies without keeping a copy for later reads (verified-inline.ts): a batch
 * download reads each file once, and its copies would only push out content read again and again.
 */
export function inlineBytes(row: BlobRecord, { remember = true } = {}): Uint8Array {
  const data = row.data ?? new Uint8Array(0);
  if (knownGood(row.hash, data)) return data;
  if (createHash('sha256').update(data).digest('hex') !== row.hash) {
    throw integrityError(row.hash, 'inline content does not match its hash');
  }
  if (remember) rememberGood(row.hash, data);
  return data;
}

/** Bytes [start, end) of a blob; nothing is yielded from content that fails verification. */
export async function* blobBytes(
  ctx: Pick<EngineContext, 'blobs'>,
  row: BlobRecord,
  start: number,
  end: number,
): AsyncGenerator<Uint8Array> {
  if (row.location === 'inline') {
    const data = inlineBytes(row);
    if (end > start) yield data.subarray(start, end);
    return;
  }
  if (row.chunkSize === null || row.chunks === null) {
    throw integrityError(row.hash, 'chunk digests are missing');
  }
  yield* ctx.blobs.get(
    { hash: row.hash, size: row.size, chunkSize: row.chunkSize, chunks: row.chunks },
    { start, end },
  );
}

/** Whole content in memory, for text operations; TOO_LARGE above `maxBytes`. */
export async function readWhole(
  ctx: EngineContext,
  q: MetadataQueries,
  hash: string,
  maxBytes: number,
  what: string,
): Promise<Buffer> {
  const row = await requireBlob(q, hash);
  const size = row.size;
  if (size > maxBytes) {
    throw new SatchelError(
      'TOO_LARGE',
      `${what} works on files up to ${maxBytes} bytes; this one has ${size}`,
      { limit: maxBytes, size },
    );
  }
  const pieces: Uint8Array[] = [];
  for await (const piece of blobBytes(ctx, row, 0, size)) pieces.push(piece);
  return Buffer.concat(pieces, size);
}

/** True when content looks binary: a NUL byte in the first 8 KiB, or invalid UTF-8. */
export function isBinary(data: Uint8Array): boolean {
  if (data.subarray(0, 8192).includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(data);
    return false;
  } catch {
    return true;
  }
}

const TEXT_SNIFF = 8192;

// mime-types (CommonJS) parses its whole database when loaded: only a write needs it, so it is
// loaded then, not by every process that opens the engine.
let mimeTypes: typeof MimeTypes | undefined;

export function contentTypeByName(path: string): string | false {
  mimeTypes ??= createRequire(import.meta.url)('mime-types') as typeof MimeTypes;
  return mimeTypes.lookup(baseName(path));
}

/** Content type from the file name, else sniffed: NUL bytes mean binary. */
export function contentTypeFor(path: string, head: Uint8Array): string {
  const byName = contentTypeByName(path);
  if (byName) return byName;
  return head.subarray(0, TEXT_SNIFF).includes(0) ? 'application/octet-stream' : 'text/plain';
}
