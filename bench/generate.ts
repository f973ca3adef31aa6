import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The CLI the benches measure: this build, or another one's `cli/bin.js` (IMPACT_BENCH_CLI) to measure a baseline, such as main's, the same way. */
export const BENCH_CLI =
  process.env.IMPACT_BENCH_CLI ?? join(dirname(fileURLToPath(import.meta.url)), "..", "cli", "bin.js");

/** A deterministic pseudo-random generator, so every run builds the same repository. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Common English words, the filler of generated articles. */
export const WORDS =
  "the a to of and in is for with that this on be as it by are from or an can you your when each will which if one all use set value file run order data build change page read note see step user item list key case".split(
    " ",
  );
