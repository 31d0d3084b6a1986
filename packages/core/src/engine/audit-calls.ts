/** The audit log's operations as the engine runs them: entries as the API shows them, and verification. */

import { SatchelError } from '@satchel/client/errors.js';
import type {
  AuditEntryOut,
  AuditQuery,
  AuditVerificationOut,
  Page,
} from '@satchel/client/schemas/index.js';
import type { AuditLog } from '../audit/audit-log.js';

/** Entries of one workspace or of all, oldest first, after the cursor (an entry index). */
export async function listAuditEntries(
  audit: AuditLog,
  options: AuditQuery = {},
): Promise<Page<AuditEntryOut>> {
  // Entries of reads and refusals wait up to 100 ms for their commit: include them.
  await audit.flush();
  const workspace = options.workspace ?? null;
  const after = options.cursor === undefined ? undefined : Number(options.cursor);
  if (after !== undefined && !Number.isSafeInteger(after)) {
    throw new SatchelError('INVALID_INPUT', 'invalid cursor', { field: 'cursor' });
  }
  const page = await audit.list({
    ...(workspace === null ? {} : { workspace }),
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
