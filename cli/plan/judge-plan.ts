import { pathInDocsRepository } from "../../shared/docs-repository.js";
import { UsageError } from "../../shared/errors.js";
import { REPLAY_PREFIX } from "../../shared/model/model-names.js";
import { priceOf } from "../../shared/model/prices.js";
import type { JudgeSummary } from "../../shared/plan.js";
import { printable } from "../../shared/render/escape.js";
import type { ResolvedSettings } from "../../shared/settings.js";
import type { CommandIo } from "../io.js";
import { TerminalProgress } from "../run/progress.js";
import { endpointIdentity } from "../run/result-cache.js";
import { VERSION } from "../version.js";
import { readArticles } from "./articles.js";
import type { BuiltPlan } from "./build-plan.js";
import { emptyJudgeSummary, JUDGE_CACHE, type JudgeSettings, judgeable, judgeRelated } from "./judge.js";

/** Why the judge cannot run with these settings (a recording as the model, no API key), or undefined. */
function judgeUnavailable(model: string, settings: ResolvedSettings): string | undefined {
  if (model.startsWith(REPLAY_PREFIX))
    return `needs a live model, not a recording (${model.slice(0, 60)}): set judge.model in the config`;
  // A router answers with the agent's own prompt and tools, never a judge's: the judge calls the API itself.
  if (!settings.apiKey)
    return `asks a model: set OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible server)${
      settings.routerUrl ? "; a router serves only the agent's calls" : ""
    }`;
  return undefined;
}

export interface JudgePlanInput {
  built: Pick<
    BuiltPlan,
    | "plan"
    | "changeSet"
    | "config"
    | "repoRoot"
    | "articleSource"
    | "workdir"
    | "listed"
    | "docsRepository"
    | "olderVersions"
  >;
  judge: JudgeSettings;
  /** The model, key, base URL, router and concurrency, resolved as `impact run` resolves them. */
  settings: ResolvedSettings;
  io: CommandIo;
  /** No progress line and no warnings (`--quiet`); `--json` keeps the warnings off stdout anyway. */
  quiet: boolean;
  json: boolean;
  /** Read and write the judge cache (off with `impact run --no-cache`). */
  useCache: boolean;
  /** Judge only the related articles this takes (`--explain PATH`; a run's `--only` and `--shard`). */
  only?: ((path: string) => boolean) | undefined;
}

/**
 * The judge over a built plan, for `plan --judge` and `run --judge`: the model resolved and
 * checked as a run does it (the OpenAI-compatible API itself, since a router serves only the
 * agent; a bad key or base URL stops here: exit 2, one line), the sealed judge cache, and a
 * progress line on a terminal. Changes `built.plan` in place.
 */
export async function judgePlan(input: JudgePlanInput): Promise<JudgeSummary> {
  const { built, settings, io } = input;
  const model = input.judge.model ?? settings.model;
  const unavailable = judgeUnavailable(model, settings);
  if (unavailable !== undefined) {
    if (input.judge.requested)
      throw new UsageError(`--judge ${unavailable}; or leave --judge out`, { code: "config" });
    // On by config alone: a teammate or a bot without a key still gets the plan, and is told.
    const skipped = `config "judge" is on, but the judge ${unavailable}; or turn config "judge" off`;
    if (!input.quiet) io.stderr(`warning: the judge was skipped: ${printable(skipped)}\n`);
    built.plan.judge = { ...emptyJudgeSummary(model), skipped };
    return built.plan.judge;
  }
  const scope = { only: input.only, skip: built.olderVersions };
  const total = Math.min(
    input.judge.maxArticles,
    built.plan.related.filter((article) => judgeable(article.path, scope)).length,
  );
  // Nothing to judge: no model call, not even the preflight.
  if (total === 0) {
    built.plan.judge = emptyJudgeSummary(model);
    return built.plan.judge;
  }
  const [{ resolveModelClient }, { preflightModel }] = await Promise.all([
    import("../../shared/model/resolve.js"),
    import("../../shared/model/preflight.js"),
  ]);
  const client = await resolveModelClient({
    settings: { ...settings, model, routerUrl: undefined, routerToken: undefined },
    cwd: io.cwd,
  });
  await preflightModel(client, io.signal);
  const cache = input.useCache ? await built.workdir.cache(JUDGE_CACHE) : undefined;
  const warn = (message: string) => {
    if (!input.quiet) io.stderr(`warning: ${printable(message)}\n`);
  };
  for (const warning of built.workdir.takeWarnings()) warn(warning);
  const docs = built.docsRepository;
  const root = docs?.root ?? built.repoRoot;
  const revision =
    !docs && built.articleSource.kind === "revision" ? built.articleSource.revision : undefined;
  const decoder = new TextDecoder();
  const readArticle = async (path: string) => {
    const own = docs ? pathInDocsRepository(docs.name, path) : path;
    if (own === undefined) return undefined;
    const [article] = await readArticles(root, [own], { revision, listed: built.listed });
    if (article === undefined) return undefined;
    return typeof article.content === "string" ? article.content : decoder.decode(article.content);
  };
  const progress =
    io.isTTY && !input.json && !input.quiet
      ? new TerminalProgress({ write: io.stderr, total, label: "impact judge" })
      : undefined;
  try {
    return await judgeRelated({
      plan: built.plan,
      changeSet: built.changeSet,
      readArticle,
      client,
      endpoint: endpointIdentity({ baseUrl: client.endpoint }),
      impactVersion: VERSION,
      maxArticles: input.judge.maxArticles,
      concurrency: settings.concurrency,
      signal: io.signal,
      cache,
      price: priceOf(model, built.config.prices),
      ...scope,
      progress,
      onWarning: warn,
    });
  } finally {
    progress?.stop();
  }
}
