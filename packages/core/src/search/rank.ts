/** Reciprocal rank fusion: one ranking from several (BM25 and vectors) without comparing scores. */

/** The usual constant: damps the head of each ranking so no single list dominates. */
export const RRF_K = 60;

/**
 * Fuses rankings (ids, best first) into one: each id scores Σ 1 / (k + rank) over the rankings
 * that hold it (rank from 1). Ties keep the order of first appearance. Returns ids with scores,
 * best first.
 */
export function reciprocalRankFusion<T>(
  rankings: ReadonlyArray<readonly T[]>,
  k = RRF_K,
): { id: T; score: number }[] {
  const scores = new Map<T, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, i) => {
      scores.set(id, (scores.get(id) ?? 0) + 1 / (k + i + 1));
    });
  }
  return [...scores.entries()]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score);
}
