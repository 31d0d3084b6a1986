/** Workspace lifecycle: create, list, inspect, delete. */
import { randomUUID } from 'node:crypto';
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type CallOptions,
  type Page,
  type PageOptions,
  PageOptionsSchema,
  type Workspace,
  type WorkspaceInfo,
} from '@satchel/client/schemas/index.js';
import { effectiveRole } from '../auth/authorize.js';
import type { NameProbes } from '../auth/name-probes.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { decodeCursor, encodeCursor } from '../kernel/cursors.js';
import { iso } from '../kernel/records.js';
import { workspaceSettings } from '../kernel/workspace-settings.js';
import type { MetadataTx, WorkspaceRecord } from '../store/metadata/metadata-store.js';

function workspaceOut(row: WorkspaceRecord): Workspace {
  return { name: row.name, seq: row.seq, createdAt: iso(row.createdAt) };
}

/**
 * Creates a workspace the caller owns. CONFLICT when the name is taken — the same answer whether
 * or not the caller may see that workspace (names are one namespace; docs/security.md). A
 * conflict on a workspace the caller may not see spends its name-probe budget; RATE_LIMITED
 * once that is spent (name-probes.ts).
 */
export async function createWorkspace(
  ctx: EngineContext,
  probes: NameProbes,
  rawName: string,
  _options?: CallOptions,
): Promise<Workspace> {
  const name = validateWorkspaceName(rawName);
  probes.check(ctx.actor.principalId);
  return ctx.commit(async (tx) => {
    const row = await insertWorkspace(tx, ctx, probes, name);
    return { name, seq: 0, createdAt: iso(row.createdAt) };
  });
}

/**
 * In a write transaction: makes the empty workspace `name` (valid) with the caller as owner.
 * CONFLICT when the name is taken, spending the name-probe budget as `createWorkspace` says.
 */
export async function insertWorkspace(
  tx: MetadataTx,
  ctx: EngineContext,
  probes: NameProbes,
  name: string,
): Promise<Pick<WorkspaceRecord, 'id' | 'name' | 'createdAt'>> {
  const taken = await tx.findWorkspace(name);
  if (taken) {
    if ((await effectiveRole(tx, ctx.actor, taken)) === null) probes.spend(ctx.actor.principalId);
    throw new SatchelError('CONFLICT', `workspace ${name} already exists`, {
      workspace: name,
      reason: 'exists',
    });
  }
  const row = { id: randomUUID(), name, createdAt: ctx.clock() };
  await tx.createWorkspace(row);
  // Whoever creates a workspace owns it (and may hand it over later: see auth/transfers.ts).
  await tx.members.put({
    workspaceId: row.id,
    principalId: ctx.actor.principalId,
    role: 'owner',
    createdAt: row.createdAt,
  });
  return row;
}

const SCAN_PAGE = 500;

/** Workspaces in name order, only those `visible` accepts; a page holds at most `limit`. */
export async function listWorkspaces(
  ctx: EngineContext,
  rawOptions: PageOptions | undefined,
  visible: (row: WorkspaceRecord) => Promise<boolean>,
): Promise<Page<Workspace>> {
  const options = parseOptions(PageOptionsSchema, rawOptions);
  const limit = options.limit ?? 100;
  const cursor = decodeCursor(options.cursor, ['a']);
  let after = cursor ? String(cursor.a) : null;
  const items: Workspace[] = [];
  for (;;) {
    const rows = await ctx.store.listWorkspaces(after, SCAN_PAGE);
    for (const row of rows) {
      if (!(await visible(row))) continue;
      if (items.length === limit) {
        const last = items.at(-1);
        return { items, nextCursor: last ? encodeCursor({ a: last.name }) : null };
      }
      items.push(workspaceOut(row));
    }
    const last = rows.at(-1);
    if (rows.length < SCAN_PAGE || !last) return { items, nextCursor: null };
    after = last.name;
  }
}

export async function getWorkspace(ctx: EngineContext, rawName: string): Promise<WorkspaceInfo> {
  const name = validateWorkspaceName(rawName);
  const row = await requireWorkspace(ctx.store, name);
  return {
    ...workspaceOut(row),
    ...(await ctx.store.workspaceStats(row.id)),
    settings: workspaceSettings(row.settings),
    fork: await forkOrigin(ctx, row),
  };
}

/** Where `row` was forked from: the source as it was named then, and the seq. */
async function forkOrigin(
  ctx: EngineContext,
  row: WorkspaceRecord,
): Promise<{ source: string; seq: number } | null> {
  const fork = await ctx.store.forks.get(row.id);
  return fork ? { source: fork.sourceName, seq: fork.seq } : null;
}

/** Removes the workspace's metadata; its content stays until fsck reports it as orphaned. */
export async function deleteWorkspace(
  ctx: EngineContext,
  rawName: string,
  _options?: CallOptions,
): Promise<void> {
  const name = validateWorkspaceName(rawName);
  await ctx.commit(async (tx) => {
    const row = await requireWorkspace(tx, name);
    await tx.deleteWorkspace(row.id);
  });
}
