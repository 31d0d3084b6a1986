/**
 * The names of what a caller may be allowed to do: actions inside a workspace (core's
 * authorisation gives each the least role it needs) and actions outside any workspace.
 */
export const WORKSPACE_ACTION_NAMES = [
  'workspace.read',
  'file.read',
  'lock.read',
  'file.write',
  'lock.write',
  'lock.break',
  'member.read',
  'member.manage',
  'transfer.manage',
  'audit.read',
  'workspace.delete',
  'webhook.read',
  'webhook.manage',
  'workspace.manage',
  'comment.read',
  'comment.write',
  'share.read',
  'share.manage',
] as const;

export type WorkspaceAction = (typeof WORKSPACE_ACTION_NAMES)[number];

/** Actions outside any workspace. */
export type GlobalAction = 'workspace.create' | 'workspace.list' | 'transfer.accept' | 'admin';
