/**
 * What applying a sync plan works with and reports (apply.ts, batch-apply.ts): its context, its
 * progress and result, and how an applied action is recorded in the state.
 */
import type { Satchel } from '../operations/satchel.js';
import type { SyncConflict, SyncSkipped } from '../schemas/sync.js';
import type { SyncAction } from './plan.js';
import type { FileState, SyncState } from './state.js';
import type { SyncTree } from './tree.js';

export interface SyncProgress {
  readonly done: number;
  readonly total: number;
  /** Bytes of the files moved so far (counted when each file is done). */
  readonly bytes: number;
  /** Bytes the planned uploads and downloads move in all (known once the plan is). */
  readonly totalBytes: number;
  /**
   * Of those (or of files still under way), bytes the server already had from an earlier run:
   * resumed uploads continued from their offset, not sent again.
   */
  readonly resumed: number;
}

/**
 * The workspace seqs a sync cycle's own writes took, path by path (settled.ts): when they are
 * every seq since the listing, no other writer came in between and the position can be saved
 * without reading the change feed. `unaccounted` once the cycle changed the workspace without
 * learning the seq (a deletion).
 */
export interface OwnWrites {
  readonly seqs: Map<number, string>;
  unaccounted: boolean;
}

export interface ApplyContext {
  readonly satchel: Satchel;
  readonly workspace: string;
  readonly tree: SyncTree;
  readonly state: SyncState;
  readonly label: string;
  readonly session?: string;
  readonly clock: () => number;
  readonly concurrency: number;
  /** Content hashes the workspace holds now: uploads of these go by hash. */
  readonly remoteHashes: ReadonlySet<string>;
  /** Every path either side has, so conflict names never collide. */
  readonly taken: (path: string) => boolean;
  readonly onProgress?: (progress: SyncProgress) => void;
  /** Files at least this large go as resumable uploads (`resumableUpload`); unset: never. */
  readonly resumableAbove?: number;
  /**
   * Move files through the batch transfer calls (`uploadFiles`, `downloadFiles`; batch-apply.ts).
   * Unset: downloads and uploads in batches, to a server and into the embedded engine alike —
   * faster both ways (docs/benchmarks.md, "Bulk metadata write") — for passes of 16 files or
   * more (a watch cycle's edit is one call). `true`: every pass in batches; `false`: JSON batches of small uploads and one
   * call per other file, as a server without the batch routes gets anyway.
   */
  readonly batchTransfer?: boolean;
  /** Where the cycle's own writes are recorded (sync.ts hands it to `settle`). */
  readonly own?: OwnWrites;
}

export interface ApplyResult {
  uploaded: number;
  deduplicated: number;
  downloaded: number;
  deletedRemote: number;
  deletedLocal: number;
  retry: number;
  bytesUp: number;
  bytesDown: number;
  conflicts: SyncConflict[];
  skipped: SyncSkipped[];
}

/** A result with nothing done yet. */
export function emptyApplyResult(): ApplyResult {
  return {
    uploaded: 0,
    deduplicated: 0,
    downloaded: 0,
    deletedRemote: 0,
    deletedLocal: 0,
    retry: 0,
    bytesUp: 0,
    bytesDown: 0,
    conflicts: [],
    skipped: [],
  };
}

/** Adds what `part` did to `total` (its retries replace the total's: the last pass's count). */
export function merge(total: ApplyResult, part: ApplyResult): void {
  total.uploaded += part.uploaded;
  total.deduplicated += part.deduplicated;
  total.downloaded += part.downloaded;
  total.deletedRemote += part.deletedRemote;
  total.deletedLocal += part.deletedLocal;
  total.bytesUp += part.bytesUp;
  total.bytesDown += part.bytesDown;
  total.retry = part.retry;
  total.conflicts.push(...part.conflicts);
  total.skipped.push(...part.skipped);
}

/** The state of content `file` as the tree holds it now (`at`: its mtime and inode). */
export function written(
  file: { seq: number; hash: string; size: number },
  at: { mtimeMs: number; ino?: number | undefined },
): FileState {
  const { seq, hash, size } = file;
  const { mtimeMs, ino } = at;
  // One literal per shape: V8 gives a spread copy of an object with a fractional field
  // (mtimeMs) a hidden class of its own, ~250 bytes more for each of the state's files.
  return ino === undefined ? { seq, hash, size, mtimeMs } : { seq, hash, size, mtimeMs, ino };
}

/** The bytes an action moves: what it uploads or downloads (a conflict does both). */
export function bytesOf(action: SyncAction): number {
  if (action.kind === 'upload') return action.local.size;
  if (action.kind === 'download') return action.remote.size;
  if (action.kind === 'conflict') return action.local.size + action.remote.size;
  return 0;
}
