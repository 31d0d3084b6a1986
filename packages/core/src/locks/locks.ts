/** Lock operations: acquire (optionally waiting), renew, release, break, list, and the write check. */
import { randomUUID } from 'node:crypto';
import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { normalizeEntryPath, normalizePath, validateWorkspaceName } from '@satchel/client/paths.js';
import { type AcquireLock, AcquireLockSchema, type Lock } from '@satchel/client/schemas/index.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { iso } from '../kernel/records.js';
import type { MetadataQueries, MetadataTx } from '../store/metadata/metadata-store.js';
import type { LockRecord } from '../store/metadata/records.js';
import { conflicts, covers, type LockClaim, type LockTarget } from './lock-rules.js';
import type { LockWaiters } from './lock-waiters.js';

export { LockWaiters } from './lock-waiters.js';

/** A lock as callers see it; `holder` is the principal's name, times are ISO 8601. */
export type LockInfo = Lock;
/** `scope` default file, `mode` default exclusive, `ttlSeconds` 1-3600 (60), `waitSeconds` 0-300 (0). */
export type AcquireOptions = AcquireLock;

const DEFAULT_TTL_SECONDS = 60;

/**
 * Lease changes (acquire, renew, release) commit without waiting for the disk: they survive a
 * crash of the process but not of the machine. That keeps a lock round trip well under a
 * millisecond, and it is safe: fencing tokens still only grow (see `nextFence`), and a lease lost
 * with the machine only makes its holder's token stale. Breaking a lock is durable.
 */
const LEASE = { durable: false } as const;
const RenewOptionsSchema = AcquireLockSchema.pick({ ttlSeconds: true });

function lockInfo(row: LockRecord, workspace: string): LockInfo {
  return {
    id: row.id,
    workspace,
    path: row.path,
    scope: row.scope,
    mode: row.mode,
    token: row.token,
    holder: row.holder,
    session: row.session,
    acquiredAt: iso(row.acquiredAt),
    expiresAt: iso(row.expiresAt),
  };
}

const isLive = (row: LockRecord, now: number): boolean =>
  row.releasedAt === null && row.expiresAt > now;

/**
 * LOCKED naming the lock among `blockers` that stays longest, or, with none, the earlier waiting
 * request that goes first (then `holder`, `expiresAt` and `lockId` are null).
 */
function heldError(
  path: string,
  blockers: readonly LockRecord[],
  queued?: LockClaim,
): SatchelError {
  const [first, ...others] = [...blockers].sort((a, b) => b.expiresAt - a.expiresAt);
  if (!first) {
    const what = queued ? `a ${queued.mode} ${queued.scope} lock on ${queued.path}` : 'a lock';
    return new SatchelError(
      'LOCKED',
      `${path} is promised to an earlier request waiting for ${what}`,
      {
        path,
        holder: null,
        expiresAt: null,
        lockId: null,
        reason: 'held',
      },
    );
  }
  const expiresAt = iso(first.expiresAt);
  const on =
    first.path === path && first.scope === 'file' ? '' : ` (${first.scope} lock on ${first.path})`;
  const more = others.length > 0 ? `, and ${others.length} more lock(s)` : '';
  return new SatchelError(
    'LOCKED',
    `${path} is locked by ${first.holder}${on} until ${expiresAt}${more}`,
    { path, holder: first.holder, expiresAt, lockId: first.id, reason: 'held' },
  );
}

type Acquired = { readonly row: LockRecord } | { readonly blockers: LockRecord[] };

/** One try, inside a transaction: grant the claim with the next token, or report what blocks it. */
async function tryAcquire(
  tx: MetadataTx,
  ctx: EngineContext,
  workspace: string,
  claim: LockClaim,
  ttlMs: number,
  session: string | null,
): Promise<Acquired> {
  const ws = await requireWorkspace(tx, workspace);
  const now = ctx.clock();
  const live = await tx.locks.live(ws.id, now, claim);
  // Holder identity is ignored on purpose: re-acquiring what you hold conflicts unless both are
  // shared, so one principal's concurrent workers exclude each other too.
  const blockers = live.filter((lock) => conflicts(lock, claim));
  if (blockers.length > 0) return { blockers };
  const row: LockRecord = {
    id: randomUUID(),
    workspaceId: ws.id,
    ...claim,
    token: await tx.locks.nextFence(ws.id),
    holder: ctx.actor.name,
    session,
    acquiredAt: now,
    expiresAt: now + ttlMs,
    releasedAt: null,
    releasedBy: null,
  };
  await tx.locks.insert(row);
  return { row };
}

/**
 * Takes a lock on `options.path`. Granted with a fencing token strictly greater than every token
 * handed out before in the workspace (also across restarts). With `waitSeconds`, waits in arrival
 * order behind earlier conflicting requests until the blocking locks are released or expire.
 * Without it, the request also fails while an earlier waiting request conflicts with it, so
 * waiting requests are never starved (arrival order is kept within this process).
 * Errors: INVALID_INPUT / INVALID_PATH (the root only with scope tree), NOT_FOUND (workspace),
 * LOCKED `{ path, holder, expiresAt, lockId, reason: 'held' }` naming the holder and until when.
 */
export async function acquireLock(
  ctx: EngineContext,
  waiters: LockWaiters,
  workspace: string,
  rawOptions: AcquireOptions,
): Promise<LockInfo> {
  validateWorkspaceName(workspace);
  const options = parseOptions(AcquireLockSchema, rawOptions);
  const scope = options.scope ?? 'file';
  const path = scope === 'tree' ? normalizePath(options.path) : normalizeEntryPath(options.path);
  const claim: LockClaim = { path, scope, mode: options.mode ?? 'exclusive' };
  const ttlMs = (options.ttlSeconds ?? DEFAULT_TTL_SECONDS) * 1000;
  const session = options.session ?? null;
  const ws = await requireWorkspace(ctx.store, workspace);
  const attempt = () =>
    ctx.commit((tx) => tryAcquire(tx, ctx, workspace, claim, ttlMs, session), LEASE);
  const blockersNow = async () =>
    (await ctx.store.locks.live(ws.id, ctx.clock(), claim)).filter((lock) =>
      conflicts(lock, claim),
    );
  const waitMs = (options.waitSeconds ?? 0) * 1000;
  if (waitMs === 0) {
    const queued = waiters.ahead(ws.id, claim);
    if (queued) throw heldError(path, await blockersNow(), queued);
    const outcome = await attempt();
    if ('row' in outcome) return lockInfo(outcome.row, workspace);
    throw heldError(path, outcome.blockers);
  }
  const row = await waiters.serve(ws.id, claim, ctx.clock() + waitMs, async () => {
    const outcome = await attempt();
    if ('row' in outcome) return { done: true, value: outcome.row };
    return { done: false, retryAt: Math.min(...outcome.blockers.map((b) => b.expiresAt)) };
  });
  if (row) return lockInfo(row, workspace);
  throw heldError(path, await blockersNow());
}

/** The live lock `lockId` of the workspace: NOT_FOUND if unknown, expired or released. */
async function requireLiveLock(
  q: MetadataQueries,
  workspaceId: string,
  lockId: string,
  now: number,
): Promise<LockRecord> {
  const row = typeof lockId === 'string' ? await q.locks.get(workspaceId, lockId) : undefined;
  if (!row || !isLive(row, now)) {
    throw new SatchelError(
      'NOT_FOUND',
      `lock ${String(lockId)} not found: it does not exist, has expired or was released`,
      { lockId },
    );
  }
  return row;
}

function requireHolder(ctx: EngineContext, row: LockRecord, verb: string): void {
  if (row.holder === ctx.actor.name) return;
  throw new SatchelError(
    'FORBIDDEN',
    `lock ${row.id} is held by ${row.holder}; only its holder can ${verb} it (an owner can break it)`,
    { lockId: row.id, holder: row.holder, reason: 'not_holder' },
  );
}

/**
 * Extends (or shortens) the lease of a live lock you hold to `ttlSeconds` (default 60) from now;
 * the token stays. Errors: INVALID_INPUT, NOT_FOUND (unknown, expired or released), FORBIDDEN.
 */
export async function renewLock(
  ctx: EngineContext,
  waiters: LockWaiters,
  workspace: string,
  lockId: string,
  rawOptions?: { ttlSeconds?: number },
): Promise<LockInfo> {
  validateWorkspaceName(workspace);
  const options = parseOptions(RenewOptionsSchema, rawOptions);
  const ttlMs = (options.ttlSeconds ?? DEFAULT_TTL_SECONDS) * 1000;
  const { row, shortened } = await ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const now = ctx.clock();
    const current = await requireLiveLock(tx, ws.id, lockId, now);
    requireHolder(ctx, current, 'renew');
    await tx.locks.setExpiry(current.id, now + ttlMs);
    const renewed = { ...current, expiresAt: now + ttlMs };
    return { row: renewed, shortened: renewed.expiresAt < current.expiresAt };
  }, LEASE);
  // Waiters sleep until the old expiry; a shorter lease must wake them sooner.
  if (shortened) waiters.released(row.workspaceId);
  return lockInfo(row, workspace);
}

/** Ends a live lock you hold and wakes its waiters. Errors: NOT_FOUND, FORBIDDEN. */
export async function releaseLock(
  ctx: EngineContext,
  waiters: LockWaiters,
  workspace: string,
  lockId: string,
): Promise<void> {
  validateWorkspaceName(workspace);
  const workspaceId = await ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const now = ctx.clock();
    const row = await requireLiveLock(tx, ws.id, lockId, now);
    requireHolder(ctx, row, 'release');
    await tx.locks.markReleased(row.id, now, ctx.actor.name);
    return ws.id;
  }, LEASE);
  waiters.released(workspaceId);
}

/**
 * Ends someone's live lock, recording the caller as `releasedBy`; returns the lock as it was.
 * Only authorisation (owners) is the caller's job. Errors: NOT_FOUND.
 */
export async function breakLock(
  ctx: EngineContext,
  waiters: LockWaiters,
  workspace: string,
  lockId: string,
): Promise<LockInfo> {
  validateWorkspaceName(workspace);
  const row = await ctx.commit(async (tx) => {
    const ws = await requireWorkspace(tx, workspace);
    const now = ctx.clock();
    const live = await requireLiveLock(tx, ws.id, lockId, now);
    await tx.locks.markReleased(live.id, now, ctx.actor.name);
    return live;
  });
  waiters.released(row.workspaceId);
  return lockInfo(row, workspace);
}

/**
 * Live locks of the workspace by path, then token; with `path`, only those overlapping it or
 * anything beneath it. Errors: INVALID_INPUT, INVALID_PATH, NOT_FOUND.
 */
export async function listLocks(
  ctx: EngineContext,
  workspace: string,
  options?: { path?: string },
): Promise<LockInfo[]> {
  validateWorkspaceName(workspace);
  const path = options?.path === undefined ? undefined : normalizePath(options.path);
  const ws = await requireWorkspace(ctx.store, workspace);
  const target: LockTarget | undefined = path === undefined ? undefined : { path, scope: 'tree' };
  const rows = await ctx.store.locks.live(ws.id, ctx.clock(), target);
  return rows.map((row) => lockInfo(row, workspace));
}

type StaleCause = 'unknown' | 'not_holder' | 'expired' | 'released' | 'superseded' | 'not_covering';

/** Why `token` may not write `path`, or null when it is the caller's live lock covering it. */
async function staleToken(
  tx: MetadataTx,
  holder: string,
  workspaceId: string,
  token: number,
  path: string,
  now: number,
): Promise<{ cause: StaleCause; why: string; supersededBy?: number } | null> {
  const lock = await tx.locks.byToken(workspaceId, token);
  if (!lock) return { cause: 'unknown', why: 'no lock in this workspace has that token' };
  if (lock.holder !== holder) return { cause: 'not_holder', why: `it is ${lock.holder}'s lock` };
  if (!isLive(lock, now)) {
    const by = lock.releasedBy === lock.holder ? 'released' : `broken by ${lock.releasedBy}`;
    const ended =
      lock.releasedAt === null
        ? `it expired at ${iso(lock.expiresAt)}`
        : `it was ${by} at ${iso(lock.releasedAt)}`;
    const newer = await tx.locks.newestAfter(workspaceId, token, lock);
    if (newer) {
      const supersededBy = newer.token;
      const why = `${ended} and was superseded by token ${supersededBy} (${newer.holder})`;
      return { cause: 'superseded', why, supersededBy };
    }
    return { cause: lock.releasedAt === null ? 'expired' : 'released', why: ended };
  }
  if (!covers(lock, path)) {
    return {
      cause: 'not_covering',
      why: `its ${lock.scope} lock on ${lock.path} does not cover ${path}`,
    };
  }
  return null;
}

/**
 * Called inside a mutation's transaction, before it writes. With `lockToken`, the token must be
 * a live lock of this workspace held by the caller that covers `target.path`; otherwise LOCKED
 * `{ reason: 'stale_token', path, token, cause, supersededBy? }` saying why (checked first, so a
 * holder paused past its lease always learns that its token is stale). Then the target must be
 * free of every other exclusive lock (`checkUnlocked`).
 */
export async function checkWriteLocks(
  tx: MetadataTx,
  ctx: EngineContext,
  workspaceId: string,
  target: { path: string; tree: boolean },
  lockToken: number | undefined,
  now: number,
): Promise<void> {
  if (lockToken !== undefined) {
    const stale = await staleToken(tx, ctx.actor.name, workspaceId, lockToken, target.path, now);
    if (stale) {
      const { why, ...rest } = stale;
      throw new SatchelError(
        'LOCKED',
        `lock token ${lockToken} is stale for ${target.path}: ${why}`,
        {
          path: target.path,
          token: lockToken,
          reason: 'stale_token',
          ...rest,
        },
      );
    }
  }
  await checkUnlocked(tx, workspaceId, target, lockToken, now);
}

/**
 * LOCKED `{ reason: 'held', path, holder, expiresAt, lockId }` if a live exclusive lock other than
 * the one whose token is `presented` overlaps the target (with `tree`, anything at or beneath
 * `target.path`). Whoever holds it: a lock excludes every writer that does not present its token,
 * the holder's own other workers (which share its key) included; an owner breaks a lock
 * explicitly instead. `presented` must already be known to be the caller's live lock.
 */
export async function checkUnlocked(
  tx: MetadataTx,
  workspaceId: string,
  target: { path: string; tree: boolean },
  presented: number | undefined,
  now: number,
): Promise<void> {
  // Most workspaces hold no lock most of the time: one cheap statement says so.
  if (!(await tx.anyLiveLock(workspaceId, now))) return;
  const reach: LockTarget = { path: target.path, scope: target.tree ? 'tree' : 'file' };
  const live = await tx.locks.live(workspaceId, now, reach);
  const blockers = live.filter((lock) => lock.mode === 'exclusive' && lock.token !== presented);
  if (blockers.length > 0) throw heldError(target.path, blockers);
}
