/**
 * What an `at` names (docs/time-travel.md): a seq of the workspace, or a snapshot's name. Here,
 * below engine/ and search/, because reads, grep, search, undo and fork all resolve one.
 */
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { SnapshotNameSchema } from '@satchel/client/schemas/index.js';
import { z } from 'zod';
import type { MetadataQueries } from '../store/metadata/metadata-queries.js';
import type { WorkspaceRecord } from '../store/metadata/records.js';

/** A valid snapshot name; INVALID_INPUT otherwise. */
export function snapshotName(name: unknown): string {
  return parseOptions(z.object({ name: SnapshotNameSchema }), { name }).name;
}

export function snapshotNotFound(workspace: string, name: string): SatchelError {
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
  const fork = await q.forks.forkPoint(ws.id);
  if (fork === null || seq >= fork.seq) return;
  throw new SatchelError(
    'INVALID_INPUT',
    `${field} ${seq} is before ${ws.name} was forked from ${fork.sourceName} at seq ${fork.seq}; read ${fork.sourceName} for its earlier history`,
    { field, [field]: String(seq), forkedAt: fork.seq, source: fork.sourceName },
  );
}
