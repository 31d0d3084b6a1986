/** Workspace membership: who has which role; a workspace always keeps at least one owner. */

import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { type Member, type Role, RoleSchema } from '@satchel/client/schemas/index.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { iso } from '../kernel/records.js';
import type { MetadataQueries, MetadataTx } from '../store/metadata/metadata-store.js';
import { requirePrincipal } from './access.js';

export async function listMembers(ctx: EngineContext, workspace: string): Promise<Member[]> {
  const ws = await requireWorkspace(ctx.store, workspace);
  const rows = await ctx.store.members.list(ws.id);
  return rows.map((r) => ({
    principal: r.name,
    kind: r.kind,
    role: r.role,
    since: iso(r.createdAt),
  }));
}

async function ownerCount(q: MetadataQueries, workspaceId: string): Promise<number> {
  return (await q.members.list(workspaceId)).filter((m) => m.role === 'owner').length;
}

/**
 * A webhook belongs to an owner: when `name` stops owning the workspace, the subscriptions it
 * made stop too, in the same transaction (disabled, with the reason the new owners see; an owner
 * may re-enable one and so take it over).
 */
export async function endOwnership(
  tx: MetadataTx,
  workspace: { readonly id: string; readonly name: string },
  name: string,
  now: number,
): Promise<void> {
  const reason = `${name} no longer owns ${workspace.name} (since ${iso(now)}); subscriptions it made stopped`;
  await tx.webhooks.disableCreatedBy(workspace.id, name, reason);
}

/** Adds a member or changes its role; CONFLICT if that would leave the workspace without an owner. */
export async function setMember(
  ctx: EngineContext,
  workspace: string,
  name: string,
  role: Role,
): Promise<Member> {
  const parsedRole = parseOptions(RoleSchema, role);
  return ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const principal = await requirePrincipal(tx, name);
    const current = await tx.members.roleOf(ws.id, principal.id);
    if (current === 'owner' && parsedRole !== 'owner' && (await ownerCount(tx, ws.id)) === 1) {
      throw new SatchelError(
        'CONFLICT',
        `${name} is the last owner of ${workspace}; make someone else owner first`,
        {
          reason: 'last_owner',
        },
      );
    }
    const now = ctx.clock();
    await tx.members.put({
      workspaceId: ws.id,
      principalId: principal.id,
      role: parsedRole,
      createdAt: now,
    });
    if (current === 'owner' && parsedRole !== 'owner')
      await endOwnership(tx, ws, principal.name, now);
    return { principal: principal.name, kind: principal.kind, role: parsedRole, since: iso(now) };
  });
}

export async function removeMember(
  ctx: EngineContext,
  workspace: string,
  name: string,
): Promise<void> {
  await ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const principal = await requirePrincipal(tx, name);
    const current = await tx.members.roleOf(ws.id, principal.id);
    if (current === null) {
      throw new SatchelError('NOT_FOUND', `${name} is not a member of ${workspace}`, {
        reason: 'not_member',
        principal: name,
      });
    }
    if (current === 'owner' && (await ownerCount(tx, ws.id)) === 1) {
      throw new SatchelError(
        'CONFLICT',
        `${name} is the last owner of ${workspace}; make someone else owner first`,
        {
          reason: 'last_owner',
        },
      );
    }
    await tx.members.delete(ws.id, principal.id);
    if (current === 'owner') await endOwnership(tx, ws, principal.name, ctx.clock());
  });
}
