import { readIgnoredMatcher } from "../../shared/config.js";
import { DEFAULT_READ_BYTES_IN_FLIGHT } from "../../shared/limits.js";
import type { ModelPrice } from "../../shared/model/prices.js";
import type { ModelClient } from "../../shared/model/types.js";
import type { PlannedArticle } from "../../shared/plan.js";
import { systemPrompt } from "../../shared/prompts.js";
import { buildToolManifest } from "../../shared/tools/manifest.js";
import { redactArticle } from "../audit/audit-trail.js";
import type { BuiltPlan } from "../plan/build-plan.js";
import type { CacheStore } from "../workdir/cache-store.js";
import { resolveRunLimits } from "./budget.js";
import type { ProjectInstructions } from "./instructions.js";
import type { ProgressSink } from "./progress.js";
import { ReadBudget } from "./read-budget.js";
import { answerConfig, ResultCacheFolder } from "./result-cache.js";
import { ImpactAgentRunner } from "./runner.js";
import { toolHostSessions } from "./session.js";
import { ValeCheck } from "./vale.js";
import { Workspace } from "./workspace.js";

/** What the agent loops need of a run (runImpact's options hold these and more). */
export interface AgentRunOptions {
  built: Pick<BuiltPlan, "changeSet" | "config" | "repoRoot" | "docsRepository" | "worktree">;
  model: ModelClient;
  allowCreate: boolean;
  /** The flags; the config and then the defaults fill in what they leave out. */
  concurrency?: number;
  maxTurns?: number;
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  progress?: ProgressSink;
  /**
   * The result cache (the workdir's, or `--cache-dir`), with the parts of every key the
   * command knows: Impact's version and the endpoint's identity. Absent: no cache.
   */
  cache?: { store: CacheStore; impactVersion: string; endpoint: string } | undefined;
  /** The model's price, for `usage.costUsd` and `--max-cost`. */
  price?: ModelPrice | undefined;
  maxCostUsd?: number | undefined;
  /** The project's style instructions (loadInstructions); absent: none. */
  instructions?: ProjectInstructions;
  /** Problems that do not stop the run (a corrupt cache entry). */
  onWarning?: (message: string) => void;
}

/**
 * The agent half of runImpact: one loop per article in `toRun`, over one workspace, with
 * the run's limits, the result cache and the price. Loaded only when an article goes to
 * the model.
 */
export async function runAgents(options: AgentRunOptions, toRun: readonly PlannedArticle[]) {
  const { changeSet, config, repoRoot, docsRepository, worktree } = options.built;
  const limits = resolveRunLimits(options, { ...config, ...config.limits });
  const readIgnored = readIgnoredMatcher(config);
  const workspace = new Workspace(repoRoot, {
    readBudget: new ReadBudget(config.limits.readBytesInFlight ?? DEFAULT_READ_BYTES_IN_FLIGHT),
    readIgnored,
    docsRepository,
    worktree,
  });
  const results = options.cache
    ? new ResultCacheFolder({
        store: options.cache.store,
        redact: (article) => redactArticle(article, options.env),
        warn: options.onWarning ?? (() => undefined),
      })
    : undefined;
  // Vale runs after each edit when the repository configures it (one warning if it cannot).
  const styleCheck = ValeCheck.forRepository({
    root: docsRepository?.root ?? repoRoot,
    env: options.env,
    warn: options.onWarning ?? (() => undefined),
  });
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
      styleCheck,
      docsRepository,
    }),
    allowCreate: options.allowCreate,
    ...limits,
    progress: options.progress,
    cache:
      results && options.cache
        ? {
            results,
            impactVersion: options.cache.impactVersion,
            endpoint: options.cache.endpoint,
            config: answerConfig(config),
          }
        : undefined,
    price: options.price,
    instructions: options.instructions,
    docsRepositoryName: docsRepository?.name,
    styleCheckKey: styleCheck?.key,
    maxCostUsd: options.maxCostUsd,
  });
  const articles = await runner.run(toRun, options.signal);
  await results?.prune();
  return articles;
}
