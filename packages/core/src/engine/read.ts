/** Reads: file streams (whole or a byte range), text by lines, stat, and listings. */
import { Readable } from 'node:stream';
import { SatchelError } from '@satchel/client/errors.js';
import { globMatcher } from '@satchel/client/glob.js';
import type { FileStream } from '@satchel/client/operations/satchel.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizeEntryPath, normalizePath, validateWorkspaceName } from '@satchel/client/paths.js';
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
} from '@satchel/client/schemas/index.js';
import { checkTextOptions, sliceText } from '@satchel/client/text-lines.js';
import { blobBytes, inlineBytes, requireBlob } from '../kernel/content.js';
import { type EngineContext, notFound, requireWorkspace } from '../kernel/context.js';
import { decodeCursor, encodeCursor } from '../kernel/cursors.js';
import { entryInfo, iso, versionInfo } from '../kernel/records.js';
import type { BlobRecord, EntryRecord, WorkspaceRecord } from '../store/metadata/metadata-store.js';
import { resolveVersion } from './history.js';

/**
 * The FileInfo of the head or of version `seq`, with the blob of a file; the head's entry and
 * blob come in one query.
 */
async function locateFile(
  ctx: EngineContext,
  ws: WorkspaceRecord,
  path: string,
  seq: number | undefined,
): Promise<{ info: FileInfo; blob: BlobRecord }> {
  if (seq === undefined && path !== '/') {
    const found = await ctx.store.getEntryWithBlob(ws.id, path);
    if (!found) throw notFound(path);
    const info = entryInfo(found.entry);
    const hash = requireFile(info);
    return { info, blob: found.blob ?? (await requireBlob(ctx.store, hash)) };
  }
  const info = await locate(ctx, ws, path, seq);
  return { info, blob: await requireBlob(ctx.store, requireFile(info)) };
}

/** The FileInfo of the head, or of version `seq` (NOT_FOUND if that version is a deletion). */
async function locate(
  ctx: EngineContext,
  ws: WorkspaceRecord,
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
  if (row.deleted) {
    throw new SatchelError('NOT_FOUND', `${path} was deleted at version ${seq}`, { path, seq });
  }
  return versionInfo(row);
}

function rootInfo(ws: WorkspaceRecord): FileInfo {
  return {
    path: '/',
    type: 'directory',
    seq: ws.seq,
    size: 0,
    hash: null,
    contentType: null,
    author: '',
    session: null,
    modifiedAt: iso(ws.createdAt),
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
  const { info, blob } = await locateFile(ctx, ws, path, options.version);
  const start = options.range?.start ?? 0;
  const end = Math.min(options.range?.end ?? info.size, info.size);
  if (start > info.size || (start > 0 && start >= info.size) || end < start) {
    throw new SatchelError(
      'INVALID_INPUT',
      `range ${start}-${end} is not satisfiable for ${path} (${info.size} bytes)`,
      { path, size: info.size, reason: 'range_not_satisfiable' },
    );
  }
  if (blob.location === 'inline') {
    // Small content is in the row: verified now, handed over as one buffer (and as a stream).
    const bytes = inlineBytes(blob).subarray(start, end);
    let body: Readable | undefined;
    return {
      info,
      range: { start, end },
      bytes,
      get body() {
        body ??= Readable.from([bytes], { objectMode: false });
        return body;
      },
    };
  }
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
  checkTextOptions(options);
  const file = await readFile(ctx, workspace, rawPath, { version: options.version });
  // A small file is already one verified buffer: no stream to set up.
  return sliceText(file.info, file.bytes === undefined ? file.body : [file.bytes], options);
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

function page(rows: EntryRecord[], limit: number, total: number): ListPage {
  const items = rows.slice(0, limit).map(entryInfo);
  const last = items.at(-1);
  const nextCursor = rows.length > limit && last ? encodeCursor({ a: last.path }) : null;
  return { items, nextCursor, total };
}

const SCAN_PAGE = 1000;

/** Scans the subtree once: matches after the cursor fill the page, all matches count to the total. */
async function globPage(
  ctx: EngineContext,
  ws: WorkspaceRecord,
  dir: string,
  glob: string,
  after: string | null,
  limit: number,
): Promise<ListPage> {
  const isMatch = globMatcher(glob);
  const prefix = dir === '/' ? 1 : dir.length + 1;
  const matched: EntryRecord[] = [];
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
