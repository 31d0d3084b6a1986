/** Audit-log queries, written once in Kysely for every dialect; the chain logic lives in audit/. */
import type { Selectable } from 'kysely';
import type { MetadataQueries, MetadataTx } from './metadata-store.js';
import type { AuditTable } from './tables.js';

export type AuditRow = Selectable<AuditTable>;

/**
 * Numeric columns as numbers on every dialect (PostgreSQL returns bigint as a string). A value
 * that is not a number at all (a tampered row) becomes NaN, which the verifier reports.
 */
function numeric(row: AuditRow): AuditRow {
  return {
    ...row,
    idx: Number(row.idx),
    time: Number(row.time),
    seq: row.seq === null ? null : Number(row.seq),
  };
}

/** The newest entry's index and hash, or undefined for an empty log. */
export async function auditHead(
  q: MetadataQueries,
): Promise<{ idx: number; hash: string } | undefined> {
  const row = await q.kysely
    .selectFrom('audit')
    .select(['idx', 'hash'])
    .orderBy('idx', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && { idx: Number(row.idx), hash: row.hash };
}

/** The entry at `idx`, if there is one. */
export async function auditEntryAt(q: MetadataQueries, idx: number): Promise<AuditRow | undefined> {
  const row = await q.kysely
    .selectFrom('audit')
    .selectAll()
    .where('idx', '=', idx)
    .executeTakeFirst();
  return row && numeric(row);
}

/** Largest multi-row INSERT; 12 columns × 256 rows stays far below every dialect's bind limit. */
const MAX_CHUNK = 256;

/**
 * Inserts `rows` in order. Chunks are powers of two, so at most nine distinct statement texts
 * exist and the SQLite statement cache keeps them prepared whatever the batch sizes are.
 */
export async function insertAuditRows(tx: MetadataTx, rows: readonly AuditRow[]): Promise<void> {
  for (let start = 0; start < rows.length; ) {
    let size = MAX_CHUNK;
    while (size > rows.length - start) size /= 2;
    await tx.kysely
      .insertInto('audit')
      .values(rows.slice(start, start + size))
      .execute();
    start += size;
  }
}

/**
 * Up to `limit` entries in idx order, from the start or with idx above `after`; all of them or
 * one workspace's.
 */
export async function auditPage(
  q: MetadataQueries,
  options: { after?: number | undefined; limit: number; workspace?: string | undefined },
): Promise<AuditRow[]> {
  let query = q.kysely.selectFrom('audit').selectAll().orderBy('idx').limit(options.limit);
  if (options.after !== undefined) query = query.where('idx', '>', options.after);
  if (options.workspace !== undefined) query = query.where('workspace', '=', options.workspace);
  return (await query.execute()).map(numeric);
}

/**
 * Every entry in idx order, fetched `pageSize` at a time so memory stays bounded however long
 * the log is. Entries appended while iterating are included (the log only grows at its end).
 */
export async function* iterateAudit(q: MetadataQueries, pageSize = 1000): AsyncGenerator<AuditRow> {
  // No lower bound on the first page: a forged row with idx 0 or below must be seen too.
  let after: number | undefined;
  for (;;) {
    const page = await auditPage(q, { after, limit: pageSize });
    yield* page;
    const last = page.at(-1);
    if (!last || page.length < pageSize || Number.isNaN(last.idx)) return;
    after = last.idx;
  }
}

/** Number of entries (of one workspace, if given). */
export async function countAudit(q: MetadataQueries, workspace?: string): Promise<number> {
  let query = q.kysely.selectFrom('audit').select((eb) => eb.fn.countAll<number>().as('count'));
  if (workspace !== undefined) query = query.where('workspace', '=', workspace);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.count);
}
