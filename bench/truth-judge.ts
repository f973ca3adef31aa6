import { readArticles } from "../cli/plan/articles.js";
import { untouchedStale } from "../cli/plan/gate.js";
import { emptyJudgeSummary, judgeRelated } from "../cli/plan/judge.js";
import { endpointIdentity } from "../cli/run/result-cache.js";
import { VERSION } from "../cli/version.js";
import type { ChangeSet } from "../shared/changeset.js";
import { UsageError } from "../shared/errors.js";
import { DEFAULT_JUDGE_MAX_ARTICLES } from "../shared/limits.js";
import { preflightModel } from "../shared/model/preflight.js";
import { priceOf } from "../shared/model/prices.js";
import { resolveModelClient } from "../shared/model/resolve.js";
import type { ImpactPlan, JudgeSummary, JudgeVerdict } from "../shared/plan.js";
import { resolveSettings } from "../shared/settings.js";

const decoder = new TextDecoder();

/** The truth bench's `--judge`: the judge of `impact plan --judge` over each replayed plan's related articles. */
export interface BenchJudge {
  model: string;
  /** The judge's running totals over the bench, for its summary line (summaryLine). */
  totals: JudgeSummary;
  /**
   * The articles the plan flags once the judge read its related ones, and its verdict on each
   * (for `--dump`); the plan itself is left as it was.
   */
  judge(input: { repoRoot: string; plan: ImpactPlan; changeSet: ChangeSet }): Promise<{
    flagged: string[];
    verdicts: (JudgeVerdict & { path: string })[];
  }>;
}

/**
 * The judge with the model configured from the environment as `impact run` reads it
 * (OPENAI_API_KEY, OPENAI_BASE_URL, IMPACT_MODEL), checked once; or the
 * one line saying what to set when none is.
 */
export async function openBenchJudge(env: Record<string, string | undefined>): Promise<BenchJudge | string> {
  const settings = resolveSettings({ env });
  if (!settings.apiKey)
    return "bench:truth: --judge needs a model: set OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible server, IMPACT_MODEL for the model)";
  // As `impact plan --judge`: the API itself, never a router (which answers as the agent).
  const client = await resolveModelClient({ settings: { ...settings, routerUrl: undefined } });
  try {
    await preflightModel(client, new AbortController().signal);
  } catch (error) {
    if (error instanceof UsageError) return `bench:truth: --judge: ${error.message}`;
    throw error;
  }
  const price = priceOf(client.model);
  const totals = emptyJudgeSummary(client.model);
  return {
    model: client.model,
    totals,
    async judge({ repoRoot, plan, changeSet }) {
      const copy = structuredClone(plan);
      const summary = await judgeRelated({
        plan: copy,
        changeSet,
        // The replayed plan read the articles at the change's base (the replayed commit's parent).
        readArticle: async (path) => {
          const [article] = await readArticles(repoRoot, [path], { revision: changeSet.base });
          return (
            article &&
            (typeof article.content === "string" ? article.content : decoder.decode(article.content))
          );
        },
        client,
        endpoint: endpointIdentity({ baseUrl: client.endpoint }),
        impactVersion: VERSION,
        maxArticles: DEFAULT_JUDGE_MAX_ARTICLES,
        concurrency: settings.concurrency,
        signal: new AbortController().signal,
        price,
      });
      totals.judged += summary.judged;
      totals.promoted += summary.promoted;
      totals.notJudged += summary.notJudged;
      totals.cached += summary.cached;
      totals.promptTokens += summary.promptTokens;
      totals.completionTokens += summary.completionTokens;
      if (summary.costUsd !== undefined) totals.costUsd = (totals.costUsd ?? 0) + summary.costUsd;
      const verdicts = [...copy.articles, ...copy.related].flatMap((article) =>
        article.judge ? [{ path: article.path, ...article.judge }] : [],
      );
      return { flagged: untouchedStale(copy).map((article) => article.path), verdicts };
    },
  };
}
