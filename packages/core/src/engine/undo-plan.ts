/**
 * The plan of an undo (docs/time-travel.md, Undo): which versions it takes back, what each path
 * they touched goes back to, and which paths it must leave because someone else's work is there.
 * Read-only; the same plan is made for the preview and, again, inside the apply's transaction.
 *
 * For each path the selected versions touched, the target is the path's state just before the
 * first of them (its base). The path is a conflict (`changed_since`) when a version the selection
 * does not hold was written on it after that first selected version: reverting would silently
 * drop that work. The tree must stay a tree, so a directory is not removed while anything stays
 * beneath it (`not_empty`), and nothing is brought back beneath a file (`parent_is_file`).
 */
import { SatchelError } from '@satchel/client/errors.js';
import type { UndoAction, UndoConflict, UndoTarget } from '@satchel/client/schemas/index.js';
import { resolveAt } from '../kernel/at.js';
import type {
  EntryRecord,
  MetadataQueries,
  VersionRecord,
  WorkspaceRecord,
} from '../store/metadata/metadata-store.js';
import type { UndoSelector } from '../store/metadata/past-queries.js';
import { keepTree } from './tree-guard.js';

/** Most paths one undo may touch: its apply is one transaction. */
export const MAX_UNDO_PATHS = 50_000;

const ENTRY_BATCH = 500;

/** What the undo writes on one path. */
export interface PlannedChange {
  readonly path: string;
  readonly action: UndoAction;
  /** The live head now; undefined when the path is absent (a recreate). */
  readonly head: EntryRecord | undefined;
  /** The state it goes back to: a live version, or undefined for a delete. */
  readonly target: VersionRecord | undefined;
  /** The version current just before the first selected one (a tombstone too), if any. */
  readonly base: VersionRecord | undefined;
  /** The selected versions on the path: first and last seq. */
  readonly first: number;
  readonly last: number;
  readonly forced: boolean;
}

export interface PlannedConflict {
  readonly path: string;
  readonly reason: UndoConflict['reason'];
  readonly head: EntryRecord | undefined;
  readonly base: VersionRecord | undefined;
  readonly last: number;
}

export interface UndoPlan {
  /** The workspace head the plan saw. */
  readonly head: number;
  /** Changes after this seq were considered. */
  readonly since: number;
  /** Every path the selected versions touched. */
  readonly touched: ReadonlySet<string>;
  /** By path, ascending (parents before children). */
  readonly changes: readonly PlannedChange[];
  readonly conflicts: readonly PlannedConflict[];
  readonly unchanged: number;
}

/** The floor seq and the selector a target names; INVALID_INPUT / NOT_FOUND as `resolveAt`. */
export async function resolveTarget(
  q: MetadataQueries,
  ws: WorkspaceRecord,
  target: UndoTarget,
): Promise<{ since: number; who: UndoSelector }> {
  let since = 0;
  if (target.since !== undefined) since = await resolveAt(q, ws, target.since, 'since');
  if (target.sinceTime !== undefined) {
    const before = await q.past.seqBefore(ws.id, Date.parse(target.sinceTime));
    since = Math.max(since, before ?? ws.seq);
  }
  // A fork's versions up to its fork point are its starting state, not changes to take back.
  const fork = await q.forks.get(ws.id);
  if (fork !== undefined) since = Math.max(since, fork.seq);
  const who: UndoSelector = {
    ...(target.session === undefined ? {} : { session: target.session }),
    ...(target.principal === undefined ? {} : { author: target.principal }),
  };
  return { since, who };
}

/** The head entries of `paths` that exist, by path, read in batches. */
export async function entriesOf(
  q: MetadataQueries,
  workspaceId: string,
  paths: readonly string[],
): Promise<Map<string, EntryRecord>> {
  const out = new Map<string, EntryRecord>();
  for (let i = 0; i < paths.length; i += ENTRY_BATCH) {
    const batch = await q.getEntries(workspaceId, paths.slice(i, i + ENTRY_BATCH));
    for (const [path, entry] of batch) out.set(path, entry);
  }
  return out;
}

function sameState(head: EntryRecord | undefined, target: VersionRecord | undefined): boolean {
  if (head === undefined || target === undefined) return head === target;
  if (head.type !== target.type) return false;
  return head.type === 'directory' || head.hash === target.hash;
}

function actionOf(head: EntryRecord | undefined, target: VersionRecord | undefined): UndoAction {
  if (target === undefined) return 'delete';
  return head === undefined ? 'recreate' : 'revert';
}

/**
 * Plans undoing, in `ws` as it is in `q`, the versions after `since` that `who` selects.
 * `force` reverts `changed_since` conflicts too; the tree's conflicts always stay.
 * TOO_LARGE past MAX_UNDO_PATHS paths.
 */
export async function planUndo(
  q: MetadataQueries,
  ws: WorkspaceRecord,
  since: number,
  who: UndoSelector,
  force: boolean,
): Promise<UndoPlan> {
  const touched = await q.past.touched(ws.id, since, ws.seq, who);
  if (touched.length > MAX_UNDO_PATHS) {
    throw new SatchelError(
      'TOO_LARGE',
      `the undo would touch ${touched.length} paths; at most ${MAX_UNDO_PATHS} at once (undo a later point first)`,
      { paths: touched.length, limit: MAX_UNDO_PATHS },
    );
  }
  const selective = who.session !== undefined || who.author !== undefined;
  const others = selective
    ? await q.past.othersLatest(ws.id, since, ws.seq, who)
    : new Map<string, number>();
  const heads = await entriesOf(
    q,
    ws.id,
    touched.map((t) => t.path),
  );

  const changes = new Map<string, PlannedChange>();
  const conflicts = new Map<string, PlannedConflict>();
  let unchanged = 0;
  for (const { path, first, last } of touched) {
    const before = await q.past.version(ws.id, path, first - 1);
    const base = before?.deleted === false ? before : undefined;
    const head = heads.get(path);
    const foreign = (others.get(path) ?? 0) > first;
    if (foreign && !force) {
      conflicts.set(path, { path, reason: 'changed_since', head, base: before, last });
    } else if (sameState(head, base)) {
      unchanged++;
    } else {
      const action = actionOf(head, base);
      const change = { path, action, head, target: base, base: before, first, last };
      changes.set(path, { ...change, forced: foreign });
    }
  }
  await keepTree(q, ws.id, changes, (change, reason) => {
    const { path, head, base, last } = change;
    conflicts.set(path, { path, reason, head, base, last });
  });
  const byPath = (a: { path: string }, b: { path: string }) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
  return {
    head: ws.seq,
    since,
    touched: new Set(touched.map((t) => t.path)),
    changes: [...changes.values()].sort(byPath),
    conflicts: [...conflicts.values()].sort(byPath),
    unchanged,
  };
}
