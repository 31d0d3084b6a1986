/**
 * Fork (docs/time-travel.md, "Fork and merge"): a new workspace that starts as another's state
 * at a seq or snapshot. Content is shared by hash, never copied; each path live at the fork point
 * gets the same version (seq, author, session, hash) and head entry in the fork, written by two
 * INSERT … SELECT statements (store/metadata/fork-queries.ts), so the cost grows with the number
 * of paths, not with their bytes or the source's history. The fork's seqs continue from the fork
 * point, and its record names the source and that seq: the base of a later merge.
 */
import { parseOptions } from '@satchel/client/options.js';
import { validateWorkspaceName } from '@satchel/client/paths.js';
import { type Fork, type ForkOptions, ForkOptionsSchema } from '@satchel/client/schemas/index.js';
import { authorizeGlobal } from '../auth/authorize.js';
import type { NameProbes } from '../auth/name-probes.js';
import { resolveAt } from '../kernel/at.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { iso } from '../kernel/records.js';
import { insertWorkspace } from './workspaces.js';

/**
 * Forks `source` (the caller may read it: the operation's check) into the new workspace `name`,
 * owned by the caller, as `source` was at `at` (default: its head). CONFLICT when `name` is
 * taken, FORBIDDEN for a key that may not create workspaces, INVALID_INPUT / NOT_FOUND for an
 * `at` as reads say. One transaction: the fork is whole or absent.
 */
export async function forkWorkspace(
  ctx: EngineContext,
  probes: NameProbes,
  source: string,
  rawName: string,
  rawOptions?: ForkOptions,
): Promise<Fork> {
  validateWorkspaceName(source);
  const name = validateWorkspaceName(rawName);
  const options = parseOptions(ForkOptionsSchema, rawOptions);
  authorizeGlobal(ctx.actor, 'workspace.create');
  probes.check(ctx.actor.principalId);
  return ctx.commit(async (tx) => {
    const src = await requireWorkspace(tx, source);
    const at = options.at === undefined ? src.seq : await resolveAt(tx, src, options.at);
    const row = await insertWorkspace(tx, ctx, probes, name);
    await tx.forks.startAt(row.id, at);
    const files = await tx.forks.copyState(src.id, row.id, at);
    await tx.forks.put({
      workspaceId: row.id,
      sourceId: src.id,
      sourceName: src.name,
      seq: at,
      baseSourceSeq: at,
      baseForkSeq: at,
      createdBy: ctx.actor.name,
      createdAt: row.createdAt,
    });
    return { name, seq: at, createdAt: iso(row.createdAt), source: src.name, at, files };
  });
}
