/**
 * Membership by consent: an owner's add is an invitation (role, inviter, 7-day expiry) that only
 * the invitee can accept or decline; the membership exists once it is accepted. An invitation to
 * a name that is nobody's is answered exactly like one to a principal and can never be accepted,
 * so inviting reveals nothing about which principals exist. Admins still add directly
 * (members.ts, `setMember`).
 */
import { randomUUID } from 'node:crypto';
import { SatchelError } from '@satchel/client/errors.js';
import type { Invitation, Membership, Role } from '@satchel/client/schemas/index.js';
import { type Actor, ROLE_RANK } from '../kernel/actor.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { iso } from '../kernel/records.js';
import type { MetadataQueries, MetadataTx } from '../store/metadata/metadata-store.js';
import type { InvitationView } from '../store/metadata/records.js';

/** How long an invitation waits for its invitee. */
export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;
/** Pending invitations a workspace may have at once (an owner cannot flood the table). */
export const MAX_PENDING_INVITATIONS = 100;

function invitationOut(row: {
  readonly id: string;
  readonly workspaceName: string;
  readonly principalName: string;
  readonly role: Role;
  readonly inviterName: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}): Invitation {
  return {
    id: row.id,
    workspace: row.workspaceName,
    principal: row.principalName,
    role: row.role,
    invitedBy: row.inviterName,
    createdAt: iso(row.createdAt),
    expiresAt: iso(row.expiresAt),
  };
}

/**
 * Invites `name` to `ws` with `role` (replacing an earlier invitation of the same name), inside
 * the caller's transaction. The answer is the same whether `principalId` is null or not.
 * CONFLICT when the workspace already has MAX_PENDING_INVITATIONS others pending.
 */
export async function invite(
  ctx: EngineContext,
  tx: MetadataTx,
  ws: { readonly id: string; readonly name: string },
  name: string,
  principalId: string | null,
  role: Role,
): Promise<Invitation> {
  const now = ctx.clock();
  await tx.invitations.deleteExpired(ws.id, now);
  const pending = await tx.invitations.pendingInWorkspace(ws.id, now);
  if (pending.length >= MAX_PENDING_INVITATIONS && !pending.some((p) => p.principalName === name)) {
    throw new SatchelError(
      'CONFLICT',
      `${ws.name} already has ${pending.length} pending invitations; withdraw some first`,
      { reason: 'too_many_invitations', limit: MAX_PENDING_INVITATIONS },
    );
  }
  const row = {
    id: randomUUID(),
    workspaceId: ws.id,
    principalName: name,
    principalId,
    role,
    invitedBy: ctx.actor.principalId,
    createdAt: now,
    expiresAt: now + INVITATION_TTL_MS,
  };
  await tx.invitations.put(row);
  return invitationOut({ ...row, workspaceName: ws.name, inviterName: ctx.actor.name });
}

/** The caller's pending invitations (only to workspaces its key may reach), oldest first. */
export async function listInvitations(ctx: EngineContext): Promise<Invitation[]> {
  const rows = await ctx.store.invitations.pendingForPrincipal(ctx.actor.principalId, ctx.clock());
  const scope = ctx.actor.scope.workspaces;
  return rows.filter((r) => scope === null || scope.includes(r.workspaceName)).map(invitationOut);
}

/** A workspace's pending invitations, for its owners. */
export async function listWorkspaceInvitations(
  ctx: EngineContext,
  workspace: string,
): Promise<Invitation[]> {
  const ws = await requireWorkspace(ctx.store, workspace);
  return (await ctx.store.invitations.pendingInWorkspace(ws.id, ctx.clock())).map(invitationOut);
}

/** The workspace an invitation is to, so the call's audit entry can name it; null if unknown. */
export async function invitationWorkspace(q: MetadataQueries, id: unknown): Promise<string | null> {
  if (typeof id !== 'string') return null;
  return (await q.invitations.byId(id))?.workspaceName ?? null;
}

/**
 * The caller's own pending invitation `id`. NOT_FOUND — one answer — for an unknown id, an
 * expired invitation, or one addressed to anyone else.
 */
async function ownInvitation(tx: MetadataTx, actor: Actor, id: string, now: number) {
  const row: InvitationView | undefined =
    typeof id === 'string' ? await tx.invitations.byId(id) : undefined;
  if (!row || row.principalId !== actor.principalId || row.expiresAt <= now) {
    throw new SatchelError('NOT_FOUND', `invitation ${String(id)} not found`, {
      invitation: id,
    });
  }
  return row;
}

/**
 * Refuses a narrowed key the right to join a workspace for its principal: a read-only key, or
 * one limited to other workspaces. FORBIDDEN (`reason: 'read_only' | 'key_scope'`).
 */
function authorizeJoin(actor: Actor, workspace: string): void {
  const { scope } = actor;
  if (scope.readOnly) {
    throw new SatchelError(
      'FORBIDDEN',
      `${actor.name} may not join ${workspace}: the key is read-only`,
      {
        reason: 'read_only',
      },
    );
  }
  if (scope.workspaces !== null && !scope.workspaces.includes(workspace)) {
    throw new SatchelError(
      'FORBIDDEN',
      `${actor.name} may not join ${workspace}: the key is limited to other workspaces`,
      { reason: 'key_scope' },
    );
  }
}

/**
 * Accepts the caller's invitation: the caller becomes a member with the invited role (a member
 * already keeps a higher role). NOT_FOUND as `ownInvitation`; FORBIDDEN for a narrowed key.
 */
export async function acceptInvitation(ctx: EngineContext, id: string): Promise<Membership> {
  return ctx.commit(async (tx) => {
    const now = ctx.clock();
    const row = await ownInvitation(tx, ctx.actor, id, now);
    authorizeJoin(ctx.actor, row.workspaceName);
    const principal = await tx.access.principalById(ctx.actor.principalId);
    if (!principal) throw new SatchelError('NOT_FOUND', `invitation ${id} not found`);
    const current = (await tx.members.list(row.workspaceId)).find(
      (m) => m.principalId === principal.id,
    );
    const keep = current !== undefined && ROLE_RANK[current.role] >= ROLE_RANK[row.role];
    const role = keep ? current.role : row.role;
    if (!keep) {
      await tx.members.put({
        workspaceId: row.workspaceId,
        principalId: principal.id,
        role,
        createdAt: now,
      });
    }
    await tx.invitations.delete(row.id);
    return {
      workspace: row.workspaceName,
      principal: principal.name,
      kind: principal.kind,
      role,
      since: iso(current?.createdAt ?? now),
    };
  });
}

/** Declines the caller's invitation: it is gone, and nothing else changes. NOT_FOUND as above. */
export async function declineInvitation(ctx: EngineContext, id: string): Promise<void> {
  await ctx.commit(async (tx) => {
    const row = await ownInvitation(tx, ctx.actor, id, ctx.clock());
    await tx.invitations.delete(row.id);
    return true;
  });
}
