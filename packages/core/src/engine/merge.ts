/**
 * Merge (docs/time-travel.md, "Fork and merge"): preview what merging a fork into its source (or
 * the source into its fork) does to each path, then apply it as new versions in one seq of the
 * target — clean paths written, conflicts left as ours with theirs kept beside. The merge is a
 * session of its own (`merge:<seq>`), so undo takes it back. The plan is merge-plan.ts.
 */
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type MergeChange,
  type MergeConflict,
  type MergeOptions,
  MergeOptionsSchema,
  type MergePreview,
  type MergePreviewOptions,
  MergePreviewOptionsSchema,
  type MergeResult,
} from '@satchel/client/schemas/index.js';
import { authorize } from '../auth/authorize.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { checkWriteLocks } from '../locks/locks.js';
import type { EntryRecord, MetadataQueries, MetadataTx } from '../store/metadata/metadata-store.js';
import { type MergePlan, planMerge, relate } from './merge-plan.js';
import { entryState, versionState } from './undo-report.js';
import {
  ensureParents,
  putDirectory,
  putFile,
  putTombstone,
  type Stamp,
  stamp,
} from './versions.js';

const DEFAULT_MERGE_LIMIT = 1000;
/** Changes after the preview's head that apply reads through before it gives up. */
const MAX_CHANGES_SINCE_PREVIEW = 10_000;

const stateOf = (entry: EntryRecord | undefined) => (entry ? entryState(entry) : null);

/** The plan as callers see it: at most `limit` changes and conflicts; the summary counts all. */
function report(plan: MergePlan, limit = DEFAULT_MERGE_LIMIT): MergePreview {
  const { into, from, baseInto, baseFrom } = plan.sides;
  const changes: MergeChange[] = plan.changes.slice(0, limit).map((c) => ({
    path: c.path,
    type: c.target?.type ?? c.head?.type ?? 'file',
    action: c.action,
    from: stateOf(c.head),
    to: stateOf(c.target),
  }));
  const conflicts: MergeConflict[] = plan.conflicts.slice(0, limit).map((c) => ({
    path: c.path,
    reason: c.reason,
    base: versionState(c.base),
    ours: stateOf(c.ours),
    theirs: stateOf(c.theirs),
    keptAs: c.keptAs,
  }));
  const count = (action: MergeChange['action']) =>
    plan.changes.filter((c) => c.action === action).length;
  return {
    into: into.name,
    from: from.name,
    head: into.seq,
    fromHead: from.seq,
    base: { intoSeq: baseInto, fromSeq: baseFrom },
    summary: {
      create: count('create'),
      modify: count('modify'),
      delete: count('delete'),
      conflicts: plan.conflicts.length,
      unchanged: plan.unchanged,
    },
    changes,
    conflicts,
    truncated: plan.changes.length > limit || plan.conflicts.length > limit,
  };
}

/** Both workspaces, `from` readable by the caller, and how they are related. */
async function sidesOf(ctx: EngineContext, q: MetadataQueries, into: string, from: string) {
  const intoWs = await requireWorkspace(q, into);
  const fromWs = await requireWorkspace(q, from);
  await authorize(q, ctx.actor, 'file.read', fromWs);
  return relate(q, intoWs, fromWs);
}

/** What merging `from` into `workspace` would do to each path; writes nothing. */
export async function previewMerge(
  ctx: EngineContext,
  workspace: string,
  from: string,
  rawOptions?: MergePreviewOptions,
): Promise<MergePreview> {
  validateWorkspaceName(workspace);
  validateWorkspaceName(from);
  const options = parseOptions(MergePreviewOptionsSchema, rawOptions);
  const sides = await sidesOf(ctx, ctx.store, workspace, from);
  return report(await planMerge(ctx.store, sides), options.limit);
}

/**
 * Refuses the apply when what the caller approved no longer holds: a path the merge looks at
 * changed in the target after `ifHead`, or anything changed in `from` after `ifFromHead`
 * (PRECONDITION_FAILED naming it); INVALID_INPUT for a head past the workspace's.
 */
async function checkUnchangedSince(tx: MetadataTx, plan: MergePlan, options: MergeOptions) {
  const { into, from } = plan.sides;
  for (const [ws, field, seen] of [
    [into, 'ifHead', options.ifHead],
    [from, 'ifFromHead', options.ifFromHead],
  ] as const) {
    if (seen > ws.seq) {
      throw new SatchelError(
        'INVALID_INPUT',
        `${field} ${seen} is past the head of ${ws.name} (seq ${ws.seq}); pass the preview's`,
        { field, head: ws.seq },
      );
    }
  }
  if (options.ifFromHead !== from.seq) {
    throw new SatchelError(
      'PRECONDITION_FAILED',
      `${from.name} changed after the preview (seq ${from.seq} > ${options.ifFromHead}); preview the merge again`,
      { workspace: from.name, expected: options.ifFromHead, actual: from.seq },
    );
  }
  if (options.ifHead === into.seq) return;
  const later = await tx.listChanges(into.id, {
    after: options.ifHead,
    limit: MAX_CHANGES_SINCE_PREVIEW + 1,
  });
  const kept = new Set(plan.conflicts.map((c) => c.keptAs));
  const changed =
    later.length > MAX_CHANGES_SINCE_PREVIEW
      ? later.at(-1)
      : later.find((row) => plan.touched.has(row.path) || kept.has(row.path));
  if (changed !== undefined) {
    throw new SatchelError(
      'PRECONDITION_FAILED',
      `${changed.path} changed after the preview (seq ${changed.seq} > ${options.ifHead}); preview the merge again`,
      { path: changed.path, expected: options.ifHead, actual: changed.seq },
    );
  }
}

/** Writes the plan at stamp `s`: removals deepest first, then the rest parents first, then copies. */
async function write(tx: MetadataTx, s: Stamp, plan: MergePlan, message: string) {
  for (const change of [...plan.changes].reverse()) {
    if (change.target === undefined && change.head !== undefined) {
      await putTombstone(tx, s, change.head, 'delete', { message });
    }
  }
  const file = (e: EntryRecord, hash: string) => ({
    hash,
    size: e.size,
    contentType: e.contentType ?? 'application/octet-stream',
  });
  for (const { path, target } of plan.changes) {
    if (target === undefined) continue;
    await ensureParents(tx, s, path);
    if (target.type === 'directory' || target.hash === null) {
      await putDirectory(tx, s, path, 'mkdir', { message });
    } else {
      await putFile(tx, s, path, 'write', file(target, target.hash), { message });
    }
  }
  for (const { keptAs, theirs } of plan.conflicts) {
    if (keptAs === null || theirs?.hash == null) continue;
    await ensureParents(tx, s, keptAs);
    await putFile(tx, s, keptAs, 'write', file(theirs, theirs.hash), { message });
  }
}

/**
 * Applies the merge of `from` into `workspace` in one transaction and one seq of `workspace`, as
 * the plan made there says — PRECONDITION_FAILED when the preview no longer holds, FORBIDDEN for
 * a path outside the key's prefixes (or no read on `from`: NOT_FOUND when it may not see it),
 * LOCKED for a path under someone else's lock. A merge back moves the fork's base to this state.
 */
export async function merge(
  ctx: EngineContext,
  workspace: string,
  from: string,
  rawOptions: MergeOptions,
): Promise<MergeResult> {
  validateWorkspaceName(workspace);
  validateWorkspaceName(from);
  const options = parseOptions(MergeOptionsSchema, rawOptions);
  return ctx.commit(async (tx) => {
    const sides = await sidesOf(ctx, tx, workspace, from);
    const plan = await planMerge(tx, sides);
    await checkUnchangedSince(tx, plan, options);
    const preview = report(plan, options.limit);
    const written = [
      ...plan.changes.map((c) => c.path),
      ...plan.conflicts.flatMap((c) => (c.keptAs === null ? [] : [c.keptAs])),
    ];
    if (written.length === 0) return { ...preview, seq: null, session: null };
    const { into, fork, back } = sides;
    await authorize(tx, ctx.actor, 'file.write', into, written);
    const claimed = await stamp(tx, ctx, into.id, undefined);
    const s: Stamp = { ...claimed, session: options.session ?? `merge:${claimed.seq}` };
    for (const path of written) {
      await checkWriteLocks(tx, ctx, into.id, { path, tree: false }, options.lockToken, s.now);
    }
    await write(tx, s, plan, options.message ?? `merge of ${sides.from.name}`);
    if (back) await tx.forks.rebase(fork.workspaceId, s.seq, sides.from.seq);
    return { ...preview, seq: s.seq, session: s.session };
  });
}
