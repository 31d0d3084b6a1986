/**
 * What each operation of the table does in the engine: the function that runs it once
 * `local-satchel.ts` has authorised the call, inside the call's audit. One line per operation;
 * the work is in the domain modules. TypeScript checks that every operation has its run.
 */

import type { OperationMethods, OperationName } from '@satchel/client/operations/index.js';
import * as accessOps from '../auth/access.js';
import { effectiveRole } from '../auth/authorize.js';
import {
  acceptInvitation,
  declineInvitation,
  invitationWorkspace,
  listInvitations,
  listWorkspaceInvitations,
} from '../auth/invitations.js';
import { listMembers, removeMember, setMember } from '../auth/members.js';
import {
  acceptTransfer,
  cancelTransfer,
  listTransfers,
  offerTransfer,
  transferWorkspace,
} from '../auth/transfers.js';
import { type EngineContext, notFound, requireWorkspace } from '../kernel/context.js';
import { acquireLock, breakLock, listLocks, releaseLock, renewLock } from '../locks/locks.js';
import { ask } from '../search/ask.js';
import { grep } from '../search/grep.js';
import { requireIndexing, searchPassages } from '../search/search.js';
import * as webhookOps from '../webhooks/webhooks.js';
import { listAuditEntries, verifyAuditChain } from './audit-calls.js';
import { downloadFiles, haveContent, uploadFiles } from './batch-transfer.js';
import type { EngineServices } from './calls.js';
import { listChanges } from './changes.js';
import { addComment, getComment, listComments, resolveComment } from './comments.js';
import { editFile } from './edit.js';
import { forkWorkspace } from './fork.js';
import { fsck } from './fsck.js';
import { collectGarbage } from './gc.js';
import { diff, listVersions } from './history.js';
import { merge, previewMerge } from './merge.js';
import { getWorkspaceUsage } from './quota.js';
import { list, readFile, readText, stat } from './read.js';
import { redact } from './redact.js';
import { restore } from './restore.js';
import { createShareLink, listShareLinks, revokeShareLink } from './share-links.js';
import { createSnapshot, deleteSnapshot, listSnapshots } from './snapshots.js';
import { createDownloadUrl, createUploadUrl } from './transfer-urls.js';
import { copy, move, remove } from './tree.js';
import { previewUndo, undo } from './undo.js';
import {
  appendUpload,
  cancelUpload,
  completeUpload,
  createUpload,
  getUpload,
  listUploads,
  uploadPath,
} from './uploads.js';
import { createLoginLink, listWebSessions, revokeWebSession } from './web-sessions.js';
import { updateWorkspace } from './workspace-settings.js';
import { createWorkspace, deleteWorkspace, getWorkspace, listWorkspaces } from './workspaces.js';
import { appendFile, mkdir, writeFile } from './write.js';
import { writeFileByHash } from './write-by-hash.js';
import { writeFiles } from './write-files.js';

/** How long `reindex` rebuilds before it returns; the rest continues in the background. */
const REINDEX_WAIT_MS = 10_000;

type Run<K extends OperationName> = (
  ctx: EngineContext,
  args: Parameters<OperationMethods[K]>,
  services: EngineServices,
) => ReturnType<OperationMethods[K]>;

export type Runs = { readonly [K in OperationName]: Run<K> };

export const RUNS: Runs = {
  createUpload: (ctx, [ws, path, options], s) =>
    createUpload(ctx, s.transfers.uploadIdleSeconds, ws, path, options),
  getUpload: (ctx, [ws, id]) => getUpload(ctx, ws, id),
  listUploads: (ctx, [ws, options]) => listUploads(ctx, ws, options),
  appendUpload: (ctx, [ws, id, offset, content], s) =>
    appendUpload(ctx, s.transfers.uploadIdleSeconds, ws, id, offset, content),
  completeUpload: (ctx, [ws, id]) => completeUpload(ctx, ws, id),
  cancelUpload: (ctx, [ws, id]) => cancelUpload(ctx, ws, id),
  createUploadUrl: (ctx, [ws, path, options], s) =>
    createUploadUrl(ctx, s.transfers, ws, path, options),
  createDownloadUrl: (ctx, [ws, path, options], s) =>
    createDownloadUrl(ctx, s.transfers, ws, path, options),
  createWorkspace: (ctx, [name, options], s) => createWorkspace(ctx, s.nameProbes, name, options),
  listWorkspaces: (ctx, [options]) =>
    listWorkspaces(
      ctx,
      options,
      async (row) => (await effectiveRole(ctx.store, ctx.actor, row)) !== null,
    ),
  getWorkspace: (ctx, [ws]) => getWorkspace(ctx, ws),
  updateWorkspace: async (ctx, [ws, settings], s) => {
    await updateWorkspace(ctx, s.search, ws, settings);
    // The call's store caches the workspace row as it was before the change.
    return getWorkspace({ ...ctx, store: s.store }, ws);
  },
  deleteWorkspace: (ctx, [ws, options]) => deleteWorkspace(ctx, ws, options),
  getWorkspaceUsage: (ctx, [ws]) => getWorkspaceUsage(ctx, ws),

  writeFile: (ctx, [ws, path, content, options]) => writeFile(ctx, ws, path, content, options),
  writeFileByHash: (ctx, [ws, path, hash, options]) =>
    writeFileByHash(ctx, ws, path, hash, options),
  writeFiles: (ctx, [ws, files, options]) => writeFiles(ctx, ws, files, options),
  haveContent: (ctx, [ws, hashes]) => haveContent(ctx, ws, hashes),
  // Indexing waits for the upload's end, then takes its files in a few steps (indexer.ts).
  uploadFiles: (ctx, [ws, entries, options], s) =>
    s.search.deferring(ws, () => uploadFiles(ctx, ws, entries, options)),
  downloadFiles: (ctx, [ws, files]) => downloadFiles(ctx, ws, files),
  appendFile: (ctx, [ws, path, content, options]) => appendFile(ctx, ws, path, content, options),
  readFile: (ctx, [ws, path, options]) => readFile(ctx, ws, path, options),
  readText: (ctx, [ws, path, options]) => readText(ctx, ws, path, options),
  stat: (ctx, [ws, path, options]) => stat(ctx, ws, path, options),
  list: (ctx, [ws, options]) => list(ctx, ws, options),
  mkdir: (ctx, [ws, path, options]) => mkdir(ctx, ws, path, options),
  remove: (ctx, [ws, path, options]) => remove(ctx, ws, path, options),
  move: (ctx, [ws, from, to, options]) => move(ctx, ws, from, to, options),
  copy: (ctx, [ws, from, to, options]) => copy(ctx, ws, from, to, options),
  editFile: (ctx, [ws, path, edits, options]) => editFile(ctx, ws, path, edits, options),
  listVersions: (ctx, [ws, path, options]) => listVersions(ctx, ws, path, options),
  diff: (ctx, [ws, path, options]) => diff(ctx, ws, path, options),
  createSnapshot: (ctx, [ws, name, options]) => createSnapshot(ctx, ws, name, options),
  listSnapshots: (ctx, [ws, options]) => listSnapshots(ctx, ws, options),
  deleteSnapshot: (ctx, [ws, name]) => deleteSnapshot(ctx, ws, name),
  redact: (ctx, [ws, path, options]) => redact(ctx, ws, path, options),
  restore: (ctx, [ws, path, seq, options]) => restore(ctx, ws, path, seq, options),
  previewUndo: (ctx, [ws, target, options]) => previewUndo(ctx, ws, target, options),
  undo: (ctx, [ws, target, options]) => undo(ctx, ws, target, options),
  forkWorkspace: (ctx, [ws, name, options], s) =>
    forkWorkspace(ctx, s.nameProbes, ws, name, options),
  previewMerge: (ctx, [ws, from, options]) => previewMerge(ctx, ws, from, options),
  merge: (ctx, [ws, from, options]) => merge(ctx, ws, from, options),
  listChanges: (ctx, [ws, options], s) => listChanges(ctx, s.changes, ws, options),

  grep: (ctx, [ws, pattern, options], s) => grep(ctx, s.grepWorkers, ws, pattern, options),
  search: (ctx, [ws, query, options], s) => searchPassages(ctx, s.search, ws, query, options),
  ask: (ctx, [ws, question, options], s) => ask(ctx, s.search, ws, question, options),
  searchStatus: async (ctx, [ws], s) => s.search.status(await requireWorkspace(ctx.store, ws)),
  reindex: async (ctx, [ws], s) => {
    const row = await requireWorkspace(ctx.store, ws);
    requireIndexing(row);
    await s.search.reindex(row, REINDEX_WAIT_MS);
    return s.search.status(await requireWorkspace(ctx.store, ws));
  },

  acquireLock: (ctx, [ws, options], s) => acquireLock(ctx, s.waiters, ws, options),
  renewLock: (ctx, [ws, id, options], s) => renewLock(ctx, s.waiters, ws, id, options),
  releaseLock: (ctx, [ws, id], s) => releaseLock(ctx, s.waiters, ws, id),
  breakLock: (ctx, [ws, id], s) => breakLock(ctx, s.waiters, ws, id),
  listLocks: (ctx, [ws, options]) => listLocks(ctx, ws, options),
  getLock: async (ctx, [ws, id]) => {
    const lock = (await listLocks(ctx, ws)).find((live) => live.id === id);
    if (lock === undefined) throw notFound(id, 'live lock');
    return lock;
  },

  whoami: (ctx) => accessOps.whoami(ctx),
  createPrincipal: (ctx, [input]) => accessOps.createPrincipal(ctx, input),
  listPrincipals: (ctx, [options]) => accessOps.listPrincipals(ctx, options),
  createKey: (ctx, [input]) => accessOps.createKey(ctx, input ?? {}),
  listKeys: (ctx, [options]) => accessOps.listKeys(ctx, options),
  revokeKey: async (ctx, [id], services) => {
    const revoked = await accessOps.revokeKey(ctx, id);
    services.keys.revoked();
    return revoked;
  },
  listMembers: (ctx, [ws]) => listMembers(ctx, ws),
  setMember: (ctx, [ws, principal, role]) => setMember(ctx, ws, principal, role),
  removeMember: (ctx, [ws, principal]) => removeMember(ctx, ws, principal),
  listWorkspaceInvitations: (ctx, [ws]) => listWorkspaceInvitations(ctx, ws),
  listInvitations: (ctx) => listInvitations(ctx),
  acceptInvitation: (ctx, [id]) => acceptInvitation(ctx, id),
  declineInvitation: (ctx, [id]) => declineInvitation(ctx, id),
  offerTransfer: (ctx, [ws, options]) => offerTransfer(ctx, ws, options),
  listTransfers: (ctx, [ws]) => listTransfers(ctx, ws),
  cancelTransfer: (ctx, [ws, id]) => cancelTransfer(ctx, ws, id),
  acceptTransfer: (ctx, [code]) => acceptTransfer(ctx, code),
  createLoginLink: (ctx, [options], s) => createLoginLink(ctx, s.transfers.publicUrl, options),
  listWebSessions: (ctx) => listWebSessions(ctx),
  revokeWebSession: (ctx, [id]) => revokeWebSession(ctx, id),

  createWebhook: (ctx, [ws, input], s) => webhookOps.createWebhook(ctx, s.webhooks, ws, input),
  listWebhooks: (ctx, [ws]) => webhookOps.listWebhooks(ctx, ws),
  getWebhook: (ctx, [ws, id]) => webhookOps.getWebhook(ctx, ws, id),
  updateWebhook: (ctx, [ws, id, change], s) =>
    webhookOps.updateWebhook(ctx, s.webhooks, ws, id, change),
  deleteWebhook: (ctx, [ws, id]) => webhookOps.deleteWebhook(ctx, ws, id),
  listWebhookDeliveries: (ctx, [ws, id, options]) =>
    webhookOps.listWebhookDeliveries(ctx, ws, id, options),

  listComments: (ctx, [ws, options]) => listComments(ctx, ws, options),
  getComment: (ctx, [ws, id]) => getComment(ctx, ws, id),
  addComment: (ctx, [ws, input]) => addComment(ctx, ws, input),
  resolveComment: (ctx, [ws, id, options]) => resolveComment(ctx, ws, id, options),
  createShareLink: (ctx, [ws, input], s) => createShareLink(ctx, s.transfers, ws, input),
  listShareLinks: (ctx, [ws, options]) => listShareLinks(ctx, ws, options),
  revokeShareLink: (ctx, [ws, id]) => revokeShareLink(ctx, ws, id),

  listAudit: (ctx, [options], s) => listAuditEntries(ctx.store, s.audit, options),
  verifyAudit: (_ctx, _args, s) => verifyAuditChain(s.audit),
  fsck: (ctx) => fsck(ctx),
  collectGarbage: (_ctx, [options], s) => collectGarbage(s, options),
};

/**
 * Where the operation's workspace is not one of its arguments, how the engine finds it before
 * the call, for the audit entry: a claim code names the workspace of its transfer, an invitation
 * id the workspace it invites to (null for an unknown code or id).
 */
export const WORKSPACE_OF: {
  readonly [K in OperationName]?: (
    services: EngineServices,
    args: Parameters<OperationMethods[K]>,
  ) => Promise<string | null>;
} = {
  acceptTransfer: async (services, [code]) =>
    typeof code === 'string' ? transferWorkspace(services.store, code) : null,
  acceptInvitation: (services, [id]) => invitationWorkspace(services.store, id),
  declineInvitation: (services, [id]) => invitationWorkspace(services.store, id),
};

/** The path of calls whose arguments do not name it, for the audit entry. */
export const PATH_OF: {
  readonly [K in OperationName]?: (
    services: EngineServices,
    args: Parameters<OperationMethods[K]>,
  ) => Promise<string | null>;
} = {
  completeUpload: (services, [ws, id]) => uploadPath(services.store, ws, id),
};
