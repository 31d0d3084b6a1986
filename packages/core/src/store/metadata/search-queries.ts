/**
 * Queries of the search index (search/indexer.ts): passages, their vectors, the per-workspace
 * index state, and the workspace's settings. Portable Kysely; the full-text match itself is the
 * dialect's (`SqlDialectInfo.fullText`).
 */

import { descendantRange } from '@satchel/client/paths.js';
import type { Kysely, Selectable } from 'kysely';
import type { Database, PassagesTable, SearchStateTable } from './tables.js';

type Db = Kysely<Database>;

export type SearchStateRow = Selectable<SearchStateTable>;
export type PassageRow = Selectable<PassagesTable>;

export interface NewPassage {
  readonly workspace_id: string;
  readonly path: string;
  readonly seq: number;
  readonly line_start: number;
  readonly line_end: number;
  readonly text: string;
}

export function getSearchState(db: Db, workspaceId: string): Promise<SearchStateRow | undefined> {
  return db
    .selectFrom('search_state')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

export async function putSearchState(db: Db, row: SearchStateRow): Promise<void> {
  const { workspace_id: _id, ...rest } = row;
  await db
    .insertInto('search_state')
    .values(row)
    .onConflict((oc) => oc.column('workspace_id').doUpdateSet(rest))
    .execute();
}

export async function setVectorError(
  db: Db,
  workspaceId: string,
  error: string | null,
): Promise<void> {
  await db
    .updateTable('search_state')
    .set({ vector_error: error })
    .where('workspace_id', '=', workspaceId)
    .execute();
}

/** Drops the whole index of a workspace: passages and state. */
export async function dropSearchIndex(db: Db, workspaceId: string): Promise<void> {
  await db.deleteFrom('passages').where('workspace_id', '=', workspaceId).execute();
  await db.deleteFrom('search_state').where('workspace_id', '=', workspaceId).execute();
}

export async function deletePassagesOf(db: Db, workspaceId: string, path: string): Promise<void> {
  await db
    .deleteFrom('passages')
    .where('workspace_id', '=', workspaceId)
    .where('path', '=', path)
    .execute();
}

export async function insertPassages(db: Db, rows: readonly NewPassage[]): Promise<void> {
  // Bounded statements: SQLite limits the number of bound parameters per statement.
  for (let i = 0; i < rows.length; i += 100) {
    await db
      .insertInto('passages')
      .values(rows.slice(i, i + 100))
      .execute();
  }
}

/** The seq of the passages indexed for `path` (undefined when none). */
export async function indexedSeqOf(
  db: Db,
  workspaceId: string,
  path: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('passages')
    .select('seq')
    .where('workspace_id', '=', workspaceId)
    .where('path', '=', path)
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.seq);
}

export async function countPassages(
  db: Db,
  workspaceId: string,
): Promise<{ passages: number; files: number; pending: number }> {
  const row = await db
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
export function passagesWithoutVector(
  db: Db,
  workspaceId: string,
  limit: number,
): Promise<Pick<PassageRow, 'id' | 'path' | 'text'>[]> {
  return db
    .selectFrom('passages')
    .select(['id', 'path', 'text'])
    .where('workspace_id', '=', workspaceId)
    .where('vector', 'is', null)
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function setVector(db: Db, id: number, vector: Uint8Array): Promise<void> {
  await db.updateTable('passages').set({ vector }).where('id', '=', id).execute();
}

/** Passages with vectors of a workspace, at or beneath `dir` when given. */
export function passageVectors(
  db: Db,
  workspaceId: string,
  dir: string | undefined,
): Promise<Pick<PassageRow, 'id' | 'vector'>[]> {
  let q = db
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
  return q.execute();
}

export function passagesByIds(db: Db, ids: readonly number[]): Promise<PassageRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('passages').selectAll().where('id', 'in', ids).execute();
}

export async function setWorkspaceSettings(
  db: Db,
  workspaceId: string,
  settings: string,
): Promise<void> {
  await db.updateTable('workspaces').set({ settings }).where('id', '=', workspaceId).execute();
}
