/** Byte ranges (RFC 9110 §14): one `bytes=` range per request; anything else is served whole. */
import { HttpError } from '../problem.js';

/** A satisfiable range: bytes [start, end), end exclusive as in core's ByteRange. */
export interface SelectedRange {
  readonly start: number;
  readonly end: number;
}

const SPEC = /^\s*(\d*)\s*-\s*(\d*)\s*$/;

/**
 * The range a `Range` header selects in a representation of `size` bytes: null to send it
 * whole (no header, another unit, several ranges, or an invalid spec — RFC 9110 lets a server
 * ignore all of these). Throws 416 (with a Content-Range giving the size) when unsatisfiable.
 */
export function selectRange(header: string | undefined, size: number): SelectedRange | null {
  if (header === undefined) return null;
  const eq = header.indexOf('=');
  if (eq === -1 || header.slice(0, eq).trim().toLowerCase() !== 'bytes') return null;
  const specs = header.slice(eq + 1).split(',');
  // Multipart/byteranges responses are not worth their complexity here; whole content is valid.
  if (specs.length !== 1) return null;
  const match = SPEC.exec(specs[0] ?? '');
  if (match === null) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) throw unsatisfiable(header, size);
    return { start: Math.max(0, size - suffix), end: size };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) throw unsatisfiable(header, size);
  const end = last === '' ? size : Math.min(Number(last) + 1, size);
  return { start, end };
}

/** `Content-Range` of a 206 response. */
export function contentRange(range: SelectedRange, size: number): string {
  return `bytes ${range.start}-${range.end - 1}/${size}`;
}

function unsatisfiable(header: string, size: number): HttpError {
  return new HttpError('INVALID_INPUT', `Range ${header} is not satisfiable (${size} bytes)`, {
    status: 416,
    data: { field: 'Range', size, reason: 'range_not_satisfiable' },
    headers: { 'Content-Range': `bytes */${size}` },
  });
}
