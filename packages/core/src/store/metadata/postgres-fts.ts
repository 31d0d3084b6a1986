/**
 * The search index's full-text part on PostgreSQL: a stored `tsvector` column over each
 * passage's path (weight B) and text (weight A) with the `simple` configuration (no stemming,
 * no stop words: code identifiers stay as written), a GIN index on it, `ts_rank_cd` for the
 * score and `ts_headline` for the snippet. Part of the PostgreSQL dialect (postgres.ts); the
 * ranking differences from SQLite's BM25 are in docs/search.md.
 */
import { type Kysely, type RawBuilder, sql } from 'kysely';
import {
  type FullTextDialect,
  type PassageMatch,
  type PassageQuery,
  type PassageRow,
  passageMatch,
} from './dialect.js';
import type { Database } from './tables.js';

/**
 * ASCII punctuation and control characters, which SQLite's unicode61 tokenizer treats as
 * separators. PostgreSQL's parser would keep `parse.ts`, `/docs/a.md` or `a@b.io` as one token
 * (host, file, email) and a search for `parse` would miss it; replacing them with spaces first
 * splits words where FTS5 does. A character class of code points, so no locale changes it.
 */
const SEPARATORS = '[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+';
/** In a query term, anything but letters and digits separates words (`foo_bar` is `foo bar`). */
const SEPARATORS_JS = /[^\p{L}\p{N}]+/gu;

/** Weights for {D, C, B, A}: a word of the path (B) counts half as much as one of the text (A). */
const WEIGHTS = '{0.1, 0.2, 0.5, 1.0}';
/** ts_rank_cd normalisation 1: divide by 1 + log(length), so long passages do not win by size. */
const NORMALISATION = 1;

/** Each term as a phrase query (a term with separators, `foo_bar`, is the phrase `foo bar`). */
function termQueries(terms: readonly string[]): RawBuilder<unknown>[] {
  return terms
    .map((term) => term.replace(SEPARATORS_JS, ' ').trim())
    .filter((words) => words !== '')
    .map((words) => sql`phraseto_tsquery('simple', ${words})`);
}

/** The best `limit` passages for `match` (a tsquery), best first, with snippets. */
async function ranked(
  db: Kysely<Database>,
  query: PassageQuery,
  match: RawBuilder<unknown>,
  limit: number,
): Promise<PassageMatch[]> {
  const scope = query.scope;
  const within =
    scope === undefined
      ? sql``
      : sql`and (p.path = ${scope.path} or (p.path >= ${scope.lo} and p.path < ${scope.hi}))`;
  // Rank every match first, then build headlines for the best `limit` only: ts_headline
  // re-parses the text and costs far more than the rank.
  const { rows } = await sql<PassageRow>`
    with q as (select ${match} as query),
    top as (
      select p.id, ts_rank_cd(${WEIGHTS}::float4[], p.fts, q.query, ${sql.lit(NORMALISATION)}) as rank
      from passages p, q
      where p.fts @@ q.query and p.workspace_id = ${query.workspaceId} ${within}
      order by rank desc, p.id
      limit ${limit}
    )
    select p.id, p.path, p.seq, p.line_start, p.line_end, p.text, top.rank,
      ts_headline('simple', p.text, q.query,
        'StartSel=«, StopSel=», MaxWords=24, MinWords=12, ShortWord=0, MaxFragments=1') as snippet
    from top join passages p on p.id = top.id, q
    order by top.rank desc, p.id
  `.execute(db);
  return rows.map((r) => passageMatch(r, elided(r.text, r.snippet), Number(r.rank)));
}

/** `…` where the snippet cuts the passage, as FTS5's snippet() marks it. */
function elided(text: string, snippet: string): string {
  const plain = snippet.replaceAll('«', '').replaceAll('»', '');
  const at = text.indexOf(plain);
  if (at < 0) return snippet;
  return `${at > 0 ? '…' : ''}${snippet}${at + plain.length < text.length ? '…' : ''}`;
}

export const POSTGRES_FULL_TEXT: FullTextDialect = {
  schema: () => [
    `alter table passages add column fts tsvector generated always as (` +
      `setweight(to_tsvector('simple', regexp_replace(path, '${SEPARATORS}', ' ', 'g')), 'B') || ` +
      `setweight(to_tsvector('simple', regexp_replace(text, '${SEPARATORS}', ' ', 'g')), 'A')` +
      `) stored`,
    `create index passages_fts on passages using gin (fts)`,
  ],

  /**
   * Passages holding every word first; only when those are fewer than `limit`, passages holding
   * any of them fill the rest (the same order of work as the SQLite dialect).
   */
  async search(db: Kysely<Database>, query: PassageQuery): Promise<PassageMatch[]> {
    const terms = termQueries(query.terms);
    if (terms.length === 0) return [];
    const all = await ranked(db, query, sql.join(terms, sql` && `), query.limit);
    if (all.length >= query.limit || terms.length === 1) return all;
    const seen = new Set(all.map((m) => m.id));
    const any = await ranked(db, query, sql.join(terms, sql` || `), query.limit);
    return [...all, ...any.filter((m) => !seen.has(m.id))].slice(0, query.limit);
  },
};
