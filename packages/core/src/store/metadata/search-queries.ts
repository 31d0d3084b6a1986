/**
 * Queries of the search index (search/indexer.ts): passages, their vectors and the
 * per-workspace index state. Portable Kysely; the full-text match itself is the dialect's
 * (`SqlDialectInfo.fullText`).
 */

import { descendantRange } from '@satchel/client/paths.js';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { PassageMatch, PassageQuery, SqlDialectInfo } from './dialect.js';
import { prepared } from './prepared.js';
import type { NewPassage, PassageRecord, SearchStateRecord } from './records.js';
import type { Database, PassagesTable, SearchStateTable } from './tables.js';

function toState(row: Selectable<SearchStateTable>): SearchStateRecord {
  return {
    workspaceId: row.workspace_id,
    indexedSeq: Number(row.indexed_seq),
    rebuildSeq: row.rebuild_seq === null ? null : Number(row.rebuild_seq),
    rebuildAfter: row.rebuild_after,
    vectorError: row.vector_error,
  };
}

function toPassage(row: Selectable<PassagesTable>): PassageRecord {
  return {
    id: Number(row.id),
    workspaceId: row.workspace_id,
    path: row.path,
    seq: Number(row.seq),
    lineStart: Number(row.line_start),
    lineEnd: Number(row.line_end),
    text: row.text,
    vector: row.vector,
  };
}

// The statements of every index step, compiled once (prepared.ts).
const STATE = prepared((db: Kysely<Database>, workspaceId: string) =>
  db.selectFrom('search_state').selectAll().where('workspace_id', '=', workspaceId),
);
const STATE_FOR_UPDATE = prepared((db: Kysely<Database>, workspaceId: string) =>
  db.selectFrom('search_state').selectAll().where('workspace_id', '=', workspaceId).forUpdate(),
);
const PUT_STATE = prepared(
  (
    db: Kysely<Database>,
    workspaceId: string,
    indexedSeq: number,
    rebuildSeq: number | null,
    rebuildAfter: string | null,
    vectorError: string | null,
  ) =>
    db
      .insertInto('search_state')
      .values({
        workspace_id: workspaceId,
        indexed_seq: indexedSeq,
        rebuild_seq: rebuildSeq,
        rebuild_after: rebuildAfter,
        vector_error: vectorError,
      })
      .onConflict((oc) =>
        oc.column('workspace_id').doUpdateSet((eb) => ({
          indexed_seq: eb.ref('excluded.indexed_seq'),
          rebuild_seq: eb.ref('excluded.rebuild_seq'),
          rebuild_after: eb.ref('excluded.rebuild_after'),
          vector_error: eb.ref('excluded.vector_error'),
        })),
      ),
);
const DELETE_PASSAGES_OF = prepared((db: Kysely<Database>, workspaceId: string, path: string) =>
  db.deleteFrom('passages').where('workspace_id', '=', workspaceId).where('path', '=', path),
);
const INDEXED_SEQ_OF = prepared((db: Kysely<Database>, workspaceId: string, path: string) =>
  db
    .selectFrom('passages')
    .select('seq')
    .where('workspace_id', '=', workspaceId)
    .where('path', '=', path)
    // A literal: SQLite runs `LIMIT ?` here at three times the cost of `LIMIT 1`.
    .limit(sql.lit(1)),
);

/** The search area of the metadata store (`store.search`, `tx.search`). */
export class SearchQueries {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialectInfo,
  ) {}

  /** The best passages for `query`, best first: the dialect's full-text ranking (BM25). */
  match(query: PassageQuery): Promise<PassageMatch[]> {
    return this.dialect.fullText.search(this.db, query);
  }

  /**
   * The index state of a workspace. With `lock` (inside a transaction), no other transaction can
   * change it until this one ends: an index step checks the state it started from, then commits.
   */
  async state(
    workspaceId: string,
    options: { lock?: boolean } = {},
  ): Promise<SearchStateRecord | undefined> {
    const query = options.lock === true && this.dialect.rowLocks ? STATE_FOR_UPDATE : STATE;
    const [row] = await query(this.db, this.dialect, workspaceId);
    return row && toState(row);
  }

  async putState(state: SearchStateRecord): Promise<void> {
    await PUT_STATE(
      this.db,
      this.dialect,
      state.workspaceId,
      state.indexedSeq,
      state.rebuildSeq,
      state.rebuildAfter,
      state.vectorError,
    );
  }

  async setVectorError(workspaceId: string, error: string | null): Promise<void> {
    await this.db
      .updateTable('search_state')
      .set({ vector_error: error })
      .where('workspace_id', '=', workspaceId)
      .execute();
  }

  /** Drops the whole index of a workspace: passages and state. */
  async drop(workspaceId: string): Promise<void> {
    await this.db.deleteFrom('passages').where('workspace_id', '=', workspaceId).execute();
    await this.db.deleteFrom('search_state').where('workspace_id', '=', workspaceId).execute();
  }

  async deletePassagesOf(workspaceId: string, path: string): Promise<void> {
    await DELETE_PASSAGES_OF(this.db, this.dialect, workspaceId, path);
  }

  async insertPassages(passages: readonly NewPassage[]): Promise<void> {
    const rows = passages.map((p) => ({
      workspace_id: p.workspaceId,
      path: p.path,
      seq: p.seq,
      line_start: p.lineStart,
      line_end: p.lineEnd,
      text: p.text,
    }));
    // Bounded statements: SQLite limits the number of bound parameters per statement.
    for (let i = 0; i < rows.length; i += 100) {
      await this.db
        .insertInto('passages')
        .values(rows.slice(i, i + 100))
        .execute();
    }
  }

  /** The seq of the passages indexed for `path` (undefined when none). */
  async indexedSeqOf(workspaceId: string, path: string): Promise<number | undefined> {
    const [row] = await INDEXED_SEQ_OF(this.db, this.dialect, workspaceId, path);
    return row === undefined ? undefined : Number(row.seq);
  }

  async countPassages(
    workspaceId: string,
  ): Promise<{ passages: number; files: number; pending: number }> {
    const row = await this.db
      .selectFrom('passages')
      .select((eb) => [
        eb.fn.countAll<number>().as('passages'),
        eb.fn.count<number>('path').distinct().as('files'),
        eb.fn.count<number>('id').filterWhere('vector', 'is', null).as('pending'),
      ])
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    return {
      passages: Number(row.passages),
      files: Number(row.files),
      pending: Number(row.pending),
    };
  }

  /** Passages still without a vector, oldest first. */
  async withoutVector(
    workspaceId: string,
    limit: number,
  ): Promise<Pick<PassageRecord, 'id' | 'path' | 'text'>[]> {
    const rows = await this.db
      .selectFrom('passages')
      .select(['id', 'path', 'text'])
      .where('workspace_id', '=', workspaceId)
      .where('vector', 'is', null)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ id: Number(row.id), path: row.path, text: row.text }));
  }

  async setVector(id: number, vector: Uint8Array): Promise<void> {
    await this.db.updateTable('passages').set({ vector }).where('id', '=', id).execute();
  }

  /** Passages with vectors of a workspace, at or beneath `dir` when given. */
  async vectors(
    workspaceId: string,
    dir: string | undefined,
  ): Promise<{ id: number; vector: Uint8Array }[]> {
    let q = this.db
      .selectFrom('passages')
      .select(['id', 'vector'])
      .where('workspace_id', '=', workspaceId)
      .where('vector', 'is not', null);
    if (dir !== undefined && dir !== '/') {
      const { lo, hi } = descendantRange(dir);
      q = q.where((eb) =>
        eb.or([eb('path', '=', dir), eb.and([eb('path', '>=', lo), eb('path', '<', hi)])]),
      );
    }
    const rows = await q.execute();
    return rows.flatMap((row) => (row.vector ? [{ id: Number(row.id), vector: row.vector }] : []));
  }

  async passagesByIds(ids: readonly number[]): Promise<PassageRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('passages').selectAll().where('id', 'in', ids).execute();
    return rows.map(toPassage);
  }
}
