/** The audit log's operations as the engine runs them: entries as the API shows them, and verification. */

import { SatchelError } from '@satchel/client/errors.js';
import type {
  AuditEntryOut,
  AuditQuery,
  AuditVerificationOut,
  Page,
} from '@satchel/client/schemas/index.js';
import type { AuditLog, AuditScope } from '../audit/audit-log.js';
import { requireWorkspace } from '../kernel/context.js';
import type { MetadataQueries } from '../store/metadata/metadata-store.js';

/** Which entries a query asks for; a workspace is read by its id as it exists now. */
async function scopeOf(store: MetadataQueries, options: AuditQuery): Promise<AuditScope> {
  if (options.workspace !== undefined && options.server === true) {
    throw new SatchelError(
      'INVALID_INPUT',
      'workspace and server exclude each other: the server-level log has no workspace',
      { field: 'server' },
    );
  }
  if (options.server === true) return { kind: 'server' };
  if (options.workspace === undefined) return { kind: 'all' };
  const row = await requireWorkspace(store, options.workspace);
  return { kind: 'workspace', id: row.id, name: row.name, createdAt: row.createdAt };
}

/**
 * Entries of one workspace (by its id: a deleted namesake's are not its own), of the server
 * level (no workspace: calls outside any, against names with no workspace, refused keys), or of
 * all, oldest first, after the cursor (an entry index).
 */
export async function listAuditEntries(
  store: MetadataQueries,
  audit: AuditLog,
  options: AuditQuery = {},
): Promise<Page<AuditEntryOut>> {
  const scope = await scopeOf(store, options);
  // Entries of reads and refusals wait up to 100 ms for their commit: include them.
  await audit.flush();
  const after = options.cursor === undefined ? undefined : Number(options.cursor);
  if (after !== undefined && !Number.isSafeInteger(after)) {
    throw new SatchelError('INVALID_INPUT', 'invalid cursor', { field: 'cursor' });
  }
  const page = await audit.list({
    scope,
    ...(after === undefined ? {} : { after }),
    ...(options.limit === undefined ? {} : { limit: options.limit }),
  });
  return {
    nextCursor: page.nextCursor,
    items: page.items.map((e) => ({
      idx: e.idx,
      time: new Date(e.time).toISOString(),
      actor: e.actor,
      session: e.session,
      action: e.action,
      workspace: e.workspace,
      workspaceId: e.workspaceId,
      path: e.path,
      seq: e.seq,
      outcome: e.outcome,
      code: e.code,
      prevHash: e.prevHash,
      hash: e.hash,
    })),
  };
}

/** Recomputes the chain (after flushing pending entries) and checks the checkpoint. */
export async function verifyAuditChain(audit: AuditLog): Promise<AuditVerificationOut> {
  await audit.flush();
  const result = await audit.verify();
  return result.ok
    ? {
        ok: true,
        entries: result.entries,
        index: null,
        reason: null,
        checkpoint: result.checkpoint,
      }
    : {
        ok: false,
        entries: result.entries,
        index: result.index,
        reason: result.reason,
        checkpoint: null,
      };
}
