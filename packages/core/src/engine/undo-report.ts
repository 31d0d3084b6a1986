/**
 * An undo plan as callers see it (UndoPreview): each path's states as versions, and a unified
 * diff per text file — bounded per file and in total, so a preview of thousands of files stays
 * a readable answer.
 */
import type {
  UndoChange,
  UndoConflict,
  UndoPreview,
  UndoState,
} from '@satchel/client/schemas/index.js';
import { createTwoFilesPatch } from 'diff';
import { isBinary, readWhole } from '../kernel/content.js';
import type { EngineContext } from '../kernel/context.js';
import type {
  EntryRecord,
  MetadataQueries,
  VersionRecord,
  WorkspaceRecord,
} from '../store/metadata/metadata-store.js';
import type { PlannedChange, PlannedConflict, UndoPlan } from './undo-plan.js';

/** Files larger than this get no diff in a preview. */
const DIFF_FILE_BYTES = 256 * 1024;
/** One file's diff is cut here. */
const DIFF_TEXT_CHARS = 16 * 1024;
/** Diffs stop once the preview holds this much diff text. */
const DIFF_BUDGET_CHARS = 512 * 1024;

export const DEFAULT_UNDO_LIMIT = 1000;

export function versionState(row: VersionRecord | undefined): UndoState {
  if (row === undefined) return null;
  const { seq, deleted, type, size, hash, author, session } = row;
  return { seq, deleted, type, size, hash, author, session };
}

export function entryState(row: EntryRecord): UndoState {
  const { seq, type, size, hash, author, session } = row;
  return { seq, deleted: false, type, size, hash, author, session };
}

/** The head of a path now: its entry, or the deletion that removed it (null: never existed). */
async function headState(
  q: MetadataQueries,
  ws: WorkspaceRecord,
  path: string,
  head: EntryRecord | undefined,
): Promise<UndoState> {
  return head ? entryState(head) : versionState(await q.getVersion(ws.id, path));
}

interface Budget {
  left: number;
}

async function diffOf(
  ctx: EngineContext,
  q: MetadataQueries,
  change: PlannedChange,
  budget: Budget,
): Promise<{ diff: string | null; diffNote: string | null }> {
  const { head, target, path } = change;
  const from = head?.type === 'file' ? head : undefined;
  const to = target?.type === 'file' ? target : undefined;
  if (!from && !to) return { diff: null, diffNote: 'a directory' };
  if (budget.left <= 0) return { diff: null, diffNote: 'the preview holds enough diffs already' };
  if ((from?.size ?? 0) > DIFF_FILE_BYTES || (to?.size ?? 0) > DIFF_FILE_BYTES) {
    return { diff: null, diffNote: `larger than ${DIFF_FILE_BYTES} bytes` };
  }
  const load = async (hash: string | null | undefined) =>
    hash ? readWhole(ctx, q, hash, DIFF_FILE_BYTES, 'a preview diff') : Buffer.alloc(0);
  const [a, b] = await Promise.all([load(from?.hash), load(to?.hash)]);
  if (isBinary(a) || isBinary(b)) return { diff: null, diffNote: 'binary' };
  let text = createTwoFilesPatch(
    path,
    path,
    a.toString('utf8'),
    b.toString('utf8'),
    from ? `version ${from.seq}` : 'absent',
    to ? `version ${to.seq}` : 'absent',
  );
  let diffNote: string | null = null;
  if (text.length > DIFF_TEXT_CHARS) {
    text = text.slice(0, DIFF_TEXT_CHARS);
    diffNote = `cut at ${DIFF_TEXT_CHARS} characters`;
  }
  budget.left -= text.length;
  return { diff: text, diffNote };
}

async function changeOut(
  ctx: EngineContext,
  q: MetadataQueries,
  ws: WorkspaceRecord,
  change: PlannedChange,
  budget: Budget | null,
): Promise<UndoChange> {
  const { diff, diffNote } = budget
    ? await diffOf(ctx, q, change, budget)
    : { diff: null, diffNote: null };
  return {
    path: change.path,
    type: change.target?.type ?? change.head?.type ?? 'file',
    action: change.action,
    from: await headState(q, ws, change.path, change.head),
    to: versionState(change.target),
    forced: change.forced,
    diff,
    diffNote,
  };
}

async function conflictOut(
  q: MetadataQueries,
  ws: WorkspaceRecord,
  conflict: PlannedConflict,
): Promise<UndoConflict> {
  return {
    path: conflict.path,
    reason: conflict.reason,
    base: versionState(conflict.base),
    ours: versionState(await q.past.version(ws.id, conflict.path, conflict.last)),
    theirs: await headState(q, ws, conflict.path, conflict.head),
  };
}

/** The preview of `plan`: at most `limit` changes and conflicts, with diffs when `diffs`. */
export async function report(
  ctx: EngineContext,
  q: MetadataQueries,
  ws: WorkspaceRecord,
  plan: UndoPlan,
  options: { limit?: number | undefined; diff?: boolean | undefined },
): Promise<UndoPreview> {
  const limit = options.limit ?? DEFAULT_UNDO_LIMIT;
  const budget = options.diff === false ? null : { left: DIFF_BUDGET_CHARS };
  const changes: UndoChange[] = [];
  for (const change of plan.changes.slice(0, limit)) {
    changes.push(await changeOut(ctx, q, ws, change, budget));
  }
  const conflicts: UndoConflict[] = [];
  for (const conflict of plan.conflicts.slice(0, limit)) {
    conflicts.push(await conflictOut(q, ws, conflict));
  }
  const count = (action: UndoChange['action']) =>
    plan.changes.filter((c) => c.action === action).length;
  return {
    head: plan.head,
    since: plan.since,
    summary: {
      revert: count('revert'),
      delete: count('delete'),
      recreate: count('recreate'),
      forced: plan.changes.filter((c) => c.forced).length,
      conflicts: plan.conflicts.length,
      unchanged: plan.unchanged,
    },
    changes,
    conflicts,
    truncated: plan.changes.length > limit || plan.conflicts.length > limit,
  };
}
