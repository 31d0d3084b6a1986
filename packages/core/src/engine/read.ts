/** Reads: file streams (whole or a byte range), text by lines, stat, and listings. */
import { Readable } from 'node:stream';
import picomatch from 'picomatch';
import { SatchelError } from '../errors.js';
import { normalizeEntryPath, normalizePath, validateWorkspaceName } from '../paths.js';
import type { FileStream } from '../satchel.js';
import {
  type FileInfo,
  type ListOptions,
  ListOptionsSchema,
  type ListPage,
  type ReadOptions,
  ReadOptionsSchema,
  type ReadTextOptions,
  ReadTextOptionsSchema,
  type TextSlice,
} from '../schemas.js';
import type { EntryRow, WorkspaceRow } from '../store/metadata/metadata-store.js';
import { blobBytes, getBlobRow } from './content.js';
import {
  decodeCursor,
  type EngineContext,
  encodeCursor,
  entryInfo,
  iso,
  notFound,
  parseOptions,
  requireWorkspace,
  versionInfo,
} from './context.js';
import { resolveVersion } from './history.js';

const DEFAULT_TEXT_BYTES = 1024 * 1024;

/** The FileInfo of the head, or of version `seq` (NOT_FOUND if that version is a deletion). */
async function locate(
  ctx: EngineContext,
  ws: WorkspaceRow,
  path: string,
  seq: number | undefined,
): Promise<FileInfo> {
  if (path === '/') return rootInfo(ws);
  if (seq === undefined) {
    const entry = await ctx.store.getEntry(ws.id, path);
    if (!entry) throw notFound(path);
    return entryInfo(entry);
  }
  const row = await resolveVersion(ctx.store, ws.id, path, seq);
  if (!row) throw notFound(`${path}@${seq}`, 'version');
  if (row.deleted === 1) {
    throw new SatchelError('NOT_FOUND', `${path} was deleted at version ${seq}`, { path, seq });
  }
  return versionInfo(row);
}

function rootInfo(ws: WorkspaceRow): FileInfo {
  return {
    path: '/',
    type: 'directory',
    seq: Number(ws.seq),
    size: 0,
    hash: null,
    contentType: null,
    author: '',
    session: null,
    modifiedAt: iso(Number(ws.created_at)),
  };
}

function requireFile(info: FileInfo): string {
  if (info.type !== 'file' || info.hash === null) {
    throw new SatchelError('INVALID_INPUT', `${info.path} is a directory; list it instead`, {
      path: info.path,
    });
  }
  return info.hash;
}

export async function stat(
  ctx: EngineContext,
  workspace: string,
  rawPath: string,
  rawOptions?: { version?: number },
): Promise<FileInfo> {
  validateWorkspaceName(workspace);
  const path = normalizePath(rawPath);
  const options = parseOptions(ReadOptionsSchema, rawOptions);
  const ws = await requireWorkspace(ctx.store, workspace);
  return locate(ctx, ws, path, options.version);
}

/**
 * Opens a file for reading. The first piece is verified before this resolves, so damaged small
 * files fail here with INTEGRITY rather than mid-stream; later pieces are verified as they are
 * read, and the stream errors with INTEGRITY before emitting a damaged piece.
 */
export async function readFile(
  ctx: EngineContext,
  workspace: string,
  rawPath: string,
  rawOptions?: ReadOptions,
): Promise<FileStream> {
  validateWorkspaceName(workspace);
  const path = normalizeEntryPath(rawPath);
  const options = parseOptions(ReadOptionsSchema, rawOptions);
  const ws = await requireWorkspace(ctx.store, workspace);
  const info = await locate(ctx, ws, path, options.version);
  const hash = requireFile(info);
  const start = options.range?.start ?? 0;
  const end = Math.min(options.range?.end ?? info.size, info.size);
  if (start > info.size || (start > 0 && start >= info.size) || end < start) {
    throw new SatchelError(
      'INVALID_INPUT',
      `range ${start}-${end} is not satisfiable for ${path} (${info.size} bytes)`,
      { path, size: info.size, reason: 'range_not_satisfiable' },
    );
  }
  const blob = await getBlobRow(ctx.store, hash);
  const pieces = blobBytes(ctx, blob, start, end);
  const first = await pieces.next();
  async function* all(): AsyncGenerator<Uint8Array> {
    if (first.done) return;
    yield first.value;
    yield* pieces;
  }
  const body = Readable.from(all(), { objectMode: false });
  return { info, body, range: { start, end } };
}

export async function readText(
  ctx: EngineContext,
  workspace: string,
  rawPath: string,
  rawOptions?: ReadTextOptions,
): Promise<TextSlice> {
  const options = parseOptions(ReadTextOptionsSchema, rawOptions);
  if (options.tail !== undefined && (options.head !== undefined || options.offset !== undefined)) {
    throw new SatchelError('INVALID_INPUT', 'tail cannot be combined with head or offset', {
      field: 'tail',
    });
  }
  if (options.head !== undefined && options.limit !== undefined) {
    throw new SatchelError('INVALID_INPUT', 'use head or limit, not both', { field: 'head' });
  }
  const { info, body } = await readFile(ctx, workspace, rawPath, { version: options.version });
  const maxBytes = options.maxBytes ?? DEFAULT_TEXT_BYTES;
  const first = options.offset ?? 1;
  const count = options.head ?? options.limit ?? Number.POSITIVE_INFINITY;
  const lines = splitLines(body, info.path);

  if (options.tail !== undefined) {
    const ring: string[] = [];
    let total = 0;
    for await (const line of lines) {
      total++;
      ring.push(line);
      if (ring.length > options.tail) ring.shift();
    }
    const { text, kept } = capText(ring, maxBytes);
    const lineStart = total - ring.length + 1;
    return {
      info,
      text,
      lineStart,
      lineEnd: lineStart + kept - 1,
      totalLines: total,
      truncated: kept < ring.length,
    };
  }

  const selected: string[] = [];
  let bytes = 0;
  let index = 0;
  let truncated = false;
  for await (const line of lines) {
    index++;
    if (index < first) continue;
    const size = Buffer.byteLength(line);
    if (selected.length === count || bytes + size > maxBytes) {
      truncated = true;
      break;
    }
    selected.push(line);
    bytes += size;
  }
  body.destroy();
  return {
    info,
    text: selected.join(''),
    lineStart: first,
    lineEnd: first + selected.length - 1,
    totalLines: truncated ? null : index,
    truncated,
  };
}

function capText(lines: readonly string[], maxBytes: number): { text: string; kept: number } {
  // Keep the end: a tail that does not fit loses its first lines.
  let bytes = 0;
  let kept = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const size = Buffer.byteLength(lines[i] ?? '');
    if (bytes + size > maxBytes) break;
    bytes += size;
    kept++;
  }
  return { text: lines.slice(lines.length - kept).join(''), kept };
}

/** Yields lines with their terminators; INVALID_INPUT if the content is not UTF-8 text. */
async function* splitLines(body: AsyncIterable<Uint8Array>, path: string): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const binary = () =>
    new SatchelError('INVALID_INPUT', `${path} is a binary file; read it as bytes instead`, {
      path,
    });
  let partial = '';
  let sniffed = 0;
  try {
    for await (const piece of body) {
      if (sniffed < 8192 && piece.subarray(0, 8192 - sniffed).includes(0)) throw binary();
      sniffed += piece.byteLength;
      partial += decoder.decode(piece, { stream: true });
      let nl = partial.indexOf('\n');
      while (nl !== -1) {
        yield partial.slice(0, nl + 1);
        partial = partial.slice(nl + 1);
        nl = partial.indexOf('\n');
      }
    }
    partial += decoder.decode();
  } catch (error) {
    if (error instanceof TypeError) throw binary();
    throw error;
  }
  if (partial.length > 0) yield partial;
}

export async function list(
  ctx: EngineContext,
  workspace: string,
  rawOptions?: ListOptions,
): Promise<ListPage> {
  validateWorkspaceName(workspace);
  const options = parseOptions(ListOptionsSchema, rawOptions);
  const dir = normalizePath(options.path ?? '/');
  const limit = options.limit ?? 100;
  const ws = await requireWorkspace(ctx.store, workspace);
  if (dir !== '/') {
    const entry = await ctx.store.getEntry(ws.id, dir);
    if (!entry) throw notFound(dir, 'directory');
    if (entry.type === 'file') return { items: [entryInfo(entry)], nextCursor: null, total: 1 };
  }
  const cursor = decodeCursor(options.cursor, ['a']);
  const after = cursor ? String(cursor.a) : null;
  if (options.glob === undefined) {
    const recursive = options.recursive ?? false;
    const rows = await ctx.store.listEntries(ws.id, dir, recursive, after, limit + 1);
    const total = await ctx.store.countEntries(ws.id, dir, recursive);
    return page(rows, limit, total);
  }
  return globPage(ctx, ws, dir, options.glob, after, limit);
}

function page(rows: EntryRow[], limit: number, total: number): ListPage {
  const items = rows.slice(0, limit).map(entryInfo);
  const last = items.at(-1);
  const nextCursor = rows.length > limit && last ? encodeCursor({ a: last.path }) : null;
  return { items, nextCursor, total };
}

const SCAN_PAGE = 1000;

/** Scans the subtree once: matches after the cursor fill the page, all matches count to the total. */
async function globPage(
  ctx: EngineContext,
  ws: WorkspaceRow,
  dir: string,
  glob: string,
  after: string | null,
  limit: number,
): Promise<ListPage> {
  const isMatch = picomatch(glob.replace(/^\/+/, ''), { dot: true });
  const prefix = dir === '/' ? 1 : dir.length + 1;
  const matched: EntryRow[] = [];
  let total = 0;
  let scanAfter: string | null = null;
  for (;;) {
    const rows = await ctx.store.listEntries(ws.id, dir, true, scanAfter, SCAN_PAGE);
    for (const row of rows) {
      if (!isMatch(row.path.slice(prefix))) continue;
      total++;
      // Byte-wise, like the database's ordering of paths.
      const afterCursor =
        after === null || Buffer.compare(Buffer.from(row.path), Buffer.from(after)) > 0;
      if (afterCursor && matched.length <= limit) matched.push(row);
    }
    const last = rows.at(-1);
    if (rows.length < SCAN_PAGE || !last) break;
    scanAfter = last.path;
  }
  return page(matched, limit, total);
}
