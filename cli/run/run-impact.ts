import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import picomatch from "picomatch";
import type { Audit } from "../../shared/audit.js";
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
import { DEFAULT_TOKENS_PER_ARTICLE, DEFAULT_TOKENS_PER_RUN } from "./budget.js";
import type { ProgressSink } from "./progress.js";
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
  includeTouched: boolean;
  only?: string;
  shard?: Shard;
  concurrency: number;
  maxTurns: number;
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

  const selected = selectArticles(plan.articles, options);
  const toRun: PlannedArticle[] = [];
  for (const article of selected) {
    trail.plan(article.path);
    if (article.status === "touched" && !options.includeTouched) {
      trail.recordWithoutRun(
        article.path,
        "touched",
        article.impact,
        "the change already edits this article; not sent to the model (use --include-touched)",
      );
    } else {
      toRun.push(article);
    }
  }
  options.onSelected?.(toRun.length);

  const workspace = new Workspace(repoRoot);
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
    concurrency: options.concurrency,
    maxTurns: options.maxTurns,
    tokensPerArticle: config.limits.tokensPerArticle ?? DEFAULT_TOKENS_PER_ARTICLE,
    tokensPerRun: config.limits.tokensPerRun ?? DEFAULT_TOKENS_PER_RUN,
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

/** The plan's articles that this run covers: `--only` glob and `--shard` applied, plan order kept. */
export function selectArticles(
  articles: readonly PlannedArticle[],
  options: { only?: string; shard?: Shard },
): PlannedArticle[] {
  const only = options.only ? picomatch(options.only, { dot: true }) : null;
  return articles.filter(
    (article) =>
      (only === null || only(article.path)) &&
      (options.shard === undefined || shardOf(article.path, options.shard.count) === options.shard.index),
  );
}
