/**
 * The combination rule: an article's score from its reasons' scores. Reasons are read as
 * independent pieces of evidence (noisy-or): each one leaves a chance that the article is
 * still right, and the article is right only if all of them miss. Two weak reasons make a
 * stronger case than either; no number of reasons makes a certainty.
 */
export function combineScores(scores: readonly number[]): number {
  let allMiss = 1;
  for (const score of scores) allMiss *= 1 - clampScore(score);
  return roundScore(1 - allMiss);
}

function clampScore(score: number): number {
  return Math.min(1, Math.max(0, score));
}

/** Two decimals: enough to rank, and stable in JSON and tables. */
export function roundScore(score: number): number {
  return Math.round(clampScore(score) * 100) / 100;
}

/**
 * An impacted article must also score at least this share of the change's strongest one.
 * Chosen on the truth bench (the grid in docs/configuration.md): next to a strong reason,
 * the weak ones are mostly articles the maintainers left alone; when every reason is weak,
 * the best of them still counts.
 */
export const RELATIVE_MIN_SCORE = 0.63;

/** The bar an impacted article must reach in one change: the minimum, or the share of the best, whichever is higher. */
export function scoreThreshold(minScore: number, best: number): number {
  return Math.max(minScore, roundScore(RELATIVE_MIN_SCORE * best));
}
