import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import picomatch from "picomatch";
import type { Audit } from "../../shared/audit.js";
import { readIgnoredMatcher } from "../../shared/config.js";
import { DEFAULT_READ_BYTES_IN_FLIGHT } from "../../shared/limits.js";
import type { ModelPrice } from "../../shared/model/prices.js";
import type { ModelClient } from "../../shared/model/types.js";
import type { PlannedArticle } from "../../shared/plan.js";
import { systemPrompt } from "../../shared/prompts.js";
import { type Shard, shardOf } from "../../shared/shard.js";
import { buildToolManifest } from "../../shared/tools/manifest.js";
import { applyAudit, StaleFiles } from "../audit/apply-audit.js";
import { AuditTrail, redactArticle } from "../audit/audit-trail.js";
import { writeAuditFiles } from "../audit/files.js";
import type { BuiltPlan } from "../plan/build-plan.js";
import { resolveRunLimits } from "./budget.js";
import type { ProgressSink } from "./progress.js";
import { ReadBudget } from "./read-budget.js";
import { ResultCacheFolder } from "./result-cache.js";
import { ImpactAgentRunner } from "./runner.js";
import { toolHostSessions } from "./session.js";
import { Workspace } from "./workspace.js";

export interface RunImpactOptions {
  built: BuiltPlan;
  model: ModelClient;
  out: string;
  patch: string;
  apply: boolean;
  allowCreate: boolean;
  /** The plan's articles this run covers and which of them go to the model (`selectArticles`). */
  selection: ArticleSelection;
  shard?: Shard;
  /** The flags; the config and then the defaults fill in what they leave out. */
  concurrency?: number;
  maxTurns?: number;
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  progress?: ProgressSink;
  /** Called once the articles to run are known (for the progress total). */
  onSelected?: (count: number) => void;
  now?: () => Date;
  /** The result cache's folder and Impact's version (part of every key); absent: no cache. */
  cache?: { dir: string; impactVersion: string };
  /** The model's price, for `usage.costUsd` and `--max-cost`. */
  price?: ModelPrice;
  maxCostUsd?: number;
  /** Problems that do not stop the run (a corrupt cache entry). */
  onWarning?: (message: string) => void;
}

export interface RunImpactResult {
  audit: Audit;
  interrupted: boolean;
  /** Why `--apply` wrote nothing (a file changed on disk during the run), if it did not. */
  refused?: string;
}

/**
 * plan → agents → audit: selects the articles (--only, --shard, touched), runs the
 * agent loops, writes the audit and the combined patch, and with `apply` writes the
 * workspace to disk, but only after a run that completed.
 */
export async function runImpact(options: RunImpactOptions): Promise<RunImpactResult> {
  const now = options.now ?? (() => new Date());
  const { plan, changeSet, config, repoRoot } = options.built;
  const startedAt = now();
  const trail = new AuditTrail({
    runId: randomUUID(),
    startedAt,
    base: plan.base,
    head: plan.head,
    model: options.model.model,
    ...(options.shard ? { shard: options.shard } : {}),
    env: options.env,
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

  const limits = resolveRunLimits(options, { ...config, ...config.limits });
  const readIgnored = readIgnoredMatcher(config);
  const workspace = new Workspace(repoRoot, {
    readBudget: new ReadBudget(config.limits.readBytesInFlight ?? DEFAULT_READ_BYTES_IN_FLIGHT),
    ...(readIgnored ? { readIgnored } : {}),
  });
  const results = options.cache
    ? new ResultCacheFolder({
        dir: options.cache.dir,
        redact: (article) => redactArticle(article, options.env),
        warn: options.onWarning ?? (() => undefined),
      })
    : undefined;
  const runner = new ImpactAgentRunner({
    model: options.model,
    systemPrompt: await systemPrompt(),
    tools: buildToolManifest({ allowCreate: options.allowCreate }),
    changeSet,
    openArticle: toolHostSessions({
      root: repoRoot,
      workspace,
      changeSet,
      config,
      allowCreate: options.allowCreate,
    }),
    allowCreate: options.allowCreate,
    ...limits,
    ...(options.progress ? { progress: options.progress } : {}),
    ...(results && options.cache ? { cache: { results, impactVersion: options.cache.impactVersion } } : {}),
    ...(options.price ? { price: options.price } : {}),
    ...(options.maxCostUsd !== undefined ? { maxCostUsd: options.maxCostUsd } : {}),
  });
  for (const article of await runner.run(toRun, options.signal)) trail.record(article);
  await results?.prune();

  const interrupted = options.signal.aborted;
  const finishedAt = now();
  let audit = trail.build(finishedAt, false);
  let refused: string | undefined;
  if (options.apply && !interrupted) {
    // The same all-or-nothing, hash-checked write as `impact apply`, from the audit itself.
    try {
      await applyAudit(audit, repoRoot, config);
      audit = trail.build(finishedAt, true);
    } catch (error) {
      if (!(error instanceof StaleFiles)) throw error;
      refused = error.problems.join("; ");
    }
  }
  await mkdir(dirname(options.out), { recursive: true });
  await mkdir(dirname(options.patch), { recursive: true });
  await writeAuditFiles(audit, { out: options.out, patch: options.patch });
  return { audit, interrupted, ...(refused === undefined ? {} : { refused }) };
}

/** The plan's articles a run covers, and those of them that go to the model. */
export interface ArticleSelection {
  /** `--only` and `--shard` applied, plan order kept: each gets an audit entry. */
  covered: PlannedArticle[];
  /** Covered articles sent to the model: all but the touched ones, unless `includeTouched`. */
  toRun: PlannedArticle[];
}

/** Which of the plan's articles a run covers and runs; decided once, before any model is needed. */
export function selectArticles(
  articles: readonly PlannedArticle[],
  options: { only?: string; shard?: Shard; includeTouched: boolean },
): ArticleSelection {
  const only = options.only ? picomatch(options.only, { dot: true }) : null;
  const covered = articles.filter(
    (article) =>
      (only === null || only(article.path)) &&
      (options.shard === undefined || shardOf(article.path, options.shard.count) === options.shard.index),
  );
  const toRun = covered.filter((article) => article.status !== "touched" || options.includeTouched);
  return { covered, toRun };
}
