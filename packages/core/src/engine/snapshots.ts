/**
 * Snapshots and the `at` of reads: a snapshot is a name for a seq, so creating one copies
 * nothing; a read `at` a seq or a snapshot sees every file as it was after that seq's mutation
 * (store/metadata/past-queries.ts).
 */
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type CreateSnapshotOptions,
  CreateSnapshotOptionsSchema,
  type Page,
  type PageOptions,
  PageOptionsSchema,
  type Snapshot,
} from '@satchel/client/schemas/index.js';
import { resolveAt, snapshotName, snapshotNotFound } from '../kernel/at.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { decodeCursor, encodeCursor } from '../kernel/cursors.js';
import { iso } from '../kernel/records.js';
import type { SnapshotRecord } from '../store/metadata/records.js';

function snapshotInfo(row: SnapshotRecord): Snapshot {
  return {
    name: row.name,
    seq: row.seq,
    createdAt: iso(row.createdAt),
    createdBy: row.createdBy,
    message: row.message,
  };
}

export async function createSnapshot(
  ctx: EngineContext,
  workspace: string,
  rawName: string,
  rawOptions?: CreateSnapshotOptions,
): Promise<Snapshot> {
  validateWorkspaceName(workspace);
  const name = snapshotName(rawName);
  const options = parseOptions(CreateSnapshotOptionsSchema, rawOptions);
  return ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const seq = options.seq === undefined ? ws.seq : await resolveAt(tx, ws, options.seq, 'seq');
    const row: SnapshotRecord = {
      workspaceId: ws.id,
      name,
      seq,
      createdBy: ctx.actor.name,
      createdAt: ctx.clock(),
      message: options.message ?? null,
    };
    if (!(await tx.past.putSnapshot(row))) {
      const existing = await tx.past.snapshot(ws.id, name);
      throw new SatchelError(
        'CONFLICT',
        `${workspace} already has a snapshot ${name} (seq ${existing?.seq}); pick another name or delete it first`,
        { snapshot: name, seq: existing?.seq ?? null, reason: 'snapshot_exists' },
      );
    }
    return snapshotInfo(row);
  });
}

export async function listSnapshots(
  ctx: EngineContext,
  workspace: string,
  rawOptions?: PageOptions,
): Promise<Page<Snapshot>> {
  validateWorkspaceName(workspace);
  const options = parseOptions(PageOptionsSchema, rawOptions);
  const limit = options.limit ?? 100;
  const ws = await requireWorkspace(ctx.store, workspace);
  const cursor = decodeCursor(options.cursor, ['s', 'n']);
  const after = cursor ? { seq: Number(cursor.s), name: String(cursor.n) } : null;
  const rows = await ctx.store.past.snapshots(ws.id, after, limit + 1);
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map(snapshotInfo),
    nextCursor: rows.length > limit && last ? encodeCursor({ s: last.seq, n: last.name }) : null,
  };
}

export async function deleteSnapshot(
  ctx: EngineContext,
  workspace: string,
  rawName: string,
): Promise<void> {
  validateWorkspaceName(workspace);
  const name = snapshotName(rawName);
  await ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    if (!(await tx.past.deleteSnapshot(ws.id, name))) throw snapshotNotFound(workspace, name);
  });
}
