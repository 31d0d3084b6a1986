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
  SnapshotNameSchema,
} from '@satchel/client/schemas/index.js';
import { z } from 'zod';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { decodeCursor, encodeCursor } from '../kernel/cursors.js';
import { iso } from '../kernel/records.js';
import type { MetadataQueries } from '../store/metadata/metadata-queries.js';
import type { SnapshotRecord, WorkspaceRecord } from '../store/metadata/records.js';

function snapshotInfo(row: SnapshotRecord): Snapshot {
  return {
    name: row.name,
    seq: row.seq,
    createdAt: iso(row.createdAt),
    createdBy: row.createdBy,
    message: row.message,
  };
}

function snapshotName(name: unknown): string {
  return parseOptions(z.object({ name: SnapshotNameSchema }), { name }).name;
}

function snapshotNotFound(workspace: string, name: string): SatchelError {
  return new SatchelError('NOT_FOUND', `snapshot ${name} not found in ${workspace}`, {
    snapshot: name,
  });
}

/**
 * The seq an `at` names in `ws`: a seq (a string of digits is one) no later than the head, or a
 * snapshot's name. INVALID_INPUT past the head (nothing is there yet) or before a fork's fork
 * point, NOT_FOUND for a name the workspace has no snapshot of.
 */
export async function resolveAt(
  q: MetadataQueries,
  ws: WorkspaceRecord,
  at: number | string,
  field = 'at',
): Promise<number> {
  if (typeof at === 'number' || /^[0-9]+$/.test(at)) {
    const seq = Number(at);
    if (!Number.isSafeInteger(seq) || seq > ws.seq) {
      throw new SatchelError(
        'INVALID_INPUT',
        `${field} ${at} is past the head of ${ws.name} (seq ${ws.seq}); use ${ws.seq} or earlier`,
        { field, [field]: String(at), head: ws.seq },
      );
    }
    if (seq < ws.seq) await refuseBeforeFork(q, ws, seq, field);
    return seq;
  }
  const name = snapshotName(at);
  const snapshot = await q.past.snapshot(ws.id, name);
  if (!snapshot) throw snapshotNotFound(ws.name, name);
  return snapshot.seq;
}

/**
 * INVALID_INPUT when `seq` is before the fork point of `ws`: a fork holds its files as they were
 * at that point, not the history before it (that is the source's to read).
 */
async function refuseBeforeFork(
  q: MetadataQueries,
  ws: WorkspaceRecord,
  seq: number,
  field: string,
): Promise<void> {
  const fork = await q.forks.get(ws.id);
  if (fork === undefined || seq >= fork.seq) return;
  throw new SatchelError(
    'INVALID_INPUT',
    `${field} ${seq} is before ${ws.name} was forked from ${fork.sourceName} at seq ${fork.seq}; read ${fork.sourceName} for its earlier history`,
    { field, [field]: String(seq), forkedAt: fork.seq, source: fork.sourceName },
  );
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
