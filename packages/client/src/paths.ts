/**
 * Workspace path validation (DESIGN.md, Paths). Every path that comes from outside goes through
 * `normalizePath` before it reaches the engine; the data directory is never addressed with a
 * user-supplied string (blobs are named by hash).
 */
import { SatchelError } from './errors.js';

export const MAX_SEGMENT_BYTES = 255;
export const MAX_PATH_BYTES = 4096;

// C0 controls, DEL and C1 controls: matching them is the point.
// biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// A lone surrogate cannot be encoded as UTF-8, so two different inputs would collapse into U+FFFD.
// Bidirectional controls (embeddings, overrides, isolates, marks) make a name display as another:
// "invoice\u202Efdp.exe" shows as "invoiceexe.pdf" in a listing.
const BIDI_CONTROL = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// A path in an error is shown up to this many characters: a 5,000-character path echoed whole
// buries the reason, and a caller who sent it has it anyway.
const SHOWN_PATH_CHARS = 120;

function shown(input: string): string {
  return input.length <= SHOWN_PATH_CHARS
    ? input
    : `${input.slice(0, SHOWN_PATH_CHARS)}… (${input.length} characters)`;
}

function invalid(input: string, reason: string): SatchelError {
  return new SatchelError(
    'INVALID_PATH',
    `invalid path ${JSON.stringify(shown(input))}: ${reason}`,
    {
      path: shown(input),
      reason,
    },
  );
}

/**
 * Returns the canonical form of a workspace path: absolute, NFC, no trailing slash ("/" for the
 * root). A missing leading slash is accepted ("a/b" is "/a/b"), as is one trailing slash.
 * Throws INVALID_PATH naming the rule that failed: empty segments, "." or ".." (also in
 * look-alike forms such as fullwidth dots), backslashes, NUL and control characters,
 * bidirectional controls (which make a name display as another), unpaired
 * surrogates, segments over 255 bytes, paths over 4096 bytes. Percent escapes are not decoded:
 * "%2e%2e" is a literal name.
 */
export function normalizePath(input: unknown): string {
  if (typeof input !== 'string') throw invalid(String(input), 'a path must be a string');
  if (input.length === 0) throw invalid(input, 'the path is empty');
  if (CONTROL.test(input))
    throw invalid(input, 'control characters (including NUL) are not allowed');
  if (BIDI_CONTROL.test(input)) {
    throw invalid(
      input,
      'bidirectional control characters (U+200E/F, U+202A-E, U+2066-9) are not allowed',
    );
  }
  if (LONE_SURROGATE.test(input)) throw invalid(input, 'the path is not valid Unicode');
  if (input.includes('\\')) throw invalid(input, 'backslashes are not allowed; use "/"');
  let path = input.normalize('NFC');
  if (!path.startsWith('/')) path = `/${path}`;
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (path === '/') return path;
  for (const segment of path.slice(1).split('/')) {
    if (segment === '') throw invalid(input, 'empty segment ("//")');
    // NFKC folds look-alikes such as fullwidth "．．" and U+2025 "‥" into "." and "..".
    const folded = segment.normalize('NFKC');
    if (folded === '.' || folded === '..')
      throw invalid(input, '"." and ".." segments are not allowed');
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) {
      throw invalid(input, `a segment is longer than ${MAX_SEGMENT_BYTES} bytes`);
    }
  }
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) {
    throw invalid(input, `the path is longer than ${MAX_PATH_BYTES} bytes`);
  }
  return path;
}

/** Like normalizePath, but refuses the root: for operations that need a file or directory. */
export function normalizeEntryPath(input: unknown): string {
  const path = normalizePath(input);
  if (path === '/') throw invalid(String(input), 'the workspace root cannot be used here');
  return path;
}

/**
 * Like normalizeEntryPath, for a path that names a file to create or replace: a trailing "/"
 * names a directory, so it is refused rather than silently creating a file of that name.
 */
export function normalizeFilePath(input: unknown): string {
  const path = normalizeEntryPath(input);
  if (typeof input === 'string' && input.length > 1 && input.endsWith('/')) {
    throw invalid(input, 'a file path cannot end with "/" (that names a directory)');
  }
  return path;
}

/** Parent of a canonical path ("/" for top-level entries and for the root itself). */
export function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

/** Last segment of a canonical path ("" for the root). */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Ancestors of a canonical path, outermost first, excluding the root and the path itself. */
export function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/', 1); i !== -1; i = path.indexOf('/', i + 1))
    out.push(path.slice(0, i));
  return out;
}

/** True when `path` is `dir` or lies beneath it. */
export function isWithin(path: string, dir: string): boolean {
  return dir === '/' || path === dir || path.startsWith(`${dir}/`);
}

/**
 * Half-open range [lo, hi) of canonical paths strictly beneath `dir` under byte-wise ordering
 * ("/" is 0x2f, so every descendant of "/a" sorts in ["/a/", "/a0")).
 */
export function descendantRange(dir: string): { lo: string; hi: string } {
  if (dir === '/') return { lo: '/', hi: '0' };
  return { lo: `${dir}/`, hi: `${dir}0` };
}

const WORKSPACE_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/** Workspace names: 1-63 characters of a-z, 0-9, ".", "_", "-", starting with a letter or digit. */
export function validateWorkspaceName(input: unknown): string {
  if (typeof input !== 'string' || !WORKSPACE_NAME.test(input)) {
    throw new SatchelError(
      'INVALID_INPUT',
      `invalid workspace name ${JSON.stringify(input)}: use 1-63 characters a-z, 0-9, ".", "_", "-", starting with a letter or digit`,
      { field: 'workspace' },
    );
  }
  return input;
}
