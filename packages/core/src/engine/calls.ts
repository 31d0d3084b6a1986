/**
 * How every call of the local engine runs: validate names, authorise (the one `authorize`
 * function), run the operation, and audit the call — inside the mutation's own transaction for
 * changes, group-committed within 100 ms for reads and refusals (DESIGN.md, Audit log).
 */

import { isSatchelError } from '@satchel/client/errors.js';
import type { GlobalAction, WorkspaceAction } from '@satchel/client/operations/actions.js';
import { normalizePath, validateWorkspaceName } from '@satchel/client/paths.js';
import type { AuditInput, AuditLog } from '../audit/audit-log.js';
import { authorize, authorizeGlobal } from '../auth/authorize.js';
import type { NameProbes } from '../auth/name-probes.js';
import type { Actor } from '../kernel/actor.js';
import type { ChangeNotifier } from '../kernel/change-notifier.js';
import type { EngineContext, EngineLimits } from '../kernel/context.js';
import { requireWorkspace } from '../kernel/context.js';
import type { LockWaiters } from '../locks/locks.js';
import type { GrepWorkers } from '../search/grep-workers.js';
import type { SearchIndex } from '../search/indexer.js';
import type { BlobStore } from '../store/blob-store.js';
import type { GroupCommitter } from '../store/group-commit.js';
import type { MetadataStore, MetadataTx } from '../store/metadata/metadata-store.js';
import type { WebhookServices } from '../webhooks/webhooks.js';

/** Everything the engine shares across actors. */
export interface EngineServices {
  readonly store: MetadataStore;
  readonly blobs: BlobStore;
  readonly committer: GroupCommitter;
  readonly audit: AuditLog;
  readonly waiters: LockWaiters;
  readonly changes: ChangeNotifier;
  readonly clock: () => number;
  readonly limits: EngineLimits;
  /** The search index: follows commits in the background, and holds the optional providers. */
  readonly search: SearchIndex;
  /** Threads that run grep's costly matching, where a scan past its deadline can be killed. */
  readonly grepWorkers: GrepWorkers;
  readonly webhooks: WebhookServices;
  /** Each principal's budget of create conflicts on names it may not see (name-probes.ts). */
  readonly nameProbes: NameProbes;
  readonly close: () => Promise<void>;
}

export interface Call {
  /** Method name, recorded as the audit entry's action. */
  readonly action: string;
  readonly workspace: string | null;
  readonly path: string | null;
  readonly session: string | null;
}

export type Check = (ctx: EngineContext) => Promise<void>;

const REFUSALS = new Set(['UNAUTHENTICATED', 'FORBIDDEN', 'LOCKED', 'RATE_LIMITED']);

function sessionOf(options: unknown): string | null {
  const session = (options as { session?: unknown } | undefined)?.session;
  return typeof session === 'string' ? session.slice(0, 200) : null;
}

/** Path as recorded in the audit log: canonical when valid, else the raw input, bounded. */
function auditPath(path: unknown): string | null {
  if (typeof path !== 'string') return null;
  try {
    return normalizePath(path);
  } catch {
    return path.slice(0, 300);
  }
}

/** The seq a mutation's result names (the newest, for a batch), or null. */
function seqOf(result: unknown): number | null {
  if (Array.isArray(result)) {
    const seqs = result.map(seqOf).filter((seq): seq is number => seq !== null);
    return seqs.length > 0 ? Math.max(...seqs) : null;
  }
  const value = result as { seq?: unknown; info?: { seq?: unknown } } | null;
  if (typeof value?.seq === 'number') return value.seq;
  return typeof value?.info?.seq === 'number' ? value.info.seq : null;
}

/**
 * Runs one call as `actor`: `check` authorises it, `fn` does it, and the call is audited —
 * inside the mutation's own transaction when it commits one, else group-committed within
 * 100 ms (also for refusals and errors).
 */
export async function runAudited<T>(
  services: EngineServices,
  actor: Actor,
  call: Call,
  check: Check,
  fn: (ctx: EngineContext) => Promise<T>,
): Promise<T> {
  const audited = { done: false };
  const ctx = callContext(services, actor, call, audited);
  const record = (outcome: AuditInput['outcome'], code: string | null) =>
    void services.audit.record({
      time: services.clock(),
      actor: actor.name,
      session: call.session,
      action: call.action,
      workspace: call.workspace,
      path: call.path,
      seq: null,
      outcome,
      code,
    });
  try {
    await check(ctx);
    const result = await fn(ctx);
    if (!audited.done) record('ok', null);
    return result;
  } catch (error) {
    const code = isSatchelError(error) ? error.code : 'INTERNAL';
    record(REFUSALS.has(code) ? 'refused' : 'error', code);
    throw error;
  }
}

/** A context whose commits carry this call's audit entry in the same transaction. */
function callContext(
  services: EngineServices,
  actor: Actor,
  call: Call,
  audited: { done: boolean },
): EngineContext {
  const { store, blobs, committer, audit, clock, limits } = services;
  const entry = (seq: number | null): AuditInput => ({
    time: clock(),
    actor: actor.name,
    session: call.session,
    action: call.action,
    workspace: call.workspace,
    path: call.path,
    seq,
    outcome: 'ok',
    code: null,
  });
  return {
    store: store.forCall(),
    blobs,
    clock,
    limits,
    actor,
    commit: async <T>(
      op: (tx: MetadataTx) => Promise<T>,
      options?: { durable?: boolean },
    ): Promise<T> => {
      const result = await committer.run(async (tx) => {
        const value = await op(tx);
        // An operation that declines (null) commits nothing worth an entry.
        if (value !== null) await audit.appendInTx(tx, entry(seqOf(value)));
        return value;
      }, options);
      if (result !== null) {
        audited.done = true;
        if (call.workspace !== null && seqOf(result) !== null)
          services.changes.notify(call.workspace);
        // Not awaited: the checkpoint trails the log by at most a few entries after a crash,
        // and a write should not pay for a second file sync.
        void audit.checkpoint();
      }
      return result;
    },
  };
}

/** Authorises `action` in `workspace`, for changes beneath `paths`. */
export function workspaceCheck(
  actor: Actor,
  workspace: string,
  action: WorkspaceAction,
  paths: readonly unknown[] = [],
): Check {
  return async (ctx) => {
    validateWorkspaceName(workspace);
    const ws = await requireWorkspace(ctx.store, workspace);
    await authorize(
      ctx.store,
      actor,
      action,
      ws,
      paths.map((p) => normalizePath(p)),
    );
  };
}

/** Authorises an action outside any workspace (admin, creating workspaces, accepting transfers). */
export function globalCheck(actor: Actor, action: GlobalAction): Check {
  return async () => authorizeGlobal(actor, action);
}

/** The audit entry's description of a call. */
export function describeCall(
  action: string,
  workspace: string | null,
  path: unknown,
  options?: unknown,
): Call {
  return { action, workspace, path: auditPath(path), session: sessionOf(options) };
}
