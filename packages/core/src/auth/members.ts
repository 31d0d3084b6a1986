/**
 * Workspace membership: who has which role; a workspace always keeps at least one owner. An
 * owner adds by invitation (invitations.ts); only admins make a principal a member directly.
 */

import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import {
  type Member,
  type MembershipChange,
  PrincipalNameSchema,
  type Role,
  RoleSchema,
} from '@satchel/client/schemas/index.js';
import { z } from 'zod';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { iso } from '../kernel/records.js';
import type { MetadataQueries, MetadataTx } from '../store/metadata/metadata-store.js';
import { requirePrincipal } from './access.js';
import { invite } from './invitations.js';

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

/**
 * Changes a member's role, or adds one. An admin adds directly (`status: 'member'`; NOT_FOUND
 * for an unknown principal); anyone else invites a principal that is not a member yet
 * (`status: 'invited'`), with the same answer whether or not the name is a principal's.
 * CONFLICT if the change would leave the workspace without an owner.
 */
export async function setMember(
  ctx: EngineContext,
  workspace: string,
  name: string,
  role: Role,
): Promise<MembershipChange> {
  const parsedRole = parseOptions(RoleSchema, role);
  const { principal: parsedName } = parseOptions(z.object({ principal: PrincipalNameSchema }), {
    principal: name,
  });
  return ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const found = await tx.access.principalByName(parsedName);
    // The same queries whether or not the name is a principal's, so timing tells no more.
    const current = await tx.members.roleOf(ws.id, found?.id ?? '');
    if (current === null && !ctx.actor.admin) {
      const invitation = await invite(ctx, tx, ws, parsedName, found?.id ?? null, parsedRole);
      return { status: 'invited' as const, ...invitation };
    }
    const principal = found ?? (await requirePrincipal(tx, parsedName));
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
    // A direct add supersedes a pending invitation of the same principal.
    await tx.invitations.deleteFor(ws.id, principal.name);
    if (current === 'owner' && parsedRole !== 'owner')
      await endOwnership(tx, ws, principal.name, now);
    return {
      status: 'member' as const,
      principal: principal.name,
      kind: principal.kind,
      role: parsedRole,
      since: iso(now),
    };
  });
}

/**
 * Removes a member, or withdraws a pending invitation of that name (or both). NOT_FOUND — the
 * same answer whether or not the name is a principal's — when there is neither.
 */
export async function removeMember(
  ctx: EngineContext,
  workspace: string,
  name: string,
): Promise<void> {
  await ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const principal = typeof name === 'string' ? await tx.access.principalByName(name) : undefined;
    const current = principal ? await tx.members.roleOf(ws.id, principal.id) : null;
    const withdrew = typeof name === 'string' && (await tx.invitations.deleteFor(ws.id, name));
    if (principal === undefined || current === null) {
      if (withdrew) return true;
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
    return true;
  });
}
