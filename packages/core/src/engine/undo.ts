/**
 * Undo (docs/time-travel.md): preview what taking back some changes does to each path, then
 * apply it as new versions in one seq — history is never rewritten, and the undo is a session of
 * its own, so it can be undone in turn. The plan is undo-plan.ts; its report undo-report.ts.
 */
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type UndoOptions,
  UndoOptionsSchema,
  type UndoPreview,
  type UndoPreviewOptions,
  UndoPreviewOptionsSchema,
  type UndoResult,
  type UndoTarget,
  UndoTargetSchema,
} from '@satchel/client/schemas/index.js';
import { z } from 'zod';
import { authorize } from '../auth/authorize.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { checkWriteLocks } from '../locks/locks.js';
import { integrityError } from '../store/content-hash.js';
import type { MetadataTx, WorkspaceRecord } from '../store/metadata/metadata-store.js';
import { planUndo, resolveTarget, type UndoPlan } from './undo-plan.js';
import { report } from './undo-report.js';
import {
  ensureParents,
  putDirectory,
  putFile,
  putTombstone,
  type Stamp,
  stamp,
} from './versions.js';

/** Changes after the preview's head that apply reads through before it gives up. */
const MAX_CHANGES_SINCE_PREVIEW = 10_000;

function parseTarget(target: unknown): UndoTarget {
  return parseOptions(z.object({ target: UndoTargetSchema }), { target }).target;
}

/** What undoing `target` would do to each path; writes nothing. */
export async function previewUndo(
  ctx: EngineContext,
  workspace: string,
  rawTarget: UndoTarget,
  rawOptions?: UndoPreviewOptions,
): Promise<UndoPreview> {
  validateWorkspaceName(workspace);
  const target = parseTarget(rawTarget);
  const options = parseOptions(UndoPreviewOptionsSchema, rawOptions);
  const ws = await requireWorkspace(ctx.store, workspace);
  const { since, who } = await resolveTarget(ctx.store, ws, target);
  const plan = await planUndo(ctx.store, ws, since, who, options.force ?? false);
  return report(ctx, ctx.store, ws, plan, options);
}

/**
 * Refuses the apply when a path the undo touches changed after the preview's head `ifHead`
 * (PRECONDITION_FAILED naming it): the caller approved a preview that no longer holds.
 */
async function checkUnchangedSince(
  tx: MetadataTx,
  ws: WorkspaceRecord,
  ifHead: number,
  plan: UndoPlan,
): Promise<void> {
  if (ifHead > ws.seq) {
    throw new SatchelError(
      'INVALID_INPUT',
      `ifHead ${ifHead} is past the head of ${ws.name} (seq ${ws.seq}); pass the preview's head`,
      { field: 'ifHead', head: ws.seq },
    );
  }
  if (ifHead === ws.seq) return;
  const later = await tx.listChanges(ws.id, {
    after: ifHead,
    limit: MAX_CHANGES_SINCE_PREVIEW + 1,
  });
  const changed =
    later.length > MAX_CHANGES_SINCE_PREVIEW
      ? later.at(-1)
      : later.find((row) => plan.touched.has(row.path));
  if (changed !== undefined) {
    throw new SatchelError(
      'PRECONDITION_FAILED',
      `${changed.path} changed after the preview (seq ${changed.seq} > ${ifHead}); preview the undo again`,
      { path: changed.path, expected: ifHead, actual: changed.seq },
    );
  }
}

/** Writes the plan's changes at stamp `s`: removals deepest first, then the rest parents first. */
async function write(tx: MetadataTx, s: Stamp, plan: UndoPlan, message: string | null) {
  for (const change of [...plan.changes].reverse()) {
    if (change.target === undefined && change.head !== undefined) {
      await putTombstone(tx, s, change.head, 'delete', { message });
    }
  }
  for (const { path, target } of plan.changes) {
    if (target === undefined) continue;
    await ensureParents(tx, s, path);
    const extras = { origin: { path: target.path, seq: target.seq }, message };
    if (target.type === 'directory') {
      await putDirectory(tx, s, path, 'restore', extras);
    } else {
      if (target.hash === null)
        throw integrityError(`${path}@${target.seq}`, 'file without content');
      const content = {
        hash: target.hash,
        size: target.size,
        contentType: target.contentType ?? 'application/octet-stream',
      };
      await putFile(tx, s, path, 'restore', content, extras);
    }
  }
}

/**
 * Applies the undo of `target` in one transaction and one seq, as the plan made there says —
 * PRECONDITION_FAILED when a path it touches changed after `ifHead`, FORBIDDEN for a path outside
 * the key's prefixes, LOCKED for a path under someone else's lock. Conflicts stay unless `force`.
 */
export async function undo(
  ctx: EngineContext,
  workspace: string,
  rawTarget: UndoTarget,
  rawOptions: UndoOptions,
): Promise<UndoResult> {
  validateWorkspaceName(workspace);
  const target = parseTarget(rawTarget);
  const options = parseOptions(UndoOptionsSchema, rawOptions);
  return ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const { since, who } = await resolveTarget(tx, ws, target);
    const plan = await planUndo(tx, ws, since, who, options.force ?? false);
    await checkUnchangedSince(tx, ws, options.ifHead, plan);
    // The result reports the heads as they were before this write, as the preview did.
    const preview = await report(ctx, tx, ws, plan, { ...options, diff: options.diff ?? false });
    if (plan.changes.length === 0) return { ...preview, seq: null, session: null };
    await authorize(
      tx,
      ctx.actor,
      'file.write',
      ws,
      plan.changes.map((c) => c.path),
    );
    const claimed = await stamp(tx, ctx, ws.id, undefined);
    const s: Stamp = { ...claimed, session: options.session ?? `undo:${claimed.seq}` };
    for (const { path } of plan.changes) {
      await checkWriteLocks(tx, ctx, ws.id, { path, tree: false }, options.lockToken, s.now);
    }
    await write(tx, s, plan, options.message ?? null);
    return { ...preview, seq: s.seq, session: s.session };
  });
}
