/**
 * Where an edit that matched nothing (or too much) probably meant to go: the lines of a text most
 * like the first line of the text to replace, so the caller can correct `oldText` without
 * re-reading the whole file.
 */

export interface EditCandidate {
  /** 1-based line number. */
  readonly line: number;
  /** The line, trimmed, at most 200 characters. */
  readonly text: string;
  /** Similarity to the first line of `oldText`, 0 to 1 (1: equal ignoring surrounding blanks). */
  readonly similarity: number;
}

const MAX_CANDIDATES = 3;
const MIN_SIMILARITY = 0.5;
const MAX_SCANNED_LINES = 100_000;

function bigrams(text: string): Map<string, number> {
  const out = new Map<string, number>();
  const s = text.replace(/\s+/g, ' ').toLowerCase();
  for (let i = 0; i < s.length - 1; i++) {
    const pair = s.slice(i, i + 2);
    out.set(pair, (out.get(pair) ?? 0) + 1);
  }
  return out;
}

/** Sørensen-Dice coefficient over character bigrams: 1 for equal strings, 0 for nothing shared. */
function similarity(a: Map<string, number>, aSize: number, b: string): number {
  const other = bigrams(b);
  let bSize = 0;
  let shared = 0;
  for (const [pair, count] of other) {
    bSize += count;
    shared += Math.min(count, a.get(pair) ?? 0);
  }
  return aSize + bSize === 0 ? 0 : (2 * shared) / (aSize + bSize);
}

function clip(line: string): string {
  const trimmed = line.trim();
  return trimmed.length > 200 ? `${trimmed.slice(0, 199)}…` : trimmed;
}

/** The lines most like the first non-blank line of `oldText`, best first (at most 3). */
export function nearestLines(text: string, oldText: string): EditCandidate[] {
  const needle = oldText
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim();
  if (needle === undefined) return [];
  const target = bigrams(needle);
  let targetSize = 0;
  for (const count of target.values()) targetSize += count;
  const scored: EditCandidate[] = [];
  const lines = text.split('\n', MAX_SCANNED_LINES);
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const score = line.trim() === needle ? 1 : similarity(target, targetSize, line);
    if (score >= MIN_SIMILARITY) scored.push({ line: i + 1, text: clip(line), similarity: score });
  });
  return scored
    .sort((a, b) => b.similarity - a.similarity || a.line - b.line)
    .slice(0, MAX_CANDIDATES)
    .map((c) => ({ ...c, similarity: Math.round(c.similarity * 100) / 100 }));
}

/** The lines at `lineNumbers` (1-based) as candidates, for an `oldText` that matched several places. */
export function linesAt(text: string, lineNumbers: readonly number[]): EditCandidate[] {
  const lines = text.split('\n');
  return lineNumbers.map((line) => ({ line, text: clip(lines[line - 1] ?? ''), similarity: 1 }));
}
