/**
 * `search` as of a seq or snapshot (docs/search.md, "Searching the past"). The index holds the
 * passages of the current versions only, so a search `at` an earlier seq reads the files as
 * they were then (grep-files.ts), cuts them into passages as the index does (chunk.ts) and ranks
 * them with BM25 over what it read — exact for what it reads, bounded by a time, file and byte
 * budget; past a budget the result says `truncated`.
 */
import type { SearchHit } from '@satchel/client/schemas/index.js';
import { isBinary, readWhole } from '../kernel/content.js';
import type { EngineContext } from '../kernel/context.js';
import type { WorkspaceRecord } from '../store/metadata/metadata-store.js';
import { chunkText } from './chunk.js';
import { filesOf } from './grep-files.js';
import { MAX_INDEXED_FILE_BYTES } from './indexer.js';

/** Budget of one search as of a seq. */
export const SCAN_AT_MS = 2000;
export const SCAN_AT_FILES = 5000;
export const SCAN_AT_BYTES = 64 * 1024 ** 2;

const K1 = 1.2;
const B = 0.75;

interface Scored {
  readonly path: string;
  readonly seq: number;
  readonly lineStart: number;
  readonly lineEnd: number;
  readonly text: string;
  readonly length: number;
  readonly counts: ReadonlyMap<string, number>;
}

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];

/** The passage flattened, around the first term it holds, with each term wrapped in « ». */
function snippet(text: string, terms: readonly string[]): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  const first = Math.min(...terms.map((t) => lower.indexOf(t)).filter((i) => i >= 0));
  const start = Number.isFinite(first) ? Math.max(0, first - 80) : 0;
  const window = flat.slice(start, start + 200);
  const escaped = terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const marked = window.replace(new RegExp(`(${escaped.join('|')})`, 'giu'), '«$1»');
  return `${start > 0 ? '…' : ''}${marked}${start + 200 < flat.length ? '…' : ''}`;
}

/**
 * The best `limit` passages for `terms` of the files beneath `dir` as they were at `at`:
 * passages holding every term first, then by BM25. `truncated` when a budget ended the scan.
 */
export async function searchAt(
  ctx: EngineContext,
  ws: WorkspaceRecord,
  terms: readonly string[],
  dir: string,
  at: number,
  limit: number,
): Promise<{ items: SearchHit[]; truncated: boolean }> {
  const deadline = Date.now() + SCAN_AT_MS;
  let files = 0;
  let bytes = 0;
  let passages = 0;
  let totalLength = 0;
  let truncated = false;
  const df = new Map<string, number>();
  const matched: Scored[] = [];
  for await (const entry of filesOf(ctx.store, ws.id, dir, undefined, at)) {
    if (entry.hash === null || entry.size === 0 || entry.size > MAX_INDEXED_FILE_BYTES) continue;
    if (Date.now() > deadline || files >= SCAN_AT_FILES || bytes + entry.size > SCAN_AT_BYTES) {
      truncated = true;
      break;
    }
    files++;
    bytes += entry.size;
    const data = await readWhole(ctx, ctx.store, entry.hash, MAX_INDEXED_FILE_BYTES, 'search');
    if (isBinary(data)) continue;
    for (const p of chunkText(data.toString('utf8'))) {
      const tokens = words(p.text);
      passages++;
      totalLength += tokens.length;
      const counts = new Map<string, number>();
      for (const token of tokens) {
        if (terms.includes(token)) counts.set(token, (counts.get(token) ?? 0) + 1);
      }
      if (counts.size === 0) continue;
      for (const term of counts.keys()) df.set(term, (df.get(term) ?? 0) + 1);
      const { lineStart, lineEnd, text } = p;
      matched.push({
        path: entry.path,
        seq: entry.seq,
        lineStart,
        lineEnd,
        text,
        length: tokens.length,
        counts,
      });
    }
  }
  const avg = passages === 0 ? 1 : totalLength / passages;
  const bm25 = (s: Scored) => {
    let score = 0;
    for (const [term, tf] of s.counts) {
      const n = df.get(term) ?? 0;
      const idf = Math.log(1 + (passages - n + 0.5) / (n + 0.5));
      score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * s.length) / avg));
    }
    return score;
  };
  const ranked = matched
    .map((s) => ({ s, all: s.counts.size === terms.length, score: bm25(s) }))
    .sort((a, b) => Number(b.all) - Number(a.all) || b.score - a.score)
    .slice(0, limit);
  return {
    items: ranked.map(({ s, score }) => ({
      citation: { path: s.path, seq: s.seq, lineStart: s.lineStart, lineEnd: s.lineEnd },
      snippet: snippet(s.text, terms),
      text: s.text,
      score,
    })),
    truncated,
  };
}
