/**
 * The operation table: every operation of the Satchel interface, declared once
 * (docs/architecture.md says how to add one). Streams that are not calls — `exportAudit`, and
 * `close` — are the interface's only methods outside it.
 */
import * as access from './access.js';
import * as audit from './audit.js';
import * as files from './files.js';
import * as locks from './locks.js';
import type { MethodOf } from './operation.js';
import * as search from './search.js';
import * as webhooks from './webhooks.js';
import * as workspaces from './workspaces.js';

export const OPERATIONS = {
  createWorkspace: workspaces.createWorkspace,
  listWorkspaces: workspaces.listWorkspaces,
  getWorkspace: workspaces.getWorkspace,
  updateWorkspace: workspaces.updateWorkspace,
  deleteWorkspace: workspaces.deleteWorkspace,
  writeFile: files.writeFile,
  writeFileByHash: files.writeFileByHash,
  writeFiles: files.writeFiles,
  appendFile: files.appendFile,
  readFile: files.readFile,
  readText: files.readText,
  stat: files.stat,
  list: files.list,
  mkdir: files.mkdir,
  remove: files.remove,
  move: files.move,
  copy: files.copy,
  editFile: files.editFile,
  listVersions: files.listVersions,
  diff: files.diff,
  restore: files.restore,
  listChanges: files.listChanges,
  grep: search.grep,
  search: search.search,
  ask: search.ask,
  searchStatus: search.searchStatus,
  reindex: search.reindex,
  acquireLock: locks.acquireLock,
  renewLock: locks.renewLock,
  releaseLock: locks.releaseLock,
  breakLock: locks.breakLock,
  listLocks: locks.listLocks,
  whoami: access.whoami,
  createPrincipal: access.createPrincipal,
  listPrincipals: access.listPrincipals,
  createKey: access.createKey,
  listKeys: access.listKeys,
  revokeKey: access.revokeKey,
  listMembers: access.listMembers,
  setMember: access.setMember,
  removeMember: access.removeMember,
  offerTransfer: access.offerTransfer,
  listTransfers: access.listTransfers,
  cancelTransfer: access.cancelTransfer,
  acceptTransfer: access.acceptTransfer,
  createWebhook: webhooks.createWebhook,
  listWebhooks: webhooks.listWebhooks,
  getWebhook: webhooks.getWebhook,
  updateWebhook: webhooks.updateWebhook,
  deleteWebhook: webhooks.deleteWebhook,
  listWebhookDeliveries: webhooks.listWebhookDeliveries,
  listAudit: audit.listAudit,
  verifyAudit: audit.verifyAudit,
  fsck: audit.fsck,
} as const;

export type Operations = typeof OPERATIONS;
export type OperationName = keyof Operations;

/** The methods of the Satchel interface that the table declares. */
export type OperationMethods = { readonly [K in OperationName]: MethodOf<Operations[K]> };

export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];
