/** Stored records as the public shapes callers see (FileInfo, Version, ChangeEvent). */
import type { ChangeEvent, FileInfo, Version, VersionOp } from '@satchel/client/schemas/index.js';
import type { EntryRow, VersionRow } from '../store/metadata/metadata-store.js';

export const iso = (ms: number): string => new Date(ms).toISOString();

/** The FileInfo of a stored entry or version, as of `modifiedMs`. */
function fileInfo(row: EntryRow | VersionRow, modifiedMs: number): FileInfo {
  return {
    path: row.path,
    type: row.type,
    seq: Number(row.seq),
    size: Number(row.size),
    hash: row.hash,
    contentType: row.content_type,
    author: row.author,
    session: row.session,
    modifiedAt: iso(modifiedMs),
  };
}

export function entryInfo(row: EntryRow): FileInfo {
  return fileInfo(row, Number(row.modified_at));
}

/** FileInfo of a historical (non-deleted) version: modified when it was written. */
export function versionInfo(row: VersionRow): FileInfo {
  return fileInfo(row, Number(row.created_at));
}

export function versionOut(row: VersionRow): Version {
  return {
    path: row.path,
    seq: Number(row.seq),
    op: row.op as VersionOp,
    deleted: row.deleted === 1,
    type: row.type,
    size: Number(row.size),
    hash: row.hash,
    author: row.author,
    session: row.session,
    time: iso(Number(row.created_at)),
    message: row.message,
    origin:
      row.origin_path !== null && row.origin_seq !== null
        ? { path: row.origin_path, seq: Number(row.origin_seq) }
        : null,
  };
}

/** A version as a change-feed event (the change feed, webhooks and subscriptions send these). */
export function changeEvent(row: VersionRow): ChangeEvent {
  return {
    seq: Number(row.seq),
    type: row.op as VersionOp,
    path: row.path,
    version: Number(row.seq),
    deleted: row.deleted === 1,
    kind: row.type,
    size: Number(row.size),
    hash: row.hash,
    actor: row.author,
    session: row.session,
    time: iso(Number(row.created_at)),
    origin:
      row.origin_path !== null && row.origin_seq !== null
        ? { path: row.origin_path, seq: Number(row.origin_seq) }
        : null,
  };
}
