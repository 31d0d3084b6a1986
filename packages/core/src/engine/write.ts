/**
 * Mutations that create file versions: write, append, mkdir (many files in one transaction:
 * write-files.ts; restore: restore.ts).
 */
import { SatchelError } from '@satchel/client/errors.js';
import type { Content } from '@satchel/client/operations/satchel.js';
import { parseOptions } from '@satchel/client/options.js';
import {
  normalizeEntryPath,
  normalizeFilePath,
  parentOf,
  validateWorkspaceName,
} from '@satchel/client/paths.js';
import {
  type AppendOptions,
  AppendOptionsSchema,
  type FileInfo,
  type MutationOptions,
  MutationOptionsSchema,
  type WriteFileOptions,
  WriteFileOptionsSchema,
  type WriteOptions,
} from '@satchel/client/schemas/index.js';
import { blobBytes, contentTypeFor, requireBlob } from '../kernel/content.js';
import {
  checkPreconditions,
  type EngineContext,
  requireWorkspace,
  workspaceNotFound,
} from '../kernel/context.js';
import { entryInfo } from '../kernel/records.js';
import { checkWriteLocks } from '../locks/locks.js';
import type { EntryRecord, MetadataTx, WorkspaceRecord } from '../store/metadata/metadata-store.js';
import {
  ingest,
  isContentCollected,
  registerContent,
  retryCollected,
  type StoredContent,
  tooLarge,
} from './ingest.js';
import { hasQuota, precheckQuota, withinQuota, writeGrowth } from './quota.js';
import { claimedStamp, ensureParents, putDirectory, putFile, stamp } from './versions.js';

function notADirectoryTarget(path: string): SatchelError {
  return new SatchelError('CONFLICT', `${path} is a directory`, { path, reason: 'type_mismatch' });
}

/**
 * The head of `path`, marked `unchanged`, when a write pinned by `ifMatch` finds exactly what its
 * own earlier attempt would have left: the head holds its content, was written on top of the
 * version `ifMatch` names, by the caller's principal, in the caller's session when it names one.
 * That is the retry of a write whose answer was lost, which must not look like a conflict.
 * Anything else stays a conflict, so compare-and-set between agents keeps its meaning; workers
 * sharing a key and a session that must count their own writes treat `unchanged` as a conflict.
 * Decided before the caller claims a seq, in its transaction, so nothing is claimed or written;
 * the write's lock check still applies. Null otherwise. Only whole-file writes qualify: an
 * append or an edit pinned by its own retry loop names a base, not a result.
 */
async function unchangedHead(
  tx: MetadataTx,
  ctx: EngineContext,
  workspace: string,
  path: string,
  stored: StoredContent,
  options: WriteOptions,
): Promise<FileInfo | null> {
  const ws = await requireWorkspace(tx, workspace);
  const head = await tx.getEntry(ws.id, path);
  if (
    head?.type !== 'file' ||
    head.seq === options.ifMatch ||
    head.hash !== stored.hash ||
    head.author !== ctx.actor.name ||
    (options.session !== undefined && head.session !== options.session)
  ) {
    return null;
  }
  const [base] = await tx.listVersions(ws.id, path, head.seq, 1);
  if (base?.seq !== options.ifMatch) return null;
  await checkWriteLocks(tx, ctx, ws.id, { path, tree: false }, options.lockToken, ctx.clock());
  return { ...entryInfo(head), unchanged: true };
}

/**
 * Commits stored content as the new head of `path`, re-checking preconditions in the transaction.
 * A whole-file write pinned by `ifMatch` whose content is already the head's answers with the
 * head, `unchanged: true` (`unchangedHead`).
 */
export async function commitContent(
  tx: MetadataTx,
  ctx: EngineContext,
  workspace: string,
  path: string,
  stored: StoredContent,
  op: 'write' | 'append' | 'edit',
  options: WriteOptions,
): Promise<FileInfo> {
  if (op === 'write' && options.ifMatch !== undefined) {
    const same = await unchangedHead(tx, ctx, workspace, path, stored, options);
    if (same) return same;
  }
  // The hot path of every write: one statement claims the seq, one reads the file and its parent.
  const ws = await tx.claimSeq(workspace);
  if (!ws) throw workspaceNotFound(workspace);
  return withinQuota(tx, ws, () => putContent(tx, ctx, ws, path, stored, op, options));
}

async function putContent(
  tx: MetadataTx,
  ctx: EngineContext,
  ws: WorkspaceRecord,
  path: string,
  stored: StoredContent,
  op: 'write' | 'append' | 'edit',
  options: WriteOptions,
): Promise<FileInfo> {
  const parent = parentOf(path);
  const entries = await tx.getEntries(ws.id, parent === '/' ? [path] : [path, parent]);
  const head = entries.get(path);
  if (head?.type === 'directory') throw notADirectoryTarget(path);
  checkPreconditions(path, head, options);
  const s = claimedStamp(ctx, ws, options.session);
  await checkWriteLocks(tx, ctx, ws.id, { path, tree: false }, options.lockToken, s.now);
  await ensureParents(tx, s, path, parent === '/' ? null : (entries.get(parent) ?? null));
  await registerContent(tx, ctx.blobs, stored, s.now);
  return putFile(
    tx,
    s,
    path,
    op,
    { hash: stored.hash, size: stored.size, contentType: contentTypeFor(path, stored.head) },
    { message: options.message },
  );
}

/**
 * Fails fast, before any content is stored, when the write cannot succeed. For a whole-file write
 * an `ifMatch` that misses an existing file is left to the commit when the content may be the
 * head's already (`unchangedHead`): `hash` is the content's SHA-256 when known beforehand, null
 * when only storing it will tell; undefined keeps the check strict. `size`, when known, is
 * checked against the workspace's quotas (QUOTA_EXCEEDED).
 */
export async function precheck(
  ctx: EngineContext,
  workspace: string,
  path: string,
  options: WriteOptions,
  hash?: string | null,
  size?: number,
): Promise<{ ws: WorkspaceRecord; head: EntryRecord | undefined }> {
  const ws = await requireWorkspace(ctx.store, workspace);
  const head = await ctx.store.getEntry(ws.id, path);
  if (head?.type === 'directory') throw notADirectoryTarget(path);
  const mayBeUnchanged =
    head?.type === 'file' &&
    options.ifMatch !== undefined &&
    (hash === null || (hash !== undefined && hash === head.hash));
  checkPreconditions(path, head, mayBeUnchanged ? { ...options, ifMatch: undefined } : options);
  // Content that may be the head's already may be a retry that writes nothing: the commit decides.
  if (size !== undefined && !mayBeUnchanged) {
    await precheckQuota(ctx.store, ws, writeGrowth(size, head));
  }
  return { ws, head };
}

/**
 * A stream that declares at most this many bytes is stored before the checks a large one gets
 * first (`precheck`): a 4 KiB upload's pre-check cost more than storing it.
 */
const CHEAP_TO_STORE_BYTES = 64 * 1024;

export async function writeFile(
  ctx: EngineContext,
  workspace: string,
  rawPath: string,
  content: Content,
  rawOptions?: WriteFileOptions,
  op: 'write' | 'edit' = 'write',
): Promise<FileInfo> {
  validateWorkspaceName(workspace);
  const path = normalizeFilePath(rawPath);
  const { size, ...options } = parseOptions(WriteFileOptionsSchema, rawOptions);
  // A stream may be large: fail before storing it if the write cannot succeed. Content already
  // in memory, or a stream that declares itself small, costs little to store first, unless a
  // quota may refuse it; the transaction checks again either way.
  const inMemory = typeof content === 'string' || content instanceof Uint8Array;
  const hash = op === 'write' ? null : undefined;
  if (!inMemory && (size === undefined || size > CHEAP_TO_STORE_BYTES)) {
    await precheck(ctx, workspace, path, options, hash, size);
  } else if (hasQuota(await requireWorkspace(ctx.store, workspace))) {
    await precheck(ctx, workspace, path, options, hash, inMemory ? byteLength(content) : size);
  }
  const attempt = async () => {
    const stored = await ingest(content, ctx.limits, ctx.blobs);
    return ctx.commit((tx) => commitContent(tx, ctx, workspace, path, stored, op, options));
  };
  // Content in memory can be stored again if garbage collection removed it meanwhile.
  return inMemory ? retryCollected(attempt) : attempt();
}

export function byteLength(content: string | Uint8Array): number {
  return typeof content === 'string' ? Buffer.byteLength(content, 'utf8') : content.byteLength;
}

const APPEND_RETRIES = 20;

/**
 * Appends by writing a new version holding the old content plus the new bytes. The new bytes are
 * buffered (at most `maxTextBytes`). When the result is small it is assembled inside the
 * transaction, so concurrent appends serialise without retries; otherwise it is assembled in the
 * blob store first and committed if the head has not moved, replayed on the new head if it has
 * (unless pinned by `ifMatch`).
 */
export async function appendFile(
  ctx: EngineContext,
  workspace: string,
  rawPath: string,
  content: Content,
  rawOptions?: AppendOptions,
): Promise<FileInfo> {
  validateWorkspaceName(workspace);
  const path = normalizeFilePath(rawPath);
  const options = parseOptions(AppendOptionsSchema, rawOptions);
  const addition = await collect(content, ctx.limits.maxTextBytes);
  const small = await ctx.commit((tx) => appendInline(tx, ctx, workspace, path, addition, options));
  if (small) return small;
  for (let attempt = 0; ; attempt++) {
    const { head } = await precheck(ctx, workspace, path, options);
    const base = head?.hash ? await requireBlob(ctx.store, head.hash) : null;
    const baseSize = base ? base.size : 0;
    if (baseSize + addition.byteLength > ctx.limits.maxFileSize)
      throw tooLarge(ctx.limits.maxFileSize);
    if (attempt === 0) {
      const { ws } = await precheck(ctx, workspace, path, options);
      await precheckQuota(ctx.store, ws, writeGrowth(baseSize + addition.byteLength, head));
    }
    const combined = base ? concat(blobBytes(ctx, base, 0, baseSize), addition) : single(addition);
    const stored = await ingest(combined, ctx.limits, ctx.blobs);
    const expected = {
      ...options,
      ifMatch: head?.seq,
      ifNoneMatch: head ? undefined : ('*' as const),
    };
    try {
      return await ctx.commit((tx) =>
        commitContent(tx, ctx, workspace, path, stored, 'append', expected),
      );
    } catch (error) {
      // The combined content is assembled again on every attempt, so content that garbage
      // collection removed under this append is simply stored again.
      const collected = isContentCollected(error);
      const raced = error instanceof SatchelError && error.code === 'PRECONDITION_FAILED';
      if (!(raced || collected) || attempt >= APPEND_RETRIES) throw error;
      if (raced && options.ifMatch !== undefined) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
    }
  }
}

/** The in-transaction append; null when the result would not fit inline. */
async function appendInline(
  tx: MetadataTx,
  ctx: EngineContext,
  workspace: string,
  path: string,
  addition: Buffer,
  options: AppendOptions,
): Promise<FileInfo | null> {
  const ws = await requireWorkspace(tx, workspace);
  const head = await tx.getEntry(ws.id, path);
  if (head?.type === 'directory') throw notADirectoryTarget(path);
  checkPreconditions(path, head, options);
  if (addition.byteLength === 0 && head) return entryInfo(head);
  const base = head?.hash ? await requireBlob(tx, head.hash) : null;
  if (base && base.location !== 'inline') return null;
  if (Number(base?.size ?? 0) + addition.byteLength > ctx.limits.inlineThreshold) return null;
  const pieces: Uint8Array[] = [];
  if (base) for await (const piece of blobBytes(ctx, base, 0, base.size)) pieces.push(piece);
  pieces.push(addition);
  const stored = await ingest(Buffer.concat(pieces), ctx.limits, ctx.blobs);
  return commitContent(tx, ctx, workspace, path, stored, 'append', options);
}

async function collect(content: Content, max: number): Promise<Buffer> {
  if (typeof content === 'string') return Buffer.from(content, 'utf8');
  if (content instanceof Uint8Array) return Buffer.from(content);
  const pieces: Buffer[] = [];
  let size = 0;
  for await (const piece of content) {
    const buf = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : Buffer.from(piece);
    size += buf.byteLength;
    if (size > max) {
      throw new SatchelError(
        'TOO_LARGE',
        `an append may add at most ${max} bytes; write the whole file instead`,
        { limit: max },
      );
    }
    pieces.push(buf);
  }
  return Buffer.concat(pieces, size);
}

async function* concat(head: AsyncIterable<Uint8Array>, tail: Buffer): AsyncGenerator<Uint8Array> {
  yield* head;
  if (tail.byteLength > 0) yield tail;
}

async function* single(data: Buffer): AsyncGenerator<Uint8Array> {
  yield data;
}

export async function mkdir(
  ctx: EngineContext,
  workspace: string,
  rawPath: string,
  rawOptions?: MutationOptions,
): Promise<FileInfo> {
  validateWorkspaceName(workspace);
  const path = normalizeEntryPath(rawPath);
  const options = parseOptions(MutationOptionsSchema, rawOptions);
  return ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const existing = await tx.getEntry(ws.id, path);
    if (existing) {
      if (existing.type === 'directory') return entryInfo(existing);
      throw new SatchelError('CONFLICT', `${path} is a file`, { path, reason: 'type_mismatch' });
    }
    const s = await stamp(tx, ctx, ws.id, options.session);
    await checkWriteLocks(tx, ctx, ws.id, { path, tree: false }, options.lockToken, s.now);
    await ensureParents(tx, s, path);
    return putDirectory(tx, s, path, 'mkdir');
  });
}
