/**
 * The one authorisation function. Every facade call names its action; `authorize` decides with
 * the actor's role in the workspace (membership, or admin), narrowed by the key it used.
 * A workspace the actor may not see is NOT_FOUND, never FORBIDDEN: its existence stays secret.
 */

import { SatchelError } from '@satchel/client/errors.js';
import type { GlobalAction, WorkspaceAction } from '@satchel/client/operations/actions.js';
import { isWithin } from '@satchel/client/paths.js';
import { type Actor, ROLE_RANK, type Role } from '../kernel/actor.js';
import type { MetadataQueries, WorkspaceRecord } from '../store/metadata/metadata-store.js';

/** Actions inside a workspace, and the least role each needs. */
export const WORKSPACE_ACTIONS = {
  'workspace.read': 'viewer',
  'file.read': 'viewer',
  'lock.read': 'viewer',
  'file.write': 'editor',
  'lock.write': 'editor',
  'lock.break': 'owner',
  'member.read': 'viewer',
  'member.manage': 'owner',
  'transfer.manage': 'owner',
  'audit.read': 'owner',
  'workspace.delete': 'owner',
  'webhook.read': 'owner',
  'webhook.manage': 'owner',
  'workspace.manage': 'owner',
  // Reviewers are often viewers: they may comment (not with a read-only key, see WRITES).
  'comment.read': 'viewer',
  'comment.write': 'viewer',
  // A share link hands content to people outside the workspace: writers decide that.
  'share.read': 'editor',
  'share.manage': 'editor',
} as const satisfies Record<WorkspaceAction, Role>;

/** How refusals phrase each action: "<who> may not <verb> in <workspace>". */
const VERBS: Readonly<Record<WorkspaceAction | GlobalAction, string>> = {
  'workspace.read': 'see',
  'file.read': 'read files',
  'lock.read': 'see locks',
  'file.write': 'change files',
  'lock.write': 'take or release locks',
  'lock.break': "break others' locks",
  'member.read': 'see members',
  'member.manage': 'manage members',
  'transfer.manage': 'manage ownership transfers',
  'audit.read': 'read the audit log',
  'workspace.delete': 'delete the workspace',
  'webhook.read': 'see webhooks',
  'webhook.manage': 'manage webhooks',
  'workspace.manage': 'change workspace settings or rebuild its search index',
  'comment.read': 'read comments',
  'comment.write': 'comment',
  'share.read': 'see share links',
  'share.manage': 'create or revoke share links',
  'workspace.create': 'create workspaces',
  'transfer.accept': 'accept ownership transfers',
  'workspace.list': 'list workspaces',
  admin: 'administer principals and keys',
};

/** Actions that change something: refused outright to read-only keys. */
const WRITES: ReadonlySet<string> = new Set([
  'file.write',
  'lock.write',
  'lock.break',
  'member.manage',
  'transfer.manage',
  'workspace.delete',
  'webhook.manage',
  'workspace.manage',
  'comment.write',
  'share.manage',
  'workspace.create',
  'transfer.accept',
  'admin',
]);

function forbidden(actor: Actor, what: string, data: Record<string, unknown> = {}): SatchelError {
  return new SatchelError('FORBIDDEN', `${actor.name} may not ${what}`, data);
}

function refuseReadOnly(actor: Actor, action: WorkspaceAction | GlobalAction): void {
  if (actor.scope.readOnly && WRITES.has(action)) {
    throw forbidden(actor, `${VERBS[action]}: the key is read-only`, {
      reason: 'read_only',
    });
  }
}

/** Checks an action outside any workspace; FORBIDDEN when refused. */
export function authorizeGlobal(actor: Actor, action: GlobalAction): void {
  refuseReadOnly(actor, action);
  if (action === 'admin' && !actor.admin) {
    throw forbidden(actor, 'administer principals and keys', { reason: 'not_admin' });
  }
  if (action === 'workspace.create' && actor.scope.workspaces !== null) {
    throw forbidden(actor, 'create workspaces: the key is limited to some workspaces', {
      reason: 'key_scope',
    });
  }
}

/**
 * Refuses to let a narrowed key take ownership of `workspace` (accepting a transfer): only a key
 * whose scope covers the workspace as owner may — not one limited to other workspaces, to a
 * role below owner, to path prefixes, or to reading. FORBIDDEN (`reason: 'key_scope'`).
 */
export function authorizeOwnership(actor: Actor, workspace: string): void {
  const { scope } = actor;
  const narrowed =
    (scope.workspaces !== null && !scope.workspaces.includes(workspace)) ||
    (scope.roleCeiling !== null && scope.roleCeiling !== 'owner') ||
    scope.pathPrefixes !== null ||
    scope.readOnly;
  if (narrowed) {
    throw forbidden(actor, `take ownership of ${workspace}: the key is narrowed`, {
      reason: 'key_scope',
    });
  }
}

/** The actor's effective role in a workspace, or null if it may not see it at all. */
export async function effectiveRole(
  q: MetadataQueries,
  actor: Actor,
  ws: WorkspaceRecord,
): Promise<Role | null> {
  if (actor.scope.workspaces !== null && !actor.scope.workspaces.includes(ws.name)) return null;
  return roleWithin(
    actor,
    ws,
    actor.admin ? null : await q.members.roleOf(ws.id, actor.principalId),
  );
}

/**
 * The actor's effective role in `ws` given its membership there (`memberRole`, null: none), or
 * null if it may not see the workspace: admin is owner everywhere; the key's scope narrows.
 */
export function roleWithin(
  actor: Actor,
  ws: WorkspaceRecord,
  memberRole: Role | null,
): Role | null {
  if (actor.scope.workspaces !== null && !actor.scope.workspaces.includes(ws.name)) return null;
  const role: Role | null = actor.admin ? 'owner' : memberRole;
  if (role === null) return null;
  const ceiling = actor.scope.roleCeiling;
  return ceiling !== null && ROLE_RANK[ceiling] < ROLE_RANK[role] ? ceiling : role;
}

/**
 * Checks `action` in workspace `ws` (on `path`, for file and lock changes). Throws NOT_FOUND if
 * the actor may not see the workspace, FORBIDDEN if it may see it but not do this: too low a
 * role, a read-only key, or a change outside the key's path prefixes. Returns the role.
 */
export async function authorize(
  q: MetadataQueries,
  actor: Actor,
  action: WorkspaceAction,
  ws: WorkspaceRecord,
  paths: readonly string[] = [],
): Promise<Role> {
  return authorizeRole(actor, action, ws, await effectiveRole(q, actor, ws), paths);
}

/** `authorize` with the actor's effective role in `ws` already known (`roleWithin`). */
export function authorizeRole(
  actor: Actor,
  action: WorkspaceAction,
  ws: WorkspaceRecord,
  role: Role | null,
  paths: readonly string[] = [],
): Role {
  if (role === null) {
    throw new SatchelError('NOT_FOUND', `workspace ${ws.name} not found`, { workspace: ws.name });
  }
  refuseReadOnly(actor, action);
  const needed = WORKSPACE_ACTIONS[action];
  if (ROLE_RANK[role] < ROLE_RANK[needed]) {
    throw forbidden(
      actor,
      `${VERBS[action]} in ${ws.name}: that needs ${needed}, and it is ${role}`,
      {
        reason: 'role',
        role,
        needed,
      },
    );
  }
  const prefixes = actor.scope.pathPrefixes;
  if (prefixes !== null && WRITES.has(action)) {
    for (const path of paths) {
      if (!prefixes.some((prefix) => isWithin(path, prefix))) {
        throw forbidden(actor, `change ${path}: the key may change only ${prefixes.join(', ')}`, {
          reason: 'path_prefix',
          path,
        });
      }
    }
  }
  return role;
}
