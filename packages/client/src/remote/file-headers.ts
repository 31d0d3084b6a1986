/**
 * File metadata as HTTP headers, both ways: the conditions of a write as request headers, and
 * the FileInfo and byte range of a read (GET, HEAD) from response headers.
 */
import { SatchelError } from '../errors.js';
import { normalizePath } from '../paths.js';
import type { ByteRange, FileInfo } from '../schemas/index.js';
import { segment } from './http.js';

/** Conditions and fencing of a file mutation, as the API's request headers. */
export interface FileConditions {
  readonly ifMatch?: number;
  readonly ifNoneMatch?: '*';
  readonly lockToken?: number;
}

export function conditionHeaders(options: FileConditions): Record<string, string | undefined> {
  return {
    'If-Match': options.ifMatch === undefined ? undefined : `"${options.ifMatch}"`,
    'If-None-Match': options.ifNoneMatch,
    'Satchel-Lock-Token': options.lockToken === undefined ? undefined : String(options.lockToken),
  };
}

/**
 * A workspace path as URL segments. The path is normalised first (INVALID_PATH, as the engine
 * would throw): fetch resolves "." and ".." segments, even percent-encoded, before sending.
 */
export function urlPath(path: string): string {
  return normalizePath(path).split('/').slice(1).map(segment).join('/');
}

const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+)$/;
const REPR_DIGEST = /(?:^|,)\s*sha-256=:([A-Za-z0-9+/=]+):/;

function seqOf(headers: Headers): number {
  const version = headers.get('Satchel-Version') ?? headers.get('ETag')?.replace(/^"|"$/g, '');
  const seq = Number(version);
  if (version === undefined || version === '' || !Number.isSafeInteger(seq)) {
    throw new SatchelError('INTERNAL', 'the server sent a file without a version (ETag)');
  }
  return seq;
}

function hashOf(headers: Headers): string | null {
  const digest = REPR_DIGEST.exec(headers.get('Repr-Digest') ?? '')?.[1];
  return digest === undefined ? null : Buffer.from(digest, 'base64').toString('hex');
}

function decoded(value: string | null): string | null {
  if (value === null) return null;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** ISO 8601 of `Satchel-Modified`, else of Last-Modified (whole seconds only). */
function modifiedAt(headers: Headers): string {
  const exact = headers.get('Satchel-Modified');
  if (exact !== null) return exact;
  const date = Date.parse(headers.get('Last-Modified') ?? '');
  return Number.isNaN(date) ? new Date(0).toISOString() : new Date(date).toISOString();
}

/**
 * The FileInfo of a read's answer (200, 206 or HEAD). The API sends ETag/Satchel-Version,
 * Satchel-Type, Content-Length (Content-Range's total on a 206), Content-Type, Repr-Digest,
 * Last-Modified, and the rest of the FileInfo as `Satchel-Path` (percent-encoded per segment),
 * `Satchel-Author`, `Satchel-Session` (percent-encoded; absent without a label) and
 * `Satchel-Modified` (ISO 8601 with milliseconds). From an older server without them, author
 * is "", session null, modifiedAt has whole seconds and the path is the requested path.
 */
export function infoFromHeaders(requested: string, headers: Headers): FileInfo {
  const type = headers.get('Satchel-Type') === 'directory' ? 'directory' : 'file';
  const total = CONTENT_RANGE.exec(headers.get('Content-Range') ?? '')?.[3];
  const size = type === 'file' ? Number(total ?? headers.get('Content-Length') ?? 0) : 0;
  return {
    path: decoded(headers.get('Satchel-Path')) ?? normalizePath(requested),
    type,
    seq: seqOf(headers),
    size,
    hash: hashOf(headers),
    contentType: type === 'file' ? headers.get('Content-Type') : null,
    author: decoded(headers.get('Satchel-Author')) ?? '',
    session: decoded(headers.get('Satchel-Session')),
    modifiedAt: modifiedAt(headers),
  };
}

/** `Range` for `range`, or undefined when the whole file is wanted. */
export function rangeHeader(range: ByteRange | undefined): string | undefined {
  if (range === undefined || (range.start === 0 && range.end === undefined)) return undefined;
  return `bytes=${range.start}-${range.end === undefined ? '' : range.end - 1}`;
}

/** The range of a 206 answer; INTERNAL when the server sent another range than asked. */
export function servedRange(
  headers: Headers,
  status: number,
  wanted: ByteRange | undefined,
  size: number,
): Required<ByteRange> {
  if (status !== 206) {
    if (rangeHeader(wanted) !== undefined) {
      throw new SatchelError('INTERNAL', 'the server ignored the requested byte range');
    }
    return { start: 0, end: size };
  }
  const match = CONTENT_RANGE.exec(headers.get('Content-Range') ?? '');
  if (match === null) {
    throw new SatchelError('INTERNAL', 'the server sent a partial answer without Content-Range');
  }
  return { start: Number(match[1]), end: Number(match[2]) + 1 };
}
