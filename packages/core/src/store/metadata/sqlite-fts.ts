/**
 * The search index's full-text part on SQLite: an FTS5 table over `passages` (external content,
 * kept in step by triggers) ranked with `bm25()` and highlighted with `snippet()`. Part of the
 * SQLite dialect (sqlite.ts); portable code reaches it only through `SqlDialectInfo.fullText`.
 */
import { type Kysely, sql } from 'kysely';
import {
  type FullTextDialect,
  type PassageMatch,
  type PassageQuery,
  type PassageRow,
  passageMatch,
} from './dialect.js';
import type { Database } from './tables.js';

/** Column weights for bm25(): a word in the file's path counts half as much as one in the text. */
const PATH_WEIGHT = 0.5;
const TEXT_WEIGHT = 1.0;

/** FTS5 string literal: double quotes around, inner double quotes doubled. Never an operator. */
function phrase(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** The best `limit` passages for an FTS5 `match` expression, best first, with snippets. */
async function ranked(
  db: Kysely<Database>,
  query: PassageQuery,
  match: string,
  limit: number,
): Promise<PassageMatch[]> {
  const scope = query.scope;
  const within =
    scope === undefined
      ? sql``
      : sql`and (p.path = ${scope.path} or (p.path >= ${scope.lo} and p.path < ${scope.hi}))`;
  // Rank first, without snippets: SQLite would otherwise build a snippet for every match
  // before sorting. Only the best `limit` get one.
  const weights = sql`${sql.lit(PATH_WEIGHT)}, ${sql.lit(TEXT_WEIGHT)}`;
  const { rows } = await sql<PassageRow>`
    with top as (
      select f.rowid as id, bm25(passages_fts, ${weights}) as rank
      from passages_fts f join passages p on p.id = f.rowid
      where f.passages_fts match ${match} and p.workspace_id = ${query.workspaceId} ${within}
      order by rank
      limit ${limit}
    )
    select p.id, p.path, p.seq, p.line_start, p.line_end, p.text, top.rank,
      snippet(passages_fts, 1, '«', '»', '…', 24) as snippet
    from top
      join passages_fts on passages_fts.rowid = top.id
      join passages p on p.id = top.id
    where passages_fts match ${match}
    order by top.rank
  `.execute(db);
  // bm25() is lower-is-better (negative); flip it so higher is better.
  return rows.map((r) => passageMatch(r, r.snippet, -Number(r.rank)));
}

export const SQLITE_FULL_TEXT: FullTextDialect = {
  schema: () => [
    `create virtual table passages_fts using fts5(path, text, content='passages', ` +
      `content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')`,
    `create trigger passages_fts_insert after insert on passages begin ` +
      `insert into passages_fts(rowid, path, text) values (new.id, new.path, new.text); end`,
    `create trigger passages_fts_delete after delete on passages begin ` +
      `insert into passages_fts(passages_fts, rowid, path, text) ` +
      `values ('delete', old.id, old.path, old.text); end`,
    `create trigger passages_fts_update after update of path, text on passages begin ` +
      `insert into passages_fts(passages_fts, rowid, path, text) ` +
      `values ('delete', old.id, old.path, old.text); ` +
      `insert into passages_fts(rowid, path, text) values (new.id, new.path, new.text); end`,
  ],

  /**
   * Passages holding every word first; only when those are fewer than `limit`, passages holding
   * any of them fill the rest. Ranking all passages that hold some common word is what makes a
   * search slow (bm25() runs for each); requiring all words usually leaves a handful.
   */
  async search(db: Kysely<Database>, query: PassageQuery): Promise<PassageMatch[]> {
    if (query.terms.length === 0) return [];
    const terms = query.terms.map(phrase);
    const all = await ranked(db, query, terms.join(' AND '), query.limit);
    if (all.length >= query.limit || terms.length === 1) return all;
    const seen = new Set(all.map((m) => m.id));
    const any = await ranked(db, query, terms.join(' OR '), query.limit);
    return [...all, ...any.filter((m) => !seen.has(m.id))].slice(0, query.limit);
  },
};
