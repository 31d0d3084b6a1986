/**
 * The bulk write of a group of files (issue 19): what `commitContent` does file by file, in a
 * handful of statements for the whole group — one claim of consecutive seqs (each file its own
 * version seq, in the group's order), one read of every file and ancestor, one lock statement
 * while the workspace holds no lock, and multi-row INSERTs for blobs, versions and entries.
 * Missing parent directories are created once, by the first file under them, at its seq.
 * Refusals are those of the file-by-file path and throw the same errors, so the caller's
 * transaction rolls back the group as before (batch-transfer.ts then commits file by file).
 */
import { SatchelError } from '@satchel/client/errors.js';
import { parentOf } from '@satchel/client/paths.js';
import type { FileInfo, WriteOptions } from '@satchel/client/schemas/index.js';
import { contentTypeFor } from '../kernel/content.js';
import { checkPreconditions, type EngineContext, workspaceNotFound } from '../kernel/context.js';
import { entryInfo } from '../kernel/records.js';
import { checkWriteLocks } from '../locks/locks.js';
import type {
  BlobRecord,
  EntryRecord,
  MetadataTx,
  VersionRecord,
} from '../store/metadata/metadata-store.js';
import { blobRecord, registerContent } from './ingest.js';
import { hasQuota } from './quota.js';
import type { GroupFile } from './write-files.js';

/** Paths per read of the entries a group touches. */
const READ_PATHS = 400;

/**
 * Commits `files` (two or more, distinct paths) in bulk, or returns null — having written
 * nothing — when the group needs the file-by-file path: a workspace with quotas (each file's
 * growth is checked on its own), or a write pinned by `ifMatch` that may be its own retry
 * (`unchangedHead` in write.ts).
 */
export async function commitBulk(
  tx: MetadataTx,
  ctx: EngineContext,
  workspace: string,
  files: readonly GroupFile[],
  options: WriteOptions,
): Promise<FileInfo[] | null> {
  // Locks the workspace row first, as every write's claim does, so the reads below are current.
  const locked = await tx.claimSeqs(workspace, 0);
  if (!locked) throw workspaceNotFound(workspace);
  if (hasQuota(locked)) return null;
  const known = await entriesOf(tx, locked.id, files);
  const now = ctx.clock();
  const author = ctx.actor.name;
  const session = options.session ?? null;
  const versions: VersionRecord[] = [];
  const entries: EntryRecord[] = [];
  const inline = new Map<string, BlobRecord>();
  const infos: FileInfo[] = [];
  for (const [i, file] of files.entries()) {
    const { path, stored } = file;
    const head = known.get(path);
    if (head?.type === 'directory') {
      throw new SatchelError('CONFLICT', `${path} is a directory`, {
        path,
        reason: 'type_mismatch',
      });
    }
    if (mayBeRetry(head, file, author, options.session)) return null;
    checkPreconditions(path, head, { ifMatch: file.ifMatch, ifNoneMatch: file.ifNoneMatch });
    const seq = locked.seq + 1 + i;
    const stamp = { workspaceId: locked.id, seq, author, session };
    const record = (
      at: string,
      type: 'file' | 'directory',
      content: { hash: string; size: number; contentType: string } | null,
    ): EntryRecord => {
      const shared = {
        ...stamp,
        path: at,
        type,
        hash: content?.hash ?? null,
        size: content?.size ?? 0,
        contentType: content?.contentType ?? null,
      };
      versions.push({
        ...shared,
        op: type === 'file' ? 'write' : 'mkdir',
        deleted: false,
        message: type === 'file' ? (options.message ?? null) : null,
        origin: null,
        createdAt: now,
      });
      const entry: EntryRecord = { ...shared, parent: parentOf(at), modifiedAt: now };
      entries.push(entry);
      known.set(at, entry);
      return entry;
    };
    for (const dir of missingParents(path, known)) record(dir, 'directory', null);
    const contentType = contentTypeFor(path, stored.head);
    infos.push(
      entryInfo(record(path, 'file', { hash: stored.hash, size: stored.size, contentType })),
    );
    if (stored.inline) inline.set(stored.hash, blobRecord(stored, now));
  }
  const ws = await tx.claimSeqs(workspace, files.length);
  if (!ws) throw workspaceNotFound(workspace);
  if (options.lockToken !== undefined || (await tx.anyLiveLock(ws.id, now))) {
    for (const { path } of files) {
      await checkWriteLocks(tx, ctx, ws.id, { path, tree: false }, options.lockToken, now);
    }
  }
  await tx.putBlobs([...inline.values()]);
  for (const { stored } of files) {
    if (!stored.inline) await registerContent(tx, ctx.blobs, stored, now);
  }
  await tx.insertVersions(versions);
  await tx.putEntries(entries);
  return infos;
}

/** The entries of every file of the group and of every ancestor directory, by path. */
async function entriesOf(
  tx: MetadataTx,
  workspaceId: string,
  files: readonly GroupFile[],
): Promise<Map<string, EntryRecord>> {
  const paths = new Set<string>();
  for (const { path } of files) {
    paths.add(path);
    for (let dir = parentOf(path); dir !== '/' && !paths.has(dir); dir = parentOf(dir)) {
      paths.add(dir);
    }
  }
  const all = [...paths];
  const known = new Map<string, EntryRecord>();
  for (let i = 0; i < all.length; i += READ_PATHS) {
    const found = await tx.getEntries(workspaceId, all.slice(i, i + READ_PATHS));
    for (const [path, entry] of found) known.set(path, entry);
  }
  return known;
}

/**
 * The ancestors of `path` to create, outermost first (`ensureParents` in versions.ts): up to
 * the first that exists. CONFLICT if that one is a file.
 */
function missingParents(path: string, known: ReadonlyMap<string, EntryRecord>): string[] {
  const missing: string[] = [];
  for (let dir = parentOf(path); dir !== '/'; dir = parentOf(dir)) {
    const entry = known.get(dir);
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
  return missing.reverse();
}

/** True when a write pinned by `ifMatch` may find its own earlier attempt (write.ts decides). */
function mayBeRetry(
  head: EntryRecord | undefined,
  file: GroupFile,
  author: string,
  session: string | undefined,
): boolean {
  return (
    file.ifMatch !== undefined &&
    head?.type === 'file' &&
    head.seq !== file.ifMatch &&
    head.hash === file.stored.hash &&
    head.author === author &&
    (session === undefined || head.session === session)
  );
}
