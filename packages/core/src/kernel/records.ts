/** Stored records as the public shapes callers see (FileInfo, Version, ChangeEvent). */
import type { ChangeEvent, FileInfo, Version, VersionOp } from '@satchel/client/schemas/index.js';
import type { EntryRecord, VersionRecord } from '../store/metadata/metadata-store.js';

export const iso = (ms: number): string => new Date(ms).toISOString();

/** The FileInfo of a stored entry or version, as of `modifiedMs`. */
function fileInfo(row: EntryRecord | VersionRecord, modifiedMs: number): FileInfo {
  return {
    path: row.path,
    type: row.type,
    seq: row.seq,
    size: row.size,
    hash: row.hash,
    contentType: row.contentType,
    author: row.author,
    session: row.session,
    modifiedAt: iso(modifiedMs),
  };
}

export function entryInfo(row: EntryRecord): FileInfo {
  return fileInfo(row, row.modifiedAt);
}

/** FileInfo of a historical (non-deleted) version: modified when it was written. */
export function versionInfo(row: VersionRecord): FileInfo {
  return fileInfo(row, row.createdAt);
}

export function versionOut(row: VersionRecord): Version {
  return {
    path: row.path,
    seq: row.seq,
    op: row.op as VersionOp,
    deleted: row.deleted,
    type: row.type,
    size: row.size,
    hash: row.hash,
    author: row.author,
    session: row.session,
    time: iso(row.createdAt),
    message: row.message,
    origin: row.origin && { path: row.origin.path, seq: row.origin.seq },
  };
}

/** A version as a change-feed event (the change feed, webhooks and subscriptions send these). */
export function changeEvent(row: VersionRecord): ChangeEvent {
  return {
    seq: row.seq,
    type: row.op as VersionOp,
    path: row.path,
    version: row.seq,
    deleted: row.deleted,
    kind: row.type,
    size: row.size,
    hash: row.hash,
    actor: row.author,
    session: row.session,
    time: iso(row.createdAt),
    origin: row.origin && { path: row.origin.path, seq: row.origin.seq },
  };
}
