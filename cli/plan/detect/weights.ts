import type { ChangedSymbol } from "../../../shared/changeset.js";

/**
 * How strongly one reason alone says an article is wrong (0–1), by what matched. One table,
 * so the balance between rules is visible in one place. The values follow the truth bench
 * (bench/truth, older half of each repository's commits): a reason's score is about the
 * share of articles it flagged that the maintainers really changed. A signature change or
 * an added sibling alone reaches the default minScore; a body change alone does not.
 */
export const REASON_SCORES = {
  attentionFile: 0.9,
  attentionGlob: 0.7,
  mappingCapture: 0.8,
  mappingGlob: 0.5,
  /** `src/commands/plan.ts` or `commands/plan.ts` in the article. */
  path: 0.6,
  /** A bare root file name (`package.json`, `Makefile`): named by many articles for other reasons. */
  barePath: 0.25,
  removed: 0.8,
  /** Measured: a quoted function, method, class or type whose signature changed was right 1 time in 5. */
  signature: 0.4,
  /** A constant's or config key's value, a member's type or default. */
  value: 0.5,
  /** A flag or variable on a changed line that is still there: the line around it changed. */
  usage: 0.35,
  /** A function whose body changed, quoted as code by the article (right about 1 time in 5). */
  body: 0.2,
  /** A declaration whose doc comment changed, written as code by the article (docs mirror doc comments). */
  doc: 0.4,
  /** A member added next to members the article documents (right about 1 time in 3). */
  sibling: 0.4,
  /**
   * A member added beside five or more of its siblings that the article writes on list lines
   * (a heading per option): the page is their reference (stale.ts LONG_LIST).
   */
  longList: 0.6,
  /** A removed message (error, warning) that the article quotes. */
  message: 0.7,
  /**
   * A name the change's own changelog entry writes as code, written as code by the article:
   * right about 2 times in 5 alone, so it counts only beside other evidence.
   */
  record: 0.3,
  /** A changed line names the article's own path (a navigation entry, a link to the page). */
  navigation: 0.6,
  /** A version a build or package manifest no longer names (a supported runtime dropped), quoted by the article. */
  version: 0.5,
  /** A compound name the change declares in quotes (a flag, config key, struct tag) removed, written by the article. */
  declaredRemoved: 0.7,
  /** An address a changed file no longer names (a moved site, a dropped link), quoted by the article. */
  link: 0.6,
  /** A quoted name added beside names declared the same way that the article documents. */
  declaredSibling: 0.45,
  /** A dependency a manifest removed, written by the article as code or on a list line. */
  dependencyRemoved: 0.6,
  /** A dependency a manifest added beside dependencies the article lists (a README's "relies on" list). */
  dependencySibling: 0.45,
  /** Two adjacent lines of a changed file, written one after the other by the article, that the change separated (quoted-code.ts). */
  quotedCode: 0.6,
  /** A target the change removed from a Makefile, justfile, package.json's scripts or a Taskfile, run by the article (`make docs-deps`). */
  removedTarget: 0.7,
  /** A command-line program the change deleted (a Go `package main` folder, a Rust `src/bin` target), run by the article (`cobra add`). */
  removedProgram: 0.7,
  /**
   * The one article that clearly ranks first for the words of the change's comments and
   * strings (prose.ts): right about 3 times in 5 on the truth bench, weak alone.
   */
  prose: 0.3,
  /**
   * A name a docstring's `.. versionchanged::` (deprecated, caution, …) note cites, added or
   * removed by the change, written as code by the article: right 5 times in 5 on the truth
   * bench's older half (click), where nothing else flagged those pages.
   */
  docstringNote: 0.6,
  /** An article named after a changed file, or documenting its module or a class it changed (namesakes.ts): relevance only. */
  namesake: 0.3,
} as const;

/**
 * An article's history reasons after the strongest count at this share of their score. The
 * files of one change mostly changed together before, in the same past commits, so an
 * article's co-changes with several of them are partly one piece of evidence: counted as
 * independent, two co-changes of 0.4 made 0.64, over the bar of most changes. Chosen on
 * the truth bench (docs/plan.md): 0 (the strongest alone) lost recall without the
 * maintainers' configs, 1 (independent) flagged more of the articles left alone.
 */
export const HISTORY_FURTHER_FACTOR = 0.5;

/**
 * A history reason at least this strong (about half a file's commits changed the article
 * too, with support) ties the file to the article like a mapping: when the file's public
 * surface changes, the article is stale. Weaker coupling is relevance only.
 */
export const HISTORY_MAPPED_SCORE = 0.5;

/**
 * An article in the folder of an older version (`docs/v1/` beside `docs/v3/`) is scored at
 * this share: on the truth bench such articles were flagged 14 times and never right.
 */
export const OLDER_VERSION_FACTOR = 0.5;

/** A single common word (`lines`, `verbose`) found only where the article writes it as code. */
export const CODE_ONLY_FACTOR = 0.8;

/**
 * A name found in `count` articles says less about each: the score is scaled by
 * sqrt(min(1, SHARED_BY / count)), so names in up to SHARED_BY articles keep it whole.
 */
const SHARED_BY = 3;

export function shareFactor(count: number): number {
  return Math.sqrt(Math.min(1, SHARED_BY / Math.max(1, count)));
}

/** The score of a changed symbol named by an article, before the share and code-only factors. */
export function symbolScore(symbol: ChangedSymbol): number {
  switch (symbol.change) {
    case "removed":
    case "renamed":
      return symbol.kind === "message" ? REASON_SCORES.message : REASON_SCORES.removed;
    case "body":
      return REASON_SCORES.body;
    case "doc":
      return REASON_SCORES.doc;
    case "added":
      return REASON_SCORES.sibling;
    case "signature":
      if (symbol.kind === "flag" || symbol.kind === "env") return REASON_SCORES.usage;
      if (symbol.kind === "member" || symbol.kind === "config" || symbol.kind === "constant")
        return REASON_SCORES.value;
      if (symbol.kind === "variable") return REASON_SCORES.value;
      return REASON_SCORES.signature;
  }
}
