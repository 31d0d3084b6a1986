/**
 * The plan of a merge (docs/time-travel.md, "Fork and merge"): a three-way comparison, per path,
 * of the base (the state a fork and its source last shared), ours (the target's head) and theirs
 * (the merged workspace's head). Read-only; made for the preview and again inside the apply.
 *
 * Only paths either side changed after the base are looked at (each side's versions after its
 * base seq). A path only theirs changed takes theirs (create, modify, delete); one only ours
 * changed, or both the same way, stays; one both changed differently is a conflict: ours stays
 * and theirs is kept beside it under the sync engine's conflict name. The tree stays a tree
 * (tree-guard.ts).
 */
import { SatchelError } from '@satchel/client/errors.js';
import { parentOf } from '@satchel/client/paths.js';
import type { MergeAction, MergeConflict } from '@satchel/client/schemas/index.js';
import { conflictPath } from '@satchel/client/sync/plan.js';
import type {
  EntryRecord,
  MetadataQueries,
  VersionRecord,
  WorkspaceRecord,
} from '../store/metadata/metadata-store.js';
import type { ForkRecord } from '../store/metadata/records.js';
import { keepTree } from './tree-guard.js';
import { entriesOf, MAX_UNDO_PATHS } from './undo-plan.js';

/** How the two workspaces of a merge are related, and the base each side's seq names. */
export interface MergeSides {
  readonly into: WorkspaceRecord;
  readonly from: WorkspaceRecord;
  readonly fork: ForkRecord;
  /** `from` is the fork, merged back into its source (the base moves on after it). */
  readonly back: boolean;
  /** The shared state as `into` numbers it, and as `from` does. */
  readonly baseInto: number;
  readonly baseFrom: number;
}

export interface PlannedMergeChange {
  readonly path: string;
  readonly action: MergeAction;
  /** Ours: the target's head; undefined when absent (a create). */
  readonly head: EntryRecord | undefined;
  /** Theirs: what is written; undefined for a delete. */
  readonly target: EntryRecord | undefined;
  readonly base: VersionRecord | undefined;
}

export interface PlannedMergeConflict {
  readonly path: string;
  readonly reason: MergeConflict['reason'];
  readonly base: VersionRecord | undefined;
  readonly ours: EntryRecord | undefined;
  readonly theirs: EntryRecord | undefined;
  /** Where theirs is kept beside ours; null when it is not a file with content to keep. */
  readonly keptAs: string | null;
}

export interface MergePlan {
  readonly sides: MergeSides;
  /** Every path either side changed since the base. */
  readonly touched: ReadonlySet<string>;
  /** By path, ascending (parents before children). */
  readonly changes: readonly PlannedMergeChange[];
  readonly conflicts: readonly PlannedMergeConflict[];
  readonly unchanged: number;
}

/**
 * The fork relation between `into` and `from`: `from` forked from `into` (a merge back) or
 * `into` forked from `from` (bringing the source's changes into the fork). INVALID_INPUT
 * (`reason: no_fork_base`) when neither is the other's fork.
 */
export async function relate(
  q: MetadataQueries,
  into: WorkspaceRecord,
  from: WorkspaceRecord,
): Promise<MergeSides> {
  const fromFork = into.id === from.id ? undefined : await q.forks.get(from.id);
  if (fromFork?.sourceId === into.id) {
    return {
      into,
      from,
      fork: fromFork,
      back: true,
      baseInto: fromFork.baseSourceSeq,
      baseFrom: fromFork.baseForkSeq,
    };
  }
  const intoFork = into.id === from.id ? undefined : await q.forks.get(into.id);
  if (intoFork?.sourceId === from.id) {
    return {
      into,
      from,
      fork: intoFork,
      back: false,
      baseInto: intoFork.baseForkSeq,
      baseFrom: intoFork.baseSourceSeq,
    };
  }
  throw new SatchelError(
    'INVALID_INPUT',
    `${from.name} and ${into.name} share no fork base: merge a fork into its source, or the source into its fork`,
    { field: 'from', from: from.name, into: into.name, reason: 'no_fork_base' },
  );
}

interface State {
  readonly type: 'file' | 'directory';
  readonly hash: string | null;
  readonly seq: number;
}

/** The same state: both absent, both directories, or files of one content (redacted: one version). */
function same(a: State | undefined, b: State | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.type !== b.type) return false;
  if (a.type === 'directory') return true;
  return a.hash !== null ? a.hash === b.hash : b.hash === null && a.seq === b.seq;
}

function actionOf(ours: EntryRecord | undefined, theirs: EntryRecord | undefined): MergeAction {
  if (theirs === undefined) return 'delete';
  return ours === undefined ? 'create' : 'modify';
}

/**
 * Plans merging `sides.from` into `sides.into` as both are in `q`; conflict copies are named
 * `name.conflict-<from>-<time theirs was written>.ext`, so a preview and the merge it approves
 * name them alike. TOO_LARGE past MAX_UNDO_PATHS paths.
 */
export async function planMerge(q: MetadataQueries, sides: MergeSides): Promise<MergePlan> {
  const { into, from, back } = sides;
  const ourPaths = await q.past.touched(into.id, sides.baseInto, into.seq, {});
  const theirPaths = await q.past.touched(from.id, sides.baseFrom, from.seq, {});
  const touched = new Set([...ourPaths, ...theirPaths].map((t) => t.path));
  if (touched.size > MAX_UNDO_PATHS) {
    throw new SatchelError(
      'TOO_LARGE',
      `the merge would look at ${touched.size} paths; at most ${MAX_UNDO_PATHS} at once`,
      { paths: touched.size, limit: MAX_UNDO_PATHS },
    );
  }
  const paths = [...touched].sort();
  const ours = await entriesOf(q, into.id, paths);
  const theirs = await entriesOf(q, from.id, paths);
  // The base is the fork's own state at its base seq: it holds the fork point (and, after a
  // merge back, the state that merge left both sides sharing).
  const [forkWs, forkBase] = back ? [from, sides.baseFrom] : [into, sides.baseInto];

  const changes = new Map<string, PlannedMergeChange>();
  const conflicts = new Map<string, Omit<PlannedMergeConflict, 'keptAs'>>();
  let unchanged = 0;
  for (const path of paths) {
    const before = await q.past.version(forkWs.id, path, forkBase);
    const base = before?.deleted === false ? before : undefined;
    const o = ours.get(path);
    const t = theirs.get(path);
    if (same(o, t) || same(t, base)) {
      unchanged++;
    } else if (!same(o, base)) {
      conflicts.set(path, { path, reason: 'both_changed', base, ours: o, theirs: t });
    } else if (t?.type === 'file' && t.hash === null) {
      conflicts.set(path, { path, reason: 'redacted', base, ours: o, theirs: t });
    } else {
      changes.set(path, { path, action: actionOf(o, t), head: o, target: t, base });
    }
  }
  await keepTree(q, into.id, changes, (change, reason) => {
    const { path, base, head, target } = change;
    conflicts.set(path, { path, reason, base, ours: head, theirs: target });
  });
  const kept = await keepBeside(q, into, from.name, [...conflicts.values()]);
  const byPath = (a: { path: string }, b: { path: string }) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
  return {
    sides,
    touched,
    changes: [...changes.values()].sort(byPath),
    conflicts: kept.sort(byPath),
    unchanged,
  };
}

/**
 * Names where theirs is kept beside each conflict: a file with content, under a path that is
 * free in the target and not beneath a file there (else it is not kept: `keptAs` null).
 */
async function keepBeside(
  q: MetadataQueries,
  into: WorkspaceRecord,
  label: string,
  conflicts: readonly Omit<PlannedMergeConflict, 'keptAs'>[],
): Promise<PlannedMergeConflict[]> {
  const taken = new Set<string>();
  const out: PlannedMergeConflict[] = [];
  for (const conflict of conflicts) {
    const { theirs, reason } = conflict;
    const keepable = theirs?.type === 'file' && theirs.hash !== null && reason !== 'parent_is_file';
    let keptAs: string | null = null;
    if (keepable && !(await beneathFile(q, into.id, conflict.path))) {
      for (;;) {
        const at = theirs.modifiedAt;
        const candidate = conflictPath(conflict.path, label, at, (p) => taken.has(p));
        taken.add(candidate);
        if ((await q.getEntry(into.id, candidate)) === undefined) {
          keptAs = candidate;
          break;
        }
      }
    }
    out.push({ ...conflict, keptAs });
  }
  return out;
}

async function beneathFile(q: MetadataQueries, workspaceId: string, path: string) {
  for (let dir = parentOf(path); dir !== '/'; dir = parentOf(dir)) {
    const entry = await q.getEntry(workspaceId, dir);
    if (entry) return entry.type === 'file';
  }
  return false;
}
