/**
 * Resumable uploads (docs/api.md, "Large files"). A session row in the metadata database names
 * the target (workspace, path, declared size, optional SHA-256, the write's conditions) and its
 * owner; the bytes arrive in order as parts, each stored in the BlobStore under its own hash and
 * recorded with the offset it starts at, so any node of a cluster can take the next part or the
 * completion. Completion streams the parts, verified, into the normal write path as one new
 * version; nothing is visible before it. Sessions idle past their expiry are dropped, and their
 * parts become garbage (docs/storage.md says what garbage collection must keep).
 */
import { randomUUID } from 'node:crypto';
import { SatchelError } from '@satchel/client/errors.js';
import type { Content } from '@satchel/client/operations/satchel.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizeEntryPath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type CreateUpload,
  CreateUploadSchema,
  type FileInfo,
  ListUploadsSchema,
  type Upload,
  type WriteOptions,
  WriteOptionsSchema,
} from '@satchel/client/schemas/index.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { iso } from '../kernel/records.js';
import type { UploadRecord } from '../store/metadata/records.js';
import { workspaceCheck } from './calls.js';
import { ingest, tooLarge } from './ingest.js';
import { commitContent, precheck } from './write.js';

/** How long an upload may sit idle before it is dropped; each part extends it. */
export const DEFAULT_UPLOAD_IDLE_SECONDS = 24 * 60 * 60;

function uploadOut(row: UploadRecord): Upload {
  return {
    id: row.id,
    path: row.path,
    size: row.size,
    sha256: row.sha256,
    offset: row.received,
    createdAt: iso(row.createdAt),
    expiresAt: iso(row.expiresAt),
  };
}

/**
 * Parts being stored by this process, by upload id. A client that lost its connection mid-part
 * asks for the offset at once, often before this node has finished keeping what arrived: an
 * offset read or a new part waits (bounded) for the part in flight, so the answer counts it and
 * the client does not send those bytes again. Another node does not see this; there the cost of
 * the race is one part sent twice (the second refused as CONFLICT with the offset).
 */
const partsInFlight = new Map<string, Promise<unknown>>();
const SETTLE_MS = 10_000;

async function settled(id: string): Promise<void> {
  const pending = partsInFlight.get(id);
  if (pending === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    pending.catch(() => undefined),
    new Promise((resolve) => {
      timer = setTimeout(resolve, SETTLE_MS);
    }),
  ]);
  clearTimeout(timer);
}

function noSuchUpload(id: string): SatchelError {
  return new SatchelError('NOT_FOUND', `upload ${id} not found (finished, cancelled or expired)`, {
    upload: id,
  });
}

/** The caller's live session `id` in `workspace`; other principals' sessions do not exist. */
async function ownUpload(
  ctx: EngineContext,
  workspace: string,
  id: unknown,
): Promise<UploadRecord> {
  validateWorkspaceName(workspace);
  if (typeof id !== 'string' || id.length === 0 || id.length > 100) throw noSuchUpload(String(id));
  const ws = await requireWorkspace(ctx.store, workspace);
  await settled(id);
  const row = await ctx.store.uploads.byId(ws.id, id);
  if (!row || row.principalId !== ctx.actor.principalId || row.expiresAt <= ctx.clock()) {
    throw noSuchUpload(id);
  }
  return row;
}

/**
 * Starts an upload of `size` bytes to `path`. Fails fast where the write could not succeed: a
 * directory there, a failed precondition (checked again at completion), TOO_LARGE over the
 * server's maximum file size.
 */
export async function createUpload(
  ctx: EngineContext,
  idleSeconds: number,
  workspace: string,
  rawPath: string,
  rawOptions: CreateUpload,
): Promise<Upload> {
  validateWorkspaceName(workspace);
  const path = normalizeEntryPath(rawPath);
  const { size, sha256, ...write } = parseOptions(CreateUploadSchema, rawOptions);
  if (size > ctx.limits.maxFileSize) throw tooLarge(ctx.limits.maxFileSize);
  const { ws } = await precheck(ctx, workspace, path, write, sha256, size);
  const now = ctx.clock();
  const row: UploadRecord = {
    id: randomUUID(),
    workspaceId: ws.id,
    path,
    principalId: ctx.actor.principalId,
    keyId: ctx.actor.keyId,
    size,
    sha256: sha256 ?? null,
    received: 0,
    options: JSON.stringify(write),
    createdAt: now,
    expiresAt: now + idleSeconds * 1000,
  };
  await ctx.commit(async (tx) => {
    // Housekeeping rides along: a few abandoned sessions of any workspace are dropped.
    await tx.uploads.deleteExpired(now, 20);
    await tx.uploads.insert(row);
    return null;
  });
  return uploadOut(row);
}

export async function getUpload(
  ctx: EngineContext,
  workspace: string,
  id: string,
): Promise<Upload> {
  return uploadOut(await ownUpload(ctx, workspace, id));
}

export async function listUploads(
  ctx: EngineContext,
  workspace: string,
  rawOptions?: { path?: string },
): Promise<Upload[]> {
  validateWorkspaceName(workspace);
  const { path } = parseOptions(ListUploadsSchema, rawOptions ?? {});
  const ws = await requireWorkspace(ctx.store, workspace);
  const open = await ctx.store.uploads.live(ws.id, ctx.actor.principalId, ctx.clock());
  await Promise.all(open.map((row) => settled(row.id)));
  const rows = await ctx.store.uploads.live(
    ws.id,
    ctx.actor.principalId,
    ctx.clock(),
    path === undefined ? undefined : normalizeEntryPath(path),
  );
  return rows.map(uploadOut);
}

function offsetMismatch(row: UploadRecord): SatchelError {
  return new SatchelError(
    'CONFLICT',
    `upload ${row.id} is at offset ${row.received}: send the bytes from there`,
    { upload: row.id, offset: row.received, reason: 'offset_mismatch' },
  );
}

async function* pieces(content: Content): AsyncGenerator<Uint8Array> {
  if (typeof content === 'string') yield Buffer.from(content, 'utf8');
  else if (content instanceof Uint8Array) yield content;
  else {
    for await (const piece of content) {
      yield typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
    }
  }
}

/**
 * Stores the bytes that start at `offset` of the file. CONFLICT (`reason: 'offset_mismatch'`,
 * `offset`: where to resume) when the upload is elsewhere; TOO_LARGE past the declared size
 * (nothing of this part kept). A body that ends early keeps what arrived: the offset tells.
 */
export async function appendUpload(
  ctx: EngineContext,
  idleSeconds: number,
  workspace: string,
  id: string,
  offset: number,
  content: Content,
): Promise<Upload> {
  const row = await ownUpload(ctx, workspace, id);
  if (partsInFlight.has(id)) throw offsetMismatch(row);
  const done = storePart(ctx, idleSeconds, row, offset, content);
  partsInFlight.set(id, done);
  try {
    return await done;
  } finally {
    if (partsInFlight.get(id) === done) partsInFlight.delete(id);
  }
}

async function storePart(
  ctx: EngineContext,
  idleSeconds: number,
  row: UploadRecord,
  offset: number,
  content: Content,
): Promise<Upload> {
  const id = row.id;
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new SatchelError('INVALID_INPUT', 'offset must be a non-negative integer', {
      field: 'offset',
    });
  }
  if (offset !== row.received) throw offsetMismatch(row);
  const remaining = row.size - row.received;
  let ref: Awaited<ReturnType<typeof ctx.blobs.put>>;
  try {
    ref = await ctx.blobs.put(pieces(content), { maxBytes: remaining });
  } catch (error) {
    if (error instanceof SatchelError && error.code === 'TOO_LARGE') {
      throw new SatchelError(
        'TOO_LARGE',
        `upload ${id} was declared as ${row.size} bytes; this part goes past it`,
        { upload: id, size: row.size, offset: row.received },
      );
    }
    throw error;
  }
  if (ref.size === 0) return uploadOut(row);
  const expiresAt = ctx.clock() + idleSeconds * 1000;
  const part = {
    uploadId: id,
    workspaceId: row.workspaceId,
    start: offset,
    size: ref.size,
    hash: ref.hash,
    chunkSize: ref.chunkSize,
    chunks: ref.chunks,
  };
  const added = await ctx.commit(async (tx) =>
    (await tx.uploads.addPart(part, expiresAt)) ? 1 : null,
  );
  if (added === null) {
    // Another writer moved the session first (two clients resuming at once).
    const now = await ctx.store.uploads.byId(row.workspaceId, id);
    if (!now) throw noSuchUpload(id);
    throw offsetMismatch(now);
  }
  return uploadOut({ ...row, received: offset + ref.size, expiresAt });
}

/** The stored parts of an upload as one verified stream, in order. */
async function* assembled(ctx: EngineContext, row: UploadRecord): AsyncGenerator<Uint8Array> {
  const parts = await ctx.store.uploads.parts(row.id);
  let at = 0;
  for (const part of parts) {
    if (part.start !== at) {
      throw new SatchelError('INTERNAL', `upload ${row.id} is missing bytes at ${at}`, {
        upload: row.id,
      });
    }
    yield* ctx.blobs.get({
      hash: part.hash,
      size: part.size,
      chunkSize: part.chunkSize,
      chunks: part.chunks,
    });
    at += part.size;
  }
}

/**
 * Writes the uploaded bytes as one new version of the session's path, through the write path of
 * `writeFile`: authorised again now (the key may have lost access since), preconditions and
 * locks checked, audited, durable. CONFLICT (`reason: 'incomplete'`) before all bytes arrived;
 * INVALID_INPUT (`reason: 'hash_mismatch'`) when the bytes do not hash to the declared SHA-256,
 * and PRECONDITION_FAILED when its ifMatch / ifNoneMatch no longer hold: both drop the session
 * (start again).
 */
export async function completeUpload(
  ctx: EngineContext,
  workspace: string,
  id: string,
): Promise<FileInfo> {
  const row = await ownUpload(ctx, workspace, id);
  await workspaceCheck(ctx.actor, workspace, 'file.write', [row.path])(ctx);
  if (row.received !== row.size) {
    throw new SatchelError(
      'CONFLICT',
      `upload ${id} has ${row.received} of ${row.size} bytes: send the rest first`,
      { upload: id, offset: row.received, size: row.size, reason: 'incomplete' },
    );
  }
  const options: WriteOptions = parseOptions(WriteOptionsSchema, JSON.parse(row.options));
  try {
    return await completeChecked(ctx, workspace, row, options);
  } catch (error) {
    // Its conditions can never hold again (the head moved on): drop it, so no later run
    // resumes a write that is bound to fail; the caller starts again from what it knows now.
    if (error instanceof SatchelError && error.code === 'PRECONDITION_FAILED') {
      await ctx.store.transaction((tx) => tx.uploads.delete(id));
    }
    throw error;
  }
}

async function completeChecked(
  ctx: EngineContext,
  workspace: string,
  row: UploadRecord,
  options: WriteOptions,
): Promise<FileInfo> {
  const id = row.id;
  await precheck(ctx, workspace, row.path, options, null, row.size);
  const stored = await ingest(assembled(ctx, row), ctx.limits, ctx.blobs);
  if (row.sha256 !== null && stored.hash !== row.sha256) {
    await ctx.store.transaction((tx) => tx.uploads.delete(id));
    throw new SatchelError(
      'INVALID_INPUT',
      `the uploaded bytes hash to ${stored.hash}, not the declared ${row.sha256}; upload again`,
      { upload: id, expected: row.sha256, actual: stored.hash, reason: 'hash_mismatch' },
    );
  }
  return ctx.commit(async (tx) => {
    if (!(await tx.uploads.delete(id))) throw noSuchUpload(id);
    return commitContent(tx, ctx, workspace, row.path, stored, 'write', options);
  });
}

export async function cancelUpload(
  ctx: EngineContext,
  workspace: string,
  id: string,
): Promise<void> {
  const row = await ownUpload(ctx, workspace, id);
  await ctx.store.transaction((tx) => tx.uploads.delete(row.id));
}

/** The path an upload writes, for the audit entry of its completion (null when unknown). */
export async function uploadPath(
  store: EngineContext['store'],
  workspace: unknown,
  id: unknown,
): Promise<string | null> {
  if (typeof workspace !== 'string' || typeof id !== 'string') return null;
  try {
    const ws = await store.findWorkspace(workspace);
    return ws ? ((await store.uploads.byId(ws.id, id))?.path ?? null) : null;
  } catch {
    return null;
  }
}
