/**
 * How every call of the local engine runs: validate names, authorise (the one `authorize`
 * function), run the operation, and audit the call — inside the mutation's own transaction for
 * changes, group-committed within 100 ms for reads and refusals (DESIGN.md, Audit log).
 */

import { isSatchelError, SatchelError } from '@satchel/client/errors.js';
import type { GlobalAction, WorkspaceAction } from '@satchel/client/operations/actions.js';
import { normalizeFilePath, normalizePath, validateWorkspaceName } from '@satchel/client/paths.js';
import type { AuditEntry, AuditInput, AuditLog } from '../audit/audit-log.js';
import type { RefusalLog } from '../audit/refusal-log.js';
import { authorizeGlobal, authorizeRole, roleWithin } from '../auth/authorize.js';
import type { KeyCache } from '../auth/key-cache.js';
import type { NameProbes } from '../auth/name-probes.js';
import type { RateBudgets } from '../auth/rate-budgets.js';
import type { Actor } from '../kernel/actor.js';
import type { ChangeNotifier } from '../kernel/change-notifier.js';
import type { EngineContext, EngineLimits } from '../kernel/context.js';
import { workspaceNotFound } from '../kernel/context.js';
import type { LockWaiters } from '../locks/locks.js';
import type { GrepWorkers } from '../search/grep-workers.js';
import type { SearchIndex } from '../search/indexer.js';
import type { BlobStore } from '../store/blob-store.js';
import type { GroupCommitter } from '../store/group-commit.js';
import type { MetadataStore, MetadataTx } from '../store/metadata/metadata-store.js';
import type { WebhookServices } from '../webhooks/webhooks.js';
import type { TransferSettings } from './transfer-urls.js';

/** Everything the engine shares across actors. */
export interface EngineServices {
  readonly store: MetadataStore;
  readonly blobs: BlobStore;
  readonly committer: GroupCommitter;
  readonly audit: AuditLog;
  /** The bounded server-level log of calls refused before they reached the engine. */
  readonly refusals: RefusalLog;
  /** Keys authenticated recently (auth/key-cache.ts): forgotten on revocation, on every node. */
  readonly keys: KeyCache;
  readonly waiters: LockWaiters;
  readonly changes: ChangeNotifier;
  readonly clock: () => number;
  readonly limits: EngineLimits;
  /** The search index: follows commits in the background, and holds the optional providers. */
  readonly search: SearchIndex;
  /** Threads that run grep's costly matching, where a scan past its deadline can be killed. */
  readonly grepWorkers: GrepWorkers;
  readonly webhooks: WebhookServices;
  /** Requests per key and window, for the frontends' rate limits (shared by the nodes). */
  readonly rates: RateBudgets;
  /** Each principal's budget of create conflicts on names it may not see (name-probes.ts). */
  readonly nameProbes: NameProbes;
  /** Signed transfer URLs and resumable uploads: base URL, lifetimes. */
  readonly transfers: TransferSettings;
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
  // Awaited before the call returns, so a listing right after it sees its entry.
  const record = async (outcome: AuditInput['outcome'], code: string | null) => {
    const workspaceId = await workspaceIdOf(ctx.store, call);
    void services.audit.record({
      time: services.clock(),
      actor: actor.name,
      session: call.session,
      action: call.action,
      workspace: call.workspace,
      workspaceId,
      path: call.path,
      seq: null,
      outcome,
      code,
    });
  };
  try {
    await check(ctx);
    const result = await fn(ctx);
    if (!audited.done) await record('ok', null);
    return result;
  } catch (raw) {
    const error = unavailableOr(services.store, raw);
    const code = isSatchelError(error) ? error.code : 'INTERNAL';
    await record(REFUSALS.has(code) ? 'refused' : 'error', code);
    throw error;
  }
}

/** Seconds a client should wait before retrying while the database is unreachable. */
const RETRY_AFTER_SECONDS = 1;

/**
 * `error` as UNAVAILABLE (503 with Retry-After) when it means the database cannot be reached
 * now; any other error as it is.
 */
export function unavailableOr(store: MetadataStore, error: unknown): unknown {
  if (isSatchelError(error) || !store.dialect.unavailable(error)) return error;
  return new SatchelError(
    'UNAVAILABLE',
    `the metadata database cannot be reached; retry in ${RETRY_AFTER_SECONDS} s`,
    { retryAfter: RETRY_AFTER_SECONDS },
    { cause: error },
  );
}

/**
 * The id of the workspace the call reached, for its audit entry: the row its authorisation read
 * (cached for the call), else read now; null for no workspace or a name no workspace has, so
 * such a call is in the server-level log and never in the audit of a later workspace of that
 * name. Never rejects: an entry without an id is better than a lost entry.
 */
async function workspaceIdOf(store: MetadataStore, call: Call): Promise<string | null> {
  if (call.workspace === null) return null;
  try {
    return (await store.findWorkspace(call.workspace))?.id ?? null;
  } catch {
    return null;
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
  const entry = (seq: number | null, workspaceId: string | null): AuditInput => ({
    time: clock(),
    actor: actor.name,
    session: call.session,
    action: call.action,
    workspace: call.workspace,
    workspaceId,
    path: call.path,
    seq,
    outcome: 'ok',
    code: null,
  });
  const callStore = store.forCall();
  return {
    store: callStore,
    blobs,
    clock,
    limits,
    actor,
    commit: async <T>(
      op: (tx: MetadataTx) => Promise<T>,
      options?: { durable?: boolean },
    ): Promise<T> => {
      const name = call.workspace;
      // The row the authorisation read (a delete removes it in `op`); else, after `op`, the
      // row the transaction sees (a create makes it there).
      const checked = name === null ? undefined : await callStore.workspaceReadByCall(name);
      let appended: AuditEntry | undefined;
      const result = await committer.run(async (tx) => {
        const value = await op(tx);
        // An operation that declines (null) commits nothing worth an entry.
        if (value !== null) {
          const row = checked ?? (name === null ? undefined : await tx.findWorkspace(name));
          appended = await audit.appendInTx(tx, entry(seqOf(value), row?.id ?? null));
        }
        return value;
      }, options);
      if (result !== null) {
        audited.done = true;
        if (call.workspace !== null && seqOf(result) !== null)
          services.changes.notify(call.workspace);
        // Not awaited: the checkpoint trails the log by at most a few entries after a crash,
        // and a write should not pay for a second file sync.
        void audit.checkpoint(appended);
      }
      return result;
    },
  };
}

/**
 * Authorises `action` in `workspace`, for changes beneath `paths`. `file`: the path of the one
 * file the call reads, whose entry the same query looks up for it.
 */
export function workspaceCheck(
  actor: Actor,
  workspace: string,
  action: WorkspaceAction,
  paths: readonly unknown[] = [],
  file?: unknown,
): Check {
  return async (ctx) => {
    validateWorkspaceName(workspace);
    // The workspace and the actor's membership in one query; the call reuses the row.
    const path = filePathOrUndefined(file);
    const found =
      path === undefined
        ? await ctx.store.findWorkspaceWithRole(workspace, actor.principalId)
        : await ctx.store.findWorkspaceWithRoleAndEntry(workspace, actor.principalId, path);
    if (!found) throw workspaceNotFound(workspace);
    const role = roleWithin(actor, found.workspace, found.role);
    authorizeRole(
      actor,
      action,
      found.workspace,
      role,
      paths.map((p) => normalizePath(p)),
    );
  };
}

/** `input` as a file path, or undefined if it is none (the operation reports that itself). */
function filePathOrUndefined(input: unknown): string | undefined {
  if (input === undefined) return undefined;
  try {
    return normalizeFilePath(input);
  } catch {
    return undefined;
  }
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
