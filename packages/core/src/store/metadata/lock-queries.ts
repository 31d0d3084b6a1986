/** Every SQL statement about locks, in portable Kysely (SQLite now, PostgreSQL next). */

import { ancestorsOf, descendantRange } from '@satchel/client/paths.js';
import type { Expression, ExpressionBuilder, Kysely, Selectable, SqlBool } from 'kysely';
import { sql } from 'kysely';
import type { SqlDialectInfo } from './dialect.js';
import { prepared } from './prepared.js';
import type { LockRecord } from './records.js';
import type { Database, LocksTable } from './tables.js';

type LockRow = Selectable<LocksTable>;

function toLock(row: LockRow): LockRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    path: row.path,
    scope: row.scope,
    mode: row.mode,
    token: Number(row.token),
    holder: row.holder,
    session: row.session,
    acquiredAt: Number(row.acquired_at),
    expiresAt: Number(row.expires_at),
    releasedAt: row.released_at === null ? null : Number(row.released_at),
    releasedBy: row.released_by,
  };
}

/** A canonical path and how far a lock on it reaches (mirrors `LockTarget` in locks/lock-rules). */
export interface LockQueryTarget {
  readonly path: string;
  readonly scope: 'file' | 'tree';
}

/**
 * Locks whose target overlaps `target`: a lock on the same path, a tree lock on an ancestor, and,
 * when `target` is a tree, any lock beneath it. Written as equality, IN and range predicates so
 * each dialect can use its indexes; the range relies on byte-wise path ordering (`descendantRange`).
 */
function overlapping(
  eb: ExpressionBuilder<Database, 'locks'>,
  target: LockQueryTarget,
): Expression<SqlBool> {
  const ancestors = ['/', ...ancestorsOf(target.path)];
  const terms = [
    eb('path', '=', target.path),
    eb.and([eb('scope', '=', 'tree'), eb('path', 'in', ancestors)]),
  ];
  if (target.scope === 'tree') {
    const { lo, hi } = descendantRange(target.path);
    terms.push(eb.and([eb('path', '>=', lo), eb('path', '<', hi)]));
  }
  return eb.or(terms);
}

/** Tokens of one process lifetime sit above every token of the lifetimes before it. */
export const FENCE_EPOCH_SPAN = 2 ** 24;
const LOCK_EPOCH = 'lock_epoch';

/**
 * Starts a new lock epoch, durably: called once when the engine opens. Lease changes commit
 * without fsync, so after a power loss the `fence` counters may have rolled back; starting the
 * next lifetime's tokens at `epoch * FENCE_EPOCH_SPAN` keeps them above anything handed out.
 *
 * Seam, the lock epoch / fencing floor (with `MetadataTx.fenceFloor` for deleted workspaces).
 * Contract a multi-node implementation must keep: fencing tokens of a workspace strictly
 * increase across every node, restart and power loss. Each node starts its own epoch here, in a
 * durable transaction, before it grants a lock; nodes share one counter, so a later epoch is
 * always higher, and a lease commit (relaxed durability) never hands out a token below the
 * floor of the epoch that granted it.
 */
export async function startLockEpoch(db: Kysely<Database>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('meta')
      .select('value')
      .where('key', '=', LOCK_EPOCH)
      .executeTakeFirst();
    const epoch = Number(row?.value ?? 0) + 1;
    await trx
      .insertInto('meta')
      .values({ key: LOCK_EPOCH, value: String(epoch) })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(epoch) }))
      .execute();
    return epoch;
  });
}

/** Whether the workspace has any live lock at all: when not, a write needs no lock check. */
const ANY_LIVE_LOCK = prepared((db: Kysely<Database>, workspaceId: string, now: number) =>
  db
    .selectFrom('locks')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('released_at', 'is', null)
    .where('expires_at', '>', now)
    .limit(sql.lit(1)),
);

/** The lock area of the metadata store (`store.locks`, `tx.locks`). */
export class LockQueries {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialectInfo,
  ) {}

  /** Whether the workspace has any live lock (one compiled statement: every write asks). */
  async anyLive(workspaceId: string, now: number): Promise<boolean> {
    return (await ANY_LIVE_LOCK(this.db, this.dialect, workspaceId, now)).length > 0;
  }

  /**
   * Hands out the workspace's next fencing token: one more than its last, and at least the base
   * of the current lock epoch, so tokens strictly increase also across restarts and power
   * losses; a token from a transaction that rolls back is never seen.
   */
  async nextFence(workspaceId: string): Promise<number> {
    const row = await this.db
      .updateTable('workspaces')
      .set((eb) => {
        // The epoch's floor, read in the same statement: a lock grant is on the hot path.
        // bigint, not integer: PostgreSQL's integer is 32 bits and epoch × 2^24 outgrows it.
        const floor = eb
          .selectFrom('meta')
          .select(sql<number>`cast(value as bigint) * ${FENCE_EPOCH_SPAN}`.as('floor'))
          .where('key', '=', LOCK_EPOCH);
        return {
          fence: eb
            .case()
            .when(eb('fence', '<', eb.fn.coalesce(floor, sql<number>`0`)))
            .then(eb(eb.fn.coalesce(floor, sql<number>`0`), '+', 1))
            .else(eb('fence', '+', 1))
            .end(),
        };
      })
      .where('id', '=', workspaceId)
      .returning('fence')
      .executeTakeFirstOrThrow();
    return Number(row.fence);
  }

  async insert(lock: LockRecord): Promise<void> {
    await this.db
      .insertInto('locks')
      .values({
        id: lock.id,
        workspace_id: lock.workspaceId,
        path: lock.path,
        scope: lock.scope,
        mode: lock.mode,
        token: lock.token,
        holder: lock.holder,
        session: lock.session,
        acquired_at: lock.acquiredAt,
        expires_at: lock.expiresAt,
        released_at: lock.releasedAt,
        released_by: lock.releasedBy,
      })
      .execute();
  }

  /**
   * Live locks of a workspace (not released, `expiresAt` after `now`), those overlapping
   * `target` when given, ordered by path then token.
   */
  async live(workspaceId: string, now: number, target?: LockQueryTarget): Promise<LockRecord[]> {
    let q = this.db
      .selectFrom('locks')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('released_at', 'is', null)
      .where('expires_at', '>', now);
    if (target) q = q.where((eb) => overlapping(eb, target));
    return (await q.orderBy('path').orderBy('token').execute()).map(toLock);
  }

  /** A lock of the workspace by id, in whatever state (live, expired or released). */
  async get(workspaceId: string, lockId: string): Promise<LockRecord | undefined> {
    const row = await this.db
      .selectFrom('locks')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', lockId)
      .executeTakeFirst();
    return row && toLock(row);
  }

  /** The lock that was given `token`, in whatever state: to explain why a token is stale. */
  async byToken(workspaceId: string, token: number): Promise<LockRecord | undefined> {
    const row = await this.db
      .selectFrom('locks')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('token', '=', token)
      .executeTakeFirst();
    return row && toLock(row);
  }

  /** The newest lock granted after `token` on a target overlapping `target` (live or not). */
  async newestAfter(
    workspaceId: string,
    token: number,
    target: LockQueryTarget,
  ): Promise<LockRecord | undefined> {
    const row = await this.db
      .selectFrom('locks')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('token', '>', token)
      .where((eb) => overlapping(eb, target))
      .orderBy('token', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && toLock(row);
  }

  /** Moves the end of a lease (renew). */
  async setExpiry(lockId: string, expiresAt: number): Promise<void> {
    await this.db
      .updateTable('locks')
      .set({ expires_at: expiresAt })
      .where('id', '=', lockId)
      .execute();
  }

  /** Ends a lease early (release, break); the row stays, so a stale token can be explained. */
  async markReleased(lockId: string, releasedAt: number, releasedBy: string): Promise<void> {
    await this.db
      .updateTable('locks')
      .set({ released_at: releasedAt, released_by: releasedBy })
      .where('id', '=', lockId)
      .execute();
  }
}
