/**
 * `search`: BM25-ranked passages of a workspace's text files, fused with a vector ranking
 * (reciprocal rank fusion) when an embedding provider is configured, each with a citation
 * pinned to the version it was cut from.
 */

import { SatchelError } from '@satchel/client/errors.js';
import { parseOptions } from '@satchel/client/options.js';
import { descendantRange, normalizePath, validateWorkspaceName } from '@satchel/client/paths.js';
import {
  type SearchHit,
  type SearchOptions,
  SearchOptionsSchema,
  type SearchResult,
} from '@satchel/client/schemas/index.js';
import { resolveAt } from '../kernel/at.js';
import { type EngineContext, requireWorkspace } from '../kernel/context.js';
import { workspaceSettings } from '../kernel/workspace-settings.js';
import type { PassageMatch } from '../store/metadata/dialect.js';
import type { WorkspaceRecord } from '../store/metadata/metadata-store.js';
import type { PassageRecord } from '../store/metadata/records.js';
import { bytesVector, cosine, vectorBytes } from './embeddings.js';
import type { SearchIndex } from './indexer.js';
import { reciprocalRankFusion } from './rank.js';
import { searchAt } from './search-at.js';

/** How long a search waits for the index to catch up with the workspace before it answers. */
export const CATCH_UP_MS = 2000;
/** Longest query accepted. */
export const MAX_QUERY_LENGTH = 2000;
/** Candidates each ranking contributes to a hybrid fusion. */
const CANDIDATES = 50;
const MAX_TERMS = 32;

/** The words of a query, lower-cased and deduplicated; FTS syntax in it is just text. */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  return [...new Set(words)].slice(0, MAX_TERMS);
}

/** INVALID_INPUT unless `query` has something to search for. */
function checkQuery(query: unknown, field: string): string[] {
  if (typeof query !== 'string' || query.trim() === '') {
    throw new SatchelError('INVALID_INPUT', `${field} must not be empty`, { field });
  }
  if (query.length > MAX_QUERY_LENGTH) {
    throw new SatchelError(
      'INVALID_INPUT',
      `${field} is too long (${query.length} characters, at most ${MAX_QUERY_LENGTH})`,
      { field },
    );
  }
  const terms = queryTerms(query);
  if (terms.length === 0) {
    throw new SatchelError('INVALID_INPUT', `${field} has no words to search for`, { field });
  }
  return terms;
}

/** INVALID_INPUT when the workspace's indexing is off (grep still works). */
export function requireIndexing(ws: WorkspaceRecord): void {
  if (workspaceSettings(ws.settings).indexing === 'off') {
    throw new SatchelError(
      'INVALID_INPUT',
      `search indexing is off in workspace ${ws.name}; an owner can turn it on ` +
        `(satchel ws set ${ws.name} --indexing on), or use grep`,
      { workspace: ws.name, reason: 'indexing_off' },
    );
  }
}

function hitOf(row: PassageMatch | PassageRecord, snippet: string, score: number): SearchHit {
  return {
    citation: { path: row.path, seq: row.seq, lineStart: row.lineStart, lineEnd: row.lineEnd },
    snippet,
    text: row.text,
    score,
  };
}

function plainSnippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

export async function searchPassages(
  ctx: EngineContext,
  index: SearchIndex,
  workspace: string,
  query: string,
  rawOptions?: SearchOptions,
  field = 'query',
): Promise<SearchResult> {
  validateWorkspaceName(workspace);
  const options = parseOptions(SearchOptionsSchema, rawOptions);
  const terms = checkQuery(query, field);
  const dir = options.path === undefined ? '/' : normalizePath(options.path);
  const limit = options.limit ?? 10;
  const before = await requireWorkspace(ctx.store, workspace);
  const at = options.at === undefined ? null : await resolveAt(ctx.store, before, options.at);
  if (at !== null && at < before.seq) {
    const { items, truncated } = await searchAt(ctx, before, terms, dir, at, limit);
    return { items, mode: 'scan', indexedSeq: at, headSeq: before.seq, truncated };
  }
  requireIndexing(before);
  await index.catchUp(before, Date.now() + CATCH_UP_MS);
  const ws = await requireWorkspace(ctx.store, workspace);
  const scope = dir === '/' ? undefined : { path: dir, ...descendantRange(dir) };
  const embeddings = index.embeddings;
  const lexical = await ctx.store.search.match({
    workspaceId: ws.id,
    terms,
    ...(scope === undefined ? {} : { scope }),
    limit: embeddings ? Math.max(CANDIDATES, limit) : limit,
  });
  const result = { indexedSeq: await index.indexedSeq(ws), headSeq: ws.seq };
  if (embeddings) {
    const hybrid = await hybridHits(ctx, index, ws, query, dir, lexical, limit);
    if (hybrid) return { items: hybrid, mode: 'hybrid', ...result };
  }
  return {
    items: lexical.slice(0, limit).map((m) => hitOf(m, m.snippet, m.score)),
    mode: 'bm25',
    ...result,
  };
}

/**
 * Fuses the BM25 ranking with the cosine ranking of the query's vector over the workspace's
 * passages; null when the provider fails (the search then stays lexical).
 */
async function hybridHits(
  ctx: EngineContext,
  index: SearchIndex,
  ws: WorkspaceRecord,
  query: string,
  dir: string,
  lexical: readonly PassageMatch[],
  limit: number,
): Promise<SearchHit[] | null> {
  const provider = index.embeddings;
  if (!provider) return null;
  let queryVector: Float32Array;
  try {
    const [vector] = await provider.embed([query]);
    if (!vector) return null;
    queryVector = bytesVector(vectorBytes(vector));
  } catch {
    return null;
  }
  const stored = await ctx.store.search.vectors(ws.id, dir);
  const semantic = stored
    .map((p) => ({
      id: p.id,
      similarity: cosine(queryVector, bytesVector(p.vector)),
    }))
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, CANDIDATES);
  const fused = reciprocalRankFusion([lexical.map((m) => m.id), semantic.map((s) => s.id)]).slice(
    0,
    limit,
  );
  const matched = new Map(lexical.map((m) => [m.id, m]));
  const missing = fused.map((f) => f.id).filter((id) => !matched.has(id));
  const rows = new Map((await ctx.store.search.passagesByIds(missing)).map((r) => [r.id, r]));
  const hits: SearchHit[] = [];
  for (const { id, score } of fused) {
    const match = matched.get(id);
    const row = match ?? rows.get(id);
    if (row) hits.push(hitOf(row, match ? match.snippet : plainSnippet(row.text), score));
  }
  return hits;
}
