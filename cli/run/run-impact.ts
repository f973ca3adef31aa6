import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import picomatch from "picomatch";
import type { Audit } from "../../shared/audit.js";
import type { ImpactPlan, PlannedArticle, Sweep } from "../../shared/plan.js";
import { type Shard, shardOf } from "../../shared/shard.js";
import { AuditTrail } from "../audit/audit-trail.js";
import { writeAuditFiles } from "../audit/files.js";
import type { BuiltPlan } from "../plan/build-plan.js";
import { loadInstructions } from "./instructions.js";
import type { AgentRunOptions } from "./run-agents.js";

export interface RunImpactOptions extends AgentRunOptions {
  built: BuiltPlan;
  out: string;
  patch: string;
  apply: boolean;
  /** The plan's articles this run covers and which of them go to the model (`selectArticles`). */
  selection: ArticleSelection;
  shard?: Shard | undefined;
  /** Called once the articles to run are known (for the progress total). */
  onSelected?: (count: number) => void;
  now?: () => Date;
}

export interface RunImpactResult {
  audit: Audit;
  interrupted: boolean;
  /** Why `--apply` wrote nothing (a file changed on disk during the run), if it did not. */
  refused?: string | undefined;
}

/**
 * plan → agents → audit: selects the articles (--only, --shard, touched), runs the
 * agent loops, writes the audit and the combined patch, and with `apply` writes the
 * workspace to disk, but only after a run that completed.
 */
export async function runImpact(options: RunImpactOptions): Promise<RunImpactResult> {
  const now = options.now ?? (() => new Date());
  const { plan, config, repoRoot } = options.built;
  const startedAt = now();
  // Read before any article: a configured file that is missing is bad input (exit 2).
  const instructions = await loadInstructions(repoRoot, config);
  const trail = new AuditTrail({
    runId: randomUUID(),
    startedAt,
    base: plan.base,
    head: plan.head,
    model: options.model.model,
    shard: options.shard,
    instructions: instructions.sources,
    sweeps: sweepsOf(plan.sweeps ?? [], new Set(options.selection.covered.map((article) => article.path))),
    env: options.env,
    docsRepository: options.built.docsRepository,
  });

  const { covered, toRun } = options.selection;
  for (const article of covered) {
    trail.plan(article.path);
    if (!toRun.includes(article))
      trail.recordWithoutRun(
        article.path,
        "touched",
        article.impact,
        "the change already edits this article; not sent to the model (use --include-touched)",
      );
  }
  options.onSelected?.(toRun.length);

  // A change that impacts no article needs no agent: the runner, the tool host, the tool
  // schemas and the prompts load only when an article goes to the model.
  if (toRun.length > 0) {
    const [{ runAgents }, { failLinksToMissingArticles }] = await Promise.all([
      import("./run-agents.js"),
      import("./new-article-links.js"),
    ]);
    const results = await runAgents({ ...options, instructions }, toRun);
    const plannedNew = covered.filter((article) => article.status === "new").map((article) => article.path);
    for (const article of failLinksToMissingArticles(results, plannedNew)) trail.record(article);
  }

  const interrupted = options.signal.aborted;
  const finishedAt = now();
  let audit = trail.build(finishedAt, false);
  let refused: string | undefined;
  if (options.apply && !interrupted) {
    const apply = await import("../audit/apply-audit.js");
    // The same all-or-nothing, hash-checked write as `impact apply`, from the audit itself.
    try {
      await apply.applyAudit(audit, repoRoot, config, options.built.docsRepository);
      audit = trail.build(finishedAt, true);
    } catch (error) {
      if (!(error instanceof apply.StaleFiles)) throw error;
      refused = error.problems.join("; ");
    }
  }
  await mkdir(dirname(options.out), { recursive: true });
  await mkdir(dirname(options.patch), { recursive: true });
  await writeAuditFiles(audit, { out: options.out, patch: options.patch });
  return { audit, interrupted, refused };
}

/** The plan's articles a run covers, and those of them that go to the model. */
export interface ArticleSelection {
  /** `--only` and `--shard` applied, plan order kept: each gets an audit entry. */
  covered: PlannedArticle[];
  /** Covered articles sent to the model: all but the touched ones, unless `includeTouched`. */
  toRun: PlannedArticle[];
}

/**
 * The plan's articles a run starts from: the flagged ones (stale, new and touched), and the
 * related ones only with `includeRelated` (`--include related`, config `include`), so the
 * model is not paid to read articles nothing in the change contradicts.
 */
export function plannedArticles(
  plan: Pick<ImpactPlan, "articles" | "related">,
  includeRelated: boolean,
): PlannedArticle[] {
  const flagged = plan.articles.filter((article) => article.tier !== "related");
  if (!includeRelated) return flagged;
  const related = [...plan.articles.filter((article) => article.tier === "related"), ...(plan.related ?? [])];
  return [...flagged, ...related];
}

/** Whether a run with `--only` and `--shard` covers an article, by its path. */
export function coveredBy(options: {
  only?: string | undefined;
  shard?: Shard | undefined;
}): (path: string) => boolean {
  const only = options.only ? picomatch(options.only, { dot: true }) : null;
  return (path) =>
    (only === null || only(path)) &&
    (options.shard === undefined || shardOf(path, options.shard.count) === options.shard.index);
}

/** Which of the plan's articles a run covers and runs; decided once, before any model is needed. */
export function selectArticles(
  articles: readonly PlannedArticle[],
  options: { only?: string | undefined; shard?: Shard | undefined; includeTouched: boolean },
): ArticleSelection {
  const covers = coveredBy(options);
  const covered = articles.filter((article) => covers(article.path));
  const toRun = covered.filter((article) => article.status !== "touched" || options.includeTouched);
  return { covered, toRun };
}

/** The plan's sweeps with only the articles this run covers (a shard, `--only`); a sweep left empty is dropped. */
function sweepsOf(sweeps: readonly Sweep[], covered: ReadonlySet<string>): Sweep[] {
  return sweeps
    .map((sweep) => ({ ...sweep, articles: sweep.articles.filter((article) => covered.has(article.path)) }))
    .filter((sweep) => sweep.articles.length > 0);
}
