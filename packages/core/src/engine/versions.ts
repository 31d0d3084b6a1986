/** Recording versions: the one place that writes `versions` and `entries` rows together. */
import { SatchelError } from '@satchel/client/errors.js';
import { parentOf } from '@satchel/client/paths.js';
import type { FileInfo, VersionOp } from '@satchel/client/schemas/index.js';
import type { EngineContext } from '../kernel/context.js';
import { entryInfo } from '../kernel/records.js';
import type { EntryRecord, MetadataTx, WorkspaceRecord } from '../store/metadata/metadata-store.js';

export interface Stamp {
  readonly workspaceId: string;
  readonly seq: number;
  readonly now: number;
  readonly author: string;
  readonly session: string | null;
}

export interface FileContent {
  readonly hash: string;
  readonly size: number;
  readonly contentType: string;
}

export interface VersionExtras {
  readonly message?: string | null | undefined;
  readonly origin?: { readonly path: string; readonly seq: number } | null;
}

/** Starts a mutation: hands out the next seq of the workspace. */
export async function stamp(
  tx: MetadataTx,
  ctx: EngineContext,
  workspaceId: string,
  session: string | undefined,
): Promise<Stamp> {
  return {
    workspaceId,
    seq: await tx.nextSeq(workspaceId),
    now: ctx.clock(),
    author: ctx.actor.name,
    session: session ?? null,
  };
}

/** A stamp for a workspace row whose seq was just claimed (`MetadataTx.claimSeq`). */
export function claimedStamp(
  ctx: EngineContext,
  ws: WorkspaceRecord,
  session: string | undefined,
): Stamp {
  return {
    workspaceId: ws.id,
    seq: ws.seq,
    now: ctx.clock(),
    author: ctx.actor.name,
    session: session ?? null,
  };
}

/**
 * Creates missing ancestor directories of `path` (each an implicit `mkdir` version in the same
 * mutation). CONFLICT if an ancestor is a file. Relies on the invariant that every entry's parent
 * exists, so the walk stops at the first existing ancestor. `parent`, when the caller already
 * looked it up, is the parent's entry (null: it does not exist).
 */
export async function ensureParents(
  tx: MetadataTx,
  s: Stamp,
  path: string,
  parent?: EntryRecord | null,
): Promise<void> {
  const missing: string[] = [];
  for (let dir = parentOf(path); dir !== '/'; dir = parentOf(dir)) {
    const entry =
      dir === parentOf(path) && parent !== undefined
        ? (parent ?? undefined)
        : await tx.getEntry(s.workspaceId, dir);
    if (entry) {
      if (entry.type !== 'directory') {
        throw new SatchelError('CONFLICT', `${dir} is a file, so ${path} cannot be created`, {
          path,
          conflict: dir,
          reason: 'parent_is_file',
        });
      }
      break;
    }
    missing.push(dir);
  }
  for (const dir of missing.reverse()) await putDirectory(tx, s, dir, 'mkdir');
}

/**
 * Writes one version of `path` at the stamp's seq: a live version also becomes the head entry;
 * a tombstone removes the entry. Returns the entry the version describes.
 */
async function recordVersion(
  tx: MetadataTx,
  s: Stamp,
  path: string,
  op: VersionOp,
  type: 'file' | 'directory',
  content: FileContent | null,
  deleted: boolean,
  extras: VersionExtras,
): Promise<EntryRecord> {
  const shared = {
    workspaceId: s.workspaceId,
    path,
    seq: s.seq,
    type,
    hash: content?.hash ?? null,
    size: content?.size ?? 0,
    contentType: content?.contentType ?? null,
    author: s.author,
    session: s.session,
  };
  await tx.insertVersion({
    ...shared,
    op,
    deleted,
    message: extras.message ?? null,
    origin: extras.origin ?? null,
    createdAt: s.now,
  });
  const entry: EntryRecord = { ...shared, parent: parentOf(path), modifiedAt: s.now };
  if (deleted) await tx.deleteEntry(s.workspaceId, path);
  else await tx.putEntry(entry);
  return entry;
}

async function putLive(
  tx: MetadataTx,
  s: Stamp,
  path: string,
  op: VersionOp,
  content: FileContent | null,
  extras: VersionExtras,
): Promise<FileInfo> {
  const type = content ? 'file' : 'directory';
  return entryInfo(await recordVersion(tx, s, path, op, type, content, false, extras));
}

export function putDirectory(
  tx: MetadataTx,
  s: Stamp,
  path: string,
  op: VersionOp,
  extras: VersionExtras = {},
): Promise<FileInfo> {
  return putLive(tx, s, path, op, null, extras);
}

/** Records a file version and makes it the head. The blob must already be registered. */
export function putFile(
  tx: MetadataTx,
  s: Stamp,
  path: string,
  op: VersionOp,
  content: FileContent,
  extras: VersionExtras = {},
): Promise<FileInfo> {
  return putLive(tx, s, path, op, content, extras);
}

/** Records a tombstone for an entry and removes it from the live tree. */
export async function putTombstone(
  tx: MetadataTx,
  s: Stamp,
  entry: EntryRecord,
  op: VersionOp,
  extras: VersionExtras = {},
): Promise<void> {
  await recordVersion(tx, s, entry.path, op, entry.type, null, true, extras);
}
