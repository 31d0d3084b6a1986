/** Audit-log queries, written once in Kysely for every dialect; the chain logic lives in audit/. */
import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { SqlDialectInfo } from './dialect.js';
import { AUDIT_WORKSPACE_ID_FROM } from './migrations.js';
import { prepared, preparedInsert } from './prepared.js';
import type { AuditRecord } from './records.js';
import type { AuditTable, Database } from './tables.js';

/**
 * Which entries a page holds: all of them; one workspace's, by the id of the workspace as it
 * exists now (`name` and `createdAt` find its entries written before ids were recorded); or
 * the server-level log, the entries with no workspace id.
 */
export type AuditScope =
  | { readonly kind: 'all' }
  | {
      readonly kind: 'workspace';
      readonly id: string;
      readonly name: string;
      readonly createdAt: number;
    }
  | { readonly kind: 'server' };

/**
 * Numeric columns as numbers on every dialect (PostgreSQL returns bigint as a string). A value
 * that is not a number at all (a tampered row) becomes NaN, which the verifier reports.
 */
function toEntry(row: Selectable<AuditTable>): AuditRecord {
  return {
    idx: Number(row.idx),
    time: Number(row.time),
    actor: row.actor,
    session: row.session,
    action: row.action,
    workspace: row.workspace,
    workspaceId: row.workspace_id,
    path: row.path,
    seq: row.seq === null ? null : Number(row.seq),
    outcome: row.outcome,
    code: row.code,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

/** Largest multi-row INSERT; 13 columns × 256 rows stays far below every dialect's bind limit. */
const MAX_CHUNK = 256;
/** Batches up to this size are inserted by one statement of exactly their size. */
const EXACT_CHUNK = 32;

const HEAD = prepared((db: Kysely<Database>) =>
  db.selectFrom('audit').select(['idx', 'hash']).orderBy('idx', 'desc').limit(sql.lit(1)),
);

const INSERT = preparedInsert<'audit', Insertable<AuditTable>>(
  'audit',
  [
    'idx',
    'time',
    'actor',
    'session',
    'action',
    'workspace',
    'workspace_id',
    'path',
    'seq',
    'outcome',
    'code',
    'prev_hash',
    'hash',
  ],
  undefined,
  { deferrable: true },
);

/** The audit area of the metadata store (`store.audit`, `tx.audit`). */
export class AuditQueries {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialectInfo,
  ) {}

  /** The newest entry's index and hash, or undefined for an empty log. */
  async head(): Promise<{ idx: number; hash: string } | undefined> {
    const [row] = await HEAD(this.db, this.dialect);
    return row && { idx: Number(row.idx), hash: row.hash };
  }

  /** The entry at `idx`, if there is one. */
  async entryAt(idx: number): Promise<AuditRecord | undefined> {
    const row = await this.db
      .selectFrom('audit')
      .selectAll()
      .where('idx', '=', idx)
      .executeTakeFirst();
    return row && toEntry(row);
  }

  /**
   * Inserts `entries` in order: up to EXACT_CHUNK at once in one statement (a typical batch of
   * reads, one round trip on PostgreSQL), more in chunks that are powers of two — so at most
   * ~40 distinct statement texts exist, and the SQLite statement cache keeps them prepared.
   */
  async insert(entries: readonly AuditRecord[]): Promise<void> {
    for (let start = 0; start < entries.length; ) {
      let size = MAX_CHUNK;
      while (size > entries.length - start) size /= 2;
      if (entries.length - start <= EXACT_CHUNK) size = entries.length - start;
      const rows = entries.slice(start, start + size).map(({ prevHash, workspaceId, ...rest }) => ({
        ...rest,
        workspace_id: workspaceId,
        prev_hash: prevHash,
      }));
      await INSERT(this.db, this.dialect, rows);
      start += size;
    }
  }

  /**
   * The first index written with a workspace id (migration 0006): entries below it have none,
   * whichever workspace they reached.
   */
  async idsFrom(): Promise<number> {
    const row = await this.db
      .selectFrom('meta')
      .select('value')
      .where('key', '=', AUDIT_WORKSPACE_ID_FROM)
      .executeTakeFirst();
    return row ? Number(row.value) : 1;
  }

  /**
   * Up to `limit` entries in idx order, from the start or with idx above `after`, of `scope`
   * (default all). A workspace's are those with its id, and of the entries written before ids
   * were (idx below `idsFrom()`), those naming it from its creation on: a deleted namesake's
   * are older than that, so a re-created workspace never shows them.
   */
  async page(options: {
    after?: number | undefined;
    limit: number;
    scope?: AuditScope | undefined;
  }): Promise<AuditRecord[]> {
    const scope = options.scope ?? { kind: 'all' };
    let query = this.db.selectFrom('audit').selectAll().orderBy('idx').limit(options.limit);
    if (options.after !== undefined) query = query.where('idx', '>', options.after);
    if (scope.kind === 'server') query = query.where('workspace_id', 'is', null);
    if (scope.kind === 'workspace') {
      const idsFrom = await this.idsFrom();
      query = query.where((eb) =>
        eb.or([
          eb('workspace_id', '=', scope.id),
          eb.and([
            eb('idx', '<', idsFrom),
            eb('workspace_id', 'is', null),
            eb('workspace', '=', scope.name),
            eb('time', '>=', scope.createdAt),
          ]),
        ]),
      );
    }
    return (await query.execute()).map(toEntry);
  }

  /**
   * Every entry in idx order, fetched `pageSize` at a time so memory stays bounded however long
   * the log is. Entries appended while iterating are included (the log only grows at its end).
   */
  async *entries(pageSize = 1000): AsyncGenerator<AuditRecord> {
    // No lower bound on the first page: a forged row with idx 0 or below must be seen too.
    let after: number | undefined;
    for (;;) {
      const page = await this.page({ after, limit: pageSize });
      yield* page;
      const last = page.at(-1);
      if (!last || page.length < pageSize || Number.isNaN(last.idx)) return;
      after = last.idx;
    }
  }

  /** Number of entries (with no workspace id, if `server`: the server-level log). */
  async count(options: { server?: boolean } = {}): Promise<number> {
    let query = this.db.selectFrom('audit').select((eb) => eb.fn.countAll<number>().as('count'));
    if (options.server) query = query.where('workspace_id', 'is', null);
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.count);
  }
}
