import { z } from "zod";
import { DOCS_REPOSITORY_NAME } from "./docs-repository.js";

/** `impact plan --json` and the plan handed to the runner. */
export const ImpactKindSchema = z.enum(["attention", "mapping", "reference", "history"]);

/**
 * A reason's kind: the detector's kinds, and `judge` (a model read the article against the
 * change and quoted the line it found false: `plan --judge`, cli/plan/judge.ts).
 */
const ReasonKindSchema = z.enum([...ImpactKindSchema.options, "judge"]);

export const ImpactReasonSchema = z.object({
  kind: ReasonKindSchema,
  /** The changed file (or symbol's file) behind the reason. */
  source: z.string(),
  detail: z.string(),
  /**
   * How strongly this reason alone says the article is wrong, 0–1 (history: the co-change ratio, shrunk for thin
   * evidence). The detector always sets
   * it; optional so that plans and audits written before scores existed still read.
   */
  score: z.number().min(0).max(1).optional(),
  /** Stale-statement evidence (what flags an article), as opposed to relevance only. */
  stale: z.boolean().optional(),
  /** Stale reasons: the 1-based line of the article that the change contradicts. */
  line: z.number().int().positive().optional(),
  /** Stale reasons: the hunk header (`path @@ -a,b +c,d @@`) of the change that contradicts it. */
  hunk: z.string().optional(),
  /** The `id` of the plan's sweep this reason belongs to (`sweeps`): one change that made many names false. */
  sweep: z.string().optional(),
});

/**
 * One change that removed or renamed many public names and so flags many articles for the
 * same reason: the plan lists its articles under it instead of as independent findings. Its
 * articles stay in `articles` too (flagged, checked and run like any other).
 */
export const SweepSchema = z.object({
  id: z.string(),
  /** What the change did, by change and kind: `{change: "renamed", kind: "function", count: 2000}`. */
  changes: z.array(
    z.object({
      change: z.enum(["removed", "renamed"]),
      kind: z.string(),
      count: z.number().int().positive(),
    }),
  ),
  /** The changed files that declared the names. */
  files: z.array(z.string()),
  /** The flagged articles that write an old name: which ones, and the first line writing one. */
  articles: z.array(
    z.object({
      path: z.string(),
      names: z.array(z.string()),
      line: z.number().int().positive().optional(),
    }),
  ),
});

/**
 * Which side of the line an article is on. `stale`: it says something the change made false, or
 * keeps a complete list the change made incomplete (flagged; `--check` fails on it). `related`: it
 * is about the changed code but nothing in it is contradicted (listed apart, run only with
 * `--include related`). `new`: a mapped article the change calls for that does not exist yet.
 * @public The plan's contract, for the detector's tiers (no module reads it yet).
 */
export const TierSchema = z.enum(["stale", "related", "new"]);

/**
 * What the judge (`plan --judge`) said of a related article. `stale`: promoted (its quote stands
 * on the article); `fine`: nothing false; `unverified`: stale, but the quote is not on the
 * article near its line; `malformed`, `refused`, `error`: no usable answer. Only `stale` changes
 * the tier.
 */
const JudgeVerdictSchema = z.object({
  verdict: z.enum(["stale", "fine", "unverified", "malformed", "refused", "error"]),
  model: z.string(),
  /** The model's answer: the article line and the text it says is false, and why. */
  line: z.number().int().optional(),
  quote: z.string().optional(),
  why: z.string(),
  /** Reused from the judge cache (no model call this time). */
  cached: z.boolean().optional(),
});

/** @public The plan's contract (no module reads it yet). */
export const PlannedArticleSchema = z.object({
  path: z.string(),
  status: z.enum(["impacted", "touched", "new"]),
  /** Always set by the detector; optional so that plans and audits written before tiers still read. */
  tier: TierSchema.optional(),
  /** `new` articles: existing articles of the same mapping, for the model to follow. */
  models: z.array(z.string()).optional(),
  impact: z.array(ImpactReasonSchema),
  /** Changed files relevant to this article (their hunks go to the agent). */
  files: z.array(z.string()),
  /** The reasons' scores combined (always set by the detector); articles are sorted by it. */
  score: z.number().min(0).max(1).optional(),
  /** With `--judge`: the judge's verdict on this article (related articles only). */
  judge: JudgeVerdictSchema.optional(),
});

/** With `--judge`: what the judge did over the related tier (docs/models.md#the-judge). */
const JudgeSummarySchema = z.object({
  model: z.string(),
  /** Related articles given a verdict (from the model or the cache). */
  judged: z.number().int().nonnegative(),
  /** Of those, promoted to `stale` on a verified quote. */
  promoted: z.number().int().nonnegative(),
  /** Related articles over `maxArticles`, left unjudged. */
  notJudged: z.number().int().nonnegative(),
  /** Verdicts reused from the cache. */
  cached: z.number().int().nonnegative(),
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  /** US dollars, when the model's price is known (shared/model/prices.ts, config `prices`). */
  costUsd: z.number().nonnegative().optional(),
  /** Why a judge on by config alone did not run (no API key, a recording as the model). */
  skipped: z.string().optional(),
});

/** A separate docs repository (`--docs-repo`): its name (the `name:` of its paths) and the commit its articles were read from. */
export const DocsRepositorySchema = z.object({
  name: z.string().regex(DOCS_REPOSITORY_NAME),
  head: z
    .string()
    .regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/)
    .optional(),
});

export const ImpactPlanSchema = z.object({
  base: z.string(),
  head: z.string(),
  articles: z.array(PlannedArticleSchema),
  /** Articles about the changed code that nothing in the change contradicts: listed apart, never flagged. */
  related: z.array(PlannedArticleSchema).default([]),
  dropped: z.array(z.object({ symbol: z.string(), why: z.string() })),
  warnings: z.array(z.string()).default([]),
  /** Changed files not read because their diff, or the whole diff, was over a size cap. */
  skipped: z
    .array(z.object({ path: z.string(), reason: z.enum(["file_too_large", "diff_too_large"]) }))
    .default([]),
  /** Impacted articles scoring below this are left out of `articles` and listed in `weak`. */
  minScore: z.number().min(0).max(1).optional(),
  /**
   * The bar in this change: `minScore`, or a share of the strongest impacted article's score
   * when that is higher (docs/plan.md). Impacted articles below it are listed in `weak`.
   */
  threshold: z.number().min(0).max(1).optional(),
  /** Articles with some evidence, too weak to count: below `threshold`. */
  weak: z.array(z.object({ path: z.string(), score: z.number() })).optional(),
  /** Changes that made many names false at once, each with the flagged articles that write one (SweepSchema). */
  sweeps: z.array(SweepSchema).optional(),
  /**
   * The separate docs repository the articles are in (`--docs-repo`): every article path is
   * `name:path` in it; the changed files are the code repository's.
   */
  docsRepository: DocsRepositorySchema.optional(),
  /** With `--judge`: the judge's summary (JudgeSummarySchema). */
  judge: JudgeSummarySchema.optional(),
});

/** @public */
export type Tier = z.infer<typeof TierSchema>;
export type ImpactKind = z.infer<typeof ImpactKindSchema>;
export type ImpactReason = z.infer<typeof ImpactReasonSchema>;
export type JudgeVerdict = z.infer<typeof JudgeVerdictSchema>;
export type JudgeSummary = z.infer<typeof JudgeSummarySchema>;
export type PlannedArticle = z.infer<typeof PlannedArticleSchema>;
export type ImpactPlan = z.infer<typeof ImpactPlanSchema>;
export type Sweep = z.infer<typeof SweepSchema>;
