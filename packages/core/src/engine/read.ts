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
import { resolveAt } from '../kernel/at.js';
import { blobBytes, inlineBytes, requireBlob } from '../kernel/content.js';
import {
  type EngineContext,
  isRedacted,
  notFound,
  redactedError,
  requireWorkspace,
} from '../kernel/context.js';
import { decodeCursor, encodeCursor } from '../kernel/cursors.js';
import { entryInfo, iso, versionInfo } from '../kernel/records.js';
import type { BlobRecord, WorkspaceRecord } from '../store/metadata/metadata-store.js';
import { resolveVersion } from './history.js';

/**
 * The FileInfo of the head or of version `seq`, with the blob of a file; the head's entry and
 * blob come in one query.
 */
async function locateFile(
  ctx: EngineContext,
  ws: WorkspaceRecord,
  path: string,
  when: When,
): Promise<{ info: FileInfo; blob: BlobRecord }> {
  if (when.version === undefined && when.at === undefined && path !== '/') {
    const found = await ctx.store.getEntryWithBlob(ws.id, path);
    if (!found) throw notFound(path);
    const info = entryInfo(found.entry);
    const hash = requireFile(info);
    return { info, blob: found.blob ?? (await requireBlob(ctx.store, hash)) };
  }
  if (when.at !== undefined && path !== '/') {
    // As at the head: the version current then and its blob in one statement.
    const found = await ctx.store.past.versionWithBlob(ws.id, path, when.at);
    if (!found || found.version.deleted) throw notThen(path, when.at);
    const info = versionInfo(found.version);
    const hash = requireFile(info);
    return { info, blob: found.blob ?? (await requireBlob(ctx.store, hash)) };
  }
  const info = await locate(ctx, ws, path, when);
  return { info, blob: await requireBlob(ctx.store, requireFile(info)) };
}

function notThen(path: string, at: number): SatchelError {
  return new SatchelError('NOT_FOUND', `${path} did not exist at seq ${at}`, { path, at });
}

/** Which state a read sees: the head, one version of the file, or the workspace `at` a seq. */
interface When {
  readonly version?: number | undefined;
  readonly at?: number | undefined;
}

/** `version` and `at` of a read's options, with `at` resolved to a seq (engine/snapshots.ts). */
async function when(
  ctx: EngineContext,
  ws: WorkspaceRecord,
  options: { version?: number | undefined; at?: number | string | undefined },
): Promise<When> {
  if (options.at === undefined) return { version: options.version };
  if (options.version !== undefined) {
    throw new SatchelError(
      'INVALID_INPUT',
      'give version (one version of the file) or at (the workspace at a seq), not both',
      { field: 'at' },
    );
  }
  return { at: await resolveAt(ctx.store, ws, options.at) };
}

/**
 * The FileInfo of the head, of version `when.version` (NOT_FOUND if that version is a deletion),
 * or of the version that was current at `when.at` (NOT_FOUND if there was none).
 */
async function locate(
  ctx: EngineContext,
  ws: WorkspaceRecord,
  path: string,
  { version: seq, at }: When,
): Promise<FileInfo> {
  if (path === '/') return at === undefined ? rootInfo(ws) : { ...rootInfo(ws), seq: at };
  if (at !== undefined) {
    const row = await ctx.store.past.version(ws.id, path, at);
    if (!row || row.deleted) throw notThen(path, at);
    return versionInfo(row);
  }
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
  if (isRedacted(info)) throw redactedError(info.path, info.seq);
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
  rawOptions?: { version?: number | undefined; at?: number | string | undefined },
): Promise<FileInfo> {
  validateWorkspaceName(workspace);
  const path = normalizePath(rawPath);
  const options = parseOptions(ReadOptionsSchema, rawOptions);
  const ws = await requireWorkspace(ctx.store, workspace);
  return locate(ctx, ws, path, await when(ctx, ws, options));
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
  const { info, blob } = await locateFile(ctx, ws, path, await when(ctx, ws, options));
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
  const file = await readFile(ctx, workspace, rawPath, {
    version: options.version,
    at: options.at,
  });
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
  const at = options.at === undefined ? undefined : await resolveAt(ctx.store, ws, options.at);
  const tree = at === undefined ? headTree(ctx, ws) : pastTree(ctx, ws, at);
  if (dir !== '/') {
    const entry = await tree.entry(dir);
    if (!entry) throw notFound(dir, 'directory');
    if (entry.type === 'file') return { items: [entry], nextCursor: null, total: 1 };
  }
  const cursor = decodeCursor(options.cursor, ['a']);
  const after = cursor ? String(cursor.a) : null;
  if (options.glob === undefined) {
    const recursive = options.recursive ?? false;
    const rows = await tree.list(dir, recursive, after, limit + 1);
    const total = await tree.count(dir, recursive);
    return page(rows, limit, total);
  }
  return globPage(tree, dir, options.glob, after, limit);
}

/** The entries of the workspace at its head, or as they were at a seq: what a listing reads. */
interface Tree {
  entry(path: string): Promise<FileInfo | undefined>;
  list(dir: string, recursive: boolean, after: string | null, limit: number): Promise<FileInfo[]>;
  count(dir: string, recursive: boolean): Promise<number>;
}

function headTree(ctx: EngineContext, ws: WorkspaceRecord): Tree {
  return {
    entry: async (path) => {
      const row = await ctx.store.getEntry(ws.id, path);
      return row && entryInfo(row);
    },
    list: async (dir, recursive, after, limit) =>
      (await ctx.store.listEntries(ws.id, dir, recursive, after, limit)).map(entryInfo),
    count: (dir, recursive) => ctx.store.countEntries(ws.id, dir, recursive),
  };
}

function pastTree(ctx: EngineContext, ws: WorkspaceRecord, at: number): Tree {
  return {
    entry: async (path) => {
      const row = await ctx.store.past.version(ws.id, path, at);
      return row && !row.deleted ? versionInfo(row) : undefined;
    },
    list: async (dir, recursive, after, limit) =>
      (await ctx.store.past.list(ws.id, dir, at, recursive, after, limit)).map(versionInfo),
    count: (dir, recursive) => ctx.store.past.count(ws.id, dir, at, recursive),
  };
}

function page(rows: FileInfo[], limit: number, total: number): ListPage {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const nextCursor = rows.length > limit && last ? encodeCursor({ a: last.path }) : null;
  return { items, nextCursor, total };
}

const SCAN_PAGE = 1000;

/** Scans the subtree once: matches after the cursor fill the page, all matches count to the total. */
async function globPage(
  tree: Tree,
  dir: string,
  glob: string,
  after: string | null,
  limit: number,
): Promise<ListPage> {
  const isMatch = globMatcher(glob);
  const prefix = dir === '/' ? 1 : dir.length + 1;
  const matched: FileInfo[] = [];
  let total = 0;
  let scanAfter: string | null = null;
  for (;;) {
    const rows = await tree.list(dir, true, scanAfter, SCAN_PAGE);
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
