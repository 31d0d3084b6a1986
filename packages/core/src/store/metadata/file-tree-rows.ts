/**
 * The file tree's rows (workspaces, entries, versions, blobs) and their records (records.ts):
 * the one place that knows both spellings. Numbers are read through `Number` because a dialect
 * may hand 64-bit integers back as strings.
 */
import type { Insertable, Selectable } from 'kysely';
import type { BlobRecord, EntryRecord, VersionRecord, WorkspaceRecord } from './records.js';
import type { BlobsTable, EntriesTable, VersionsTable, WorkspacesTable } from './tables.js';

export type WorkspaceRow = Selectable<WorkspacesTable>;
export type EntryRow = Selectable<EntriesTable>;
export type VersionRow = Selectable<VersionsTable>;
export type BlobRow = Selectable<BlobsTable>;

const orNull = (n: number | null): number | null => (n === null ? null : Number(n));

export function toWorkspace(row: WorkspaceRow): WorkspaceRecord {
  return {
    id: row.id,
    name: row.name,
    seq: Number(row.seq),
    createdAt: Number(row.created_at),
    settings: row.settings,
    fence: Number(row.fence),
  };
}

/** The columns a new workspace is inserted with (`seq`, `settings` and `fence` start at defaults). */
export function newWorkspaceRow(
  ws: Pick<WorkspaceRecord, 'id' | 'name' | 'createdAt'>,
): Insertable<WorkspacesTable> {
  return { id: ws.id, name: ws.name, created_at: ws.createdAt };
}

export function toEntry(row: EntryRow): EntryRecord {
  return {
    workspaceId: row.workspace_id,
    path: row.path,
    parent: row.parent,
    type: row.type,
    seq: Number(row.seq),
    size: Number(row.size),
    hash: row.hash,
    contentType: row.content_type,
    author: row.author,
    session: row.session,
    modifiedAt: Number(row.modified_at),
  };
}

export function entryRow(entry: EntryRecord): EntryRow {
  return {
    workspace_id: entry.workspaceId,
    path: entry.path,
    parent: entry.parent,
    type: entry.type,
    seq: entry.seq,
    size: entry.size,
    hash: entry.hash,
    content_type: entry.contentType,
    author: entry.author,
    session: entry.session,
    modified_at: entry.modifiedAt,
  };
}

export function toVersion(row: VersionRow): VersionRecord {
  return {
    workspaceId: row.workspace_id,
    path: row.path,
    seq: Number(row.seq),
    op: row.op,
    type: row.type,
    deleted: Number(row.deleted) === 1,
    hash: row.hash,
    size: Number(row.size),
    contentType: row.content_type,
    author: row.author,
    session: row.session,
    message: row.message,
    origin:
      row.origin_path !== null && row.origin_seq !== null
        ? { path: row.origin_path, seq: Number(row.origin_seq) }
        : null,
    createdAt: Number(row.created_at),
  };
}

export function versionRow(version: VersionRecord): VersionRow {
  return {
    workspace_id: version.workspaceId,
    path: version.path,
    seq: version.seq,
    op: version.op,
    type: version.type,
    deleted: version.deleted ? 1 : 0,
    hash: version.hash,
    size: version.size,
    content_type: version.contentType,
    author: version.author,
    session: version.session,
    message: version.message,
    origin_path: version.origin?.path ?? null,
    origin_seq: version.origin?.seq ?? null,
    created_at: version.createdAt,
  };
}

/** A blob without its inline content (fsck lists these and reads the content one by one). */
export function toBlobMeta(row: Omit<BlobRow, 'data'>): Omit<BlobRecord, 'data'> {
  return {
    hash: row.hash,
    size: Number(row.size),
    location: row.location,
    chunkSize: orNull(row.chunk_size),
    chunks: row.chunks,
    createdAt: Number(row.created_at),
  };
}

export function toBlob(row: BlobRow): BlobRecord {
  return { ...toBlobMeta(row), data: row.data };
}

export function blobRow(blob: BlobRecord): BlobRow {
  return {
    hash: blob.hash,
    size: blob.size,
    location: blob.location,
    data: blob.data,
    chunk_size: blob.chunkSize,
    chunks: blob.chunks,
    created_at: blob.createdAt,
  };
}
