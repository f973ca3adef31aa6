import { resolve, sep } from "node:path";
import type { Audit } from "../../shared/audit.js";
import { ArticlesFailed, Interrupted, UsageError } from "../../shared/errors.js";
import { REPLAY_PREFIX } from "../../shared/model/model-names.js";
import { formatUsd, type ModelPrice, priceOf } from "../../shared/model/prices.js";
import type { ModelClient } from "../../shared/model/types.js";
import { printable } from "../../shared/render/escape.js";
import { plural } from "../../shared/render/markdown.js";
import {
  type ResolvedSettings,
  resolveSettings,
  type SettingName,
  settingEnvNames,
} from "../../shared/settings.js";
import { parseShard, type Shard } from "../../shared/shard.js";
import { writeStepSummary } from "../audit/step-summary.js";
import { repositoryRoot } from "../git/repository.js";
import type { CommandIo } from "../io.js";
import { articleSourceFor, type BuiltPlan, buildPlan } from "../plan/build-plan.js";
import { TerminalProgress } from "../run/progress.js";
import { endpointIdentity, RESULT_CACHE } from "../run/result-cache.js";
import {
  coveredBy,
  plannedArticles,
  type RunImpactOptions,
  type RunImpactResult,
  runImpact,
  selectArticles,
} from "../run/run-impact.js";
import { VERSION } from "../version.js";
import { DEFAULT_AUDIT, DEFAULT_PATCH, WORKDIR, type Workdir } from "../workdir/workdir.js";
import { CHANGE_OPTIONS, JUDGE_OPTIONS, OUTPUT_OPTIONS, settingOptions } from "./args.js";
import { defineCommand, type OptionSpecs, type OptionValues } from "./define-command.js";

/** The settings whose environment variables a run reads. */
const MODEL_SETTINGS: SettingName[] = ["apiKey", "baseUrl", "model", "routerUrl", "routerToken"];

const OPTIONS = {
  ...CHANGE_OPTIONS,
  out: {
    type: "string",
    value: "FILE",
    help: "the audit JSON (default: .impact/audit.json in the repository)",
  },
  patch: {
    type: "string",
    value: "FILE",
    help: "the combined patch (default: .impact/impact.patch in the repository)",
  },
  apply: {
    type: "boolean",
    help: "write the edits to the working tree after a run that completed (the docs repository's, with --docs-repo)",
  },
  ...settingOptions(["docsRepo", "model", "concurrency", "maxTurns"]),
  only: { type: "string", value: "GLOB", help: "only the articles whose path matches GLOB" },
  shard: {
    type: "string",
    value: "I/N",
    help: "only shard I of N (articles split by a stable hash of their path)",
  },
  ...settingOptions(["routerUrl"]),
  "allow-create": {
    type: "boolean",
    help: "let the agent create new articles under the docs globs (config allowCreate)",
  },
  record: {
    type: "string",
    value: "FILE",
    help: "save every model exchange to FILE (for --model replay:FILE)",
  },
  "include-touched": { type: "boolean", help: "also send articles the change already edits" },
  ...settingOptions(["include"]),
  ...JUDGE_OPTIONS,
  stream: { type: "boolean", help: "stream model answers" },
  "no-cache": {
    type: "boolean",
    help: "send every article to the model, even when an earlier result fits",
  },
  "cache-dir": {
    type: "string",
    value: "DIR",
    help: "where results are cached (default: .impact/cache/results in the repository)",
  },
  ...settingOptions(["maxCostUsd"]),
  json: { type: "boolean", help: "print the audit summary as one JSON object" },
  quiet: OUTPUT_OPTIONS.quiet,
} as const satisfies OptionSpecs;

type RunValues = OptionValues<typeof OPTIONS>;

export const command = defineCommand({
  name: "run",
  description: `Finds the documentation articles a change makes wrong and fixes each one with an LLM
agent that edits through small, exact, reasoned edits. Writes an audit JSON and one
combined patch; changes your files only with --apply.`,
  options: OPTIONS,
  footer: `Environment: ${settingEnvNames(MODEL_SETTINGS).join(", ")}.
Exit codes: 0 done, 1 an article failed, 2 bad usage, input or model setup, 130 interrupted.`,
  run: async ({ values, io }) => {
    const flags = await checkFlags(values, io);
    const { built, out, patch, outputsInWorkdir } = await planRun(values, io, flags);
    const settings = resolveSettings({ flags: values, env: io.env, config: built.config });
    // --judge (or config judge): related articles the model finds stale on a quoted line run as stale ones.
    const judge =
      values.judge || built.config.judge
        ? (await import("../plan/judge.js")).judgeSettings(values.judge, built.config)
        : undefined;
    if (judge) {
      const { judgePlan } = await import("../plan/judge-plan.js");
      const summary = await judgePlan({
        built,
        judge,
        settings,
        io,
        quiet: values.quiet ?? false,
        json: values.json ?? false,
        useCache: !values["no-cache"] && values.record === undefined,
        // A shard or --only judges only the articles it covers.
        only: coveredBy({ only: values.only, shard: flags.shard }),
      });
      if (!values.quiet && !values.json)
        io.stderr(`${printable((await import("../plan/judge.js")).summaryLine(summary))}\n`);
    }
    const includeRelated = settings.include.includes("related");
    const selection = selectArticles(plannedArticles(built.plan, includeRelated), {
      only: values.only,
      shard: flags.shard,
      includeTouched: values["include-touched"] ?? false,
    });
    // A change that impacts no article needs no model: the PR check passes without a key.
    const needsModel = selection.toRun.length > 0;
    const { model, price } = await openModel(io, values.stream ?? false, settings, built, needsModel);
    // A recording must hold every call, and a replay answers from one: neither mixes with cached results.
    const replaying = settings.model.startsWith(REPLAY_PREFIX);
    const useCache = !values["no-cache"] && values.record === undefined && !replaying && needsModel;
    // The input held: what the plan gave the caches is written now, and the run may write its outputs.
    await built.workdir.save();
    const recording = values.record
      ? (await import("../../shared/model/replay.js")).createRecordingModelClient(
          model,
          resolve(io.cwd, values.record),
          { env: io.env },
        )
      : undefined;
    const results = await openOutputs(values, io, built.workdir, { outputsInWorkdir, useCache });
    const endpoint = endpointIdentity({
      baseUrl: model.endpoint,
      router: values.router || io.env.IMPACT_ROUTER_URL || undefined,
    });
    const { audit, interrupted, refused } = await runShowingProgress(
      values,
      io,
      {
        built,
        model: recording ?? model,
        out,
        patch,
        apply: values.apply ?? false,
        allowCreate: values["allow-create"] ?? built.config.allowCreate,
        selection,
        shard: flags.shard,
        concurrency: settings.concurrency,
        maxTurns: settings.maxTurns,
        env: io.env,
        signal: io.signal,
        cache: results && { store: results, impactVersion: VERSION, endpoint },
        price,
        maxCostUsd: settings.maxCostUsd,
      },
      recording,
    );
    await reportRun(values, io, { audit, out, patch, maxCostUsd: settings.maxCostUsd });
    return exitCode(audit, interrupted, refused);
  },
});

/** The flags and the environment, checked before the plan is built (the config joins after). */
async function checkFlags(
  values: RunValues,
  io: CommandIo,
): Promise<{
  shard: Shard | undefined;
  repo: string;
  diff: string | undefined;
}> {
  resolveSettings({ flags: values, env: io.env });
  const shard = values.shard === undefined ? undefined : parseShard(values.shard);
  if (shard === null) throw new UsageError(`--shard takes I/N with 1 ≤ I ≤ N, got "${values.shard}"`);
  if (values.only !== undefined && values.only.trim() === "") throw new UsageError("--only takes a glob");
  const repo = resolve(io.cwd, values.repo ?? ".");
  const diff = values.diff === undefined || values.diff === "-" ? values.diff : resolve(io.cwd, values.diff);
  // The agents read and edit the checked-out files: another head's articles would not match
  // the plan, the hashes or the patches. Refused before the plan is built.
  if ((await articleSourceFor(await repositoryRoot(repo), values.head)).kind === "revision") {
    throw new UsageError(
      `the agents edit the checked-out files, so --head must be the checked-out commit: run git checkout ${values.head} first, or leave --head out`,
    );
  }
  return { shard, repo, diff };
}

/** The plan, where the outputs go, and whether `.impact/` can hold them; prints the plan's warnings. */
async function planRun(values: RunValues, io: CommandIo, flags: { repo: string; diff: string | undefined }) {
  const built = await buildPlan({
    repo: flags.repo,
    base: values.base,
    head: values.head,
    diff: flags.diff,
    config: values.config === undefined ? undefined : resolve(io.cwd, values.config),
    readStdin: io.readStdin,
    env: io.env,
    docsRepo: values["docs-repo"],
    cwd: io.cwd,
    // Cache writes wait until the rest of the input (the model, the budget) was checked.
    deferState: true,
  });
  const { workdir } = built;
  const out = resolve(io.cwd, values.out ?? resolve(built.repoRoot, DEFAULT_AUDIT));
  const patch = resolve(io.cwd, values.patch ?? resolve(built.repoRoot, DEFAULT_PATCH));
  const outputDir = workdir.path + sep;
  const outputsInWorkdir = out.startsWith(outputDir) || patch.startsWith(outputDir);
  const refusal = await workdir.refusal();
  if (outputsInWorkdir && refusal) {
    throw new UsageError(
      `${refusal}, so Impact writes nothing there: remove it, or pass --out and --patch outside ${WORKDIR}/`,
      { code: "input" },
    );
  }
  if (!values.json && !values.quiet)
    for (const warning of built.plan.warnings) io.stderr(`warning: ${printable(warning)}\n`);
  return { built, out, patch, outputsInWorkdir };
}

/**
 * The model client and its price, checked: a `--max-cost` needs a known price, and a wrong
 * key or base URL fails here, once, before any article starts or any file is written.
 */
async function openModel(
  io: CommandIo,
  stream: boolean,
  settings: ResolvedSettings,
  built: BuiltPlan,
  needsModel: boolean,
): Promise<{ model: ModelClient; price: ModelPrice | undefined }> {
  // The model clients (and the OpenAI SDK behind them) load only when an article needs one.
  const modelModules = needsModel
    ? await Promise.all([import("../../shared/model/resolve.js"), import("../../shared/model/preflight.js")])
    : undefined;
  const model = modelModules
    ? await modelModules[0].resolveModelClient({ settings, cwd: io.cwd, stream })
    : unusedModel(settings.model);
  const price = priceOf(model.model, built.config.prices);
  if (settings.maxCostUsd !== undefined && needsModel && price === undefined) {
    throw new UsageError(
      `--max-cost needs the price of model "${model.model}", which Impact does not know: add it under "prices" in the config (US dollars per million tokens)`,
      { code: "config" },
    );
  }
  if (modelModules) await modelModules[1].preflightModel(model, io.signal);
  return { model, price };
}

/** Readies `.impact/` for the outputs and opens the result cache (undefined: not used); prints the workdir's warnings. */
async function openOutputs(
  values: RunValues,
  io: CommandIo,
  workdir: Workdir,
  options: { outputsInWorkdir: boolean; useCache: boolean },
) {
  if (options.outputsInWorkdir) await workdir.ensureIgnored();
  const results = !options.useCache
    ? undefined
    : values["cache-dir"] === undefined
      ? await workdir.cache(RESULT_CACHE)
      : await workdir.cacheAt(resolve(io.cwd, values["cache-dir"]), RESULT_CACHE);
  if (!values.quiet)
    for (const warning of workdir.takeWarnings()) io.stderr(`warning: ${printable(warning)}\n`);
  return results;
}

/** runImpact with the terminal's progress line (a TTY, no --json or --quiet) and warnings on stderr. */
async function runShowingProgress(
  values: RunValues,
  io: CommandIo,
  options: Omit<RunImpactOptions, "onWarning" | "onSelected" | "progress">,
  recording: { flush(): Promise<void> } | undefined,
): Promise<RunImpactResult> {
  const showProgress = io.isTTY && !values.json && !values.quiet;
  let progress: TerminalProgress | undefined;
  try {
    return await runImpact({
      ...options,
      onWarning: (message) => {
        if (!values.quiet) io.stderr(`warning: ${message}\n`);
      },
      onSelected: (total) => {
        if (showProgress) progress = new TerminalProgress({ write: io.stderr, total });
      },
      progress: {
        articleStarted: (path) => progress?.articleStarted(path),
        articleFinished: (path, status) => progress?.articleFinished(path, status),
        tokens: (count) => progress?.tokens(count),
        retries: (count) => progress?.retries(count),
      },
    });
  } finally {
    progress?.stop();
    await recording?.flush();
  }
}

/** The job summary in GitHub Actions, then the summary (or `--json` object) and a budget note. */
async function reportRun(
  values: RunValues,
  io: CommandIo,
  run: { audit: Audit; out: string; patch: string; maxCostUsd: number | undefined },
): Promise<void> {
  const { audit, out, patch } = run;
  // In GitHub Actions, the job summary shows what the run did (reasons and edits, no diffs).
  await writeStepSummary(
    async () => (await import("../../shared/render/report.js")).renderReport(audit, { omitDiffs: true }),
    io.env,
  );
  if (values.quiet) return;
  if (values.json) io.stdout(`${JSON.stringify(summaryOf(audit, out, patch))}\n`);
  else {
    const { renderSpend, shownStatus } = await import("../../shared/render/report.js");
    io.stdout(renderSummary(audit, out, patch, io, renderSpend, shownStatus));
  }
  const overBudget = audit.articles.filter((article) => article.skipReason === "budget").length;
  if (overBudget > 0) {
    io.stderr(
      `impact run: ${plural(overBudget, "article was", "articles were")} skipped: the run reached its --max-cost budget of ${formatUsd(run.maxCostUsd ?? 0)}\n`,
    );
  }
}

/** 0 for a run that did its work; otherwise the error that says why it did not (main maps it to the exit code). */
function exitCode(audit: Audit, interrupted: boolean, refused: string | undefined): number {
  // A refused key or an unknown model stopped the run: one line, exit 2 (the audit says so too).
  const setup = audit.articles.find((article) => article.error?.code === "model_setup")?.error;
  if (setup) throw new UsageError(setup.message, { code: "config" });
  if (interrupted)
    throw new Interrupted("interrupted: unfinished articles are cancelled in the audit; no file was changed");
  if (refused !== undefined) {
    throw new UsageError(
      `--apply wrote nothing: ${refused}; the audit and patch were written (impact apply can retry)`,
      { code: "stale" },
    );
  }
  // An article whose model gave up after a refused edit may still be wrong: it fails the run too.
  const failed = audit.totals.failed + audit.totals.gave_up;
  if (failed > 0) throw new ArticlesFailed(failed);
  return 0;
}

/** The `--json` output: one object with where the outputs are, the totals and each article's status. */
function summaryOf(audit: Audit, out: string, patch: string) {
  return {
    runId: audit.runId,
    base: audit.base,
    head: audit.head,
    model: audit.model,
    applied: audit.applied,
    shard: audit.shard,
    audit: out,
    patch,
    totals: audit.totals,
    articles: audit.articles.map((article) => ({
      path: article.path,
      status: article.status,
      edits: article.edits.length,
      error: article.error,
    })),
  };
}

function renderSummary(
  audit: Audit,
  out: string,
  patch: string,
  io: CommandIo,
  renderSpend: (totals: Audit["totals"]) => string,
  shownStatus: (article: Audit["articles"][number]) => string,
): string {
  const shown = (path: string) => (path.startsWith(`${io.cwd}/`) ? path.slice(io.cwd.length + 1) : path);
  const lines = audit.articles.map((article) => {
    const edits = article.edits.length > 0 ? ` (${plural(article.edits.length, "edit")})` : "";
    const why =
      article.status === "failed" || article.status === "skipped"
        ? `: ${printable(article.summary)}`
        : article.status === "gave_up" && article.error
          ? `: ${printable(article.error.message)}`
          : "";
    return `${shownStatus(article).padEnd(9)} ${printable(article.path)}${edits}${why}`;
  });
  const t = audit.totals;
  if (lines.length === 0) lines.push("no impacted articles");
  lines.push(
    "",
    `${t.updated} updated, ${t.unchanged} unchanged, ${t.failed} failed${t.gave_up > 0 ? `, ${t.gave_up} gave up` : ""}${t.skipped > 0 ? `, ${t.skipped} skipped` : ""}${t.cancelled > 0 ? `, ${t.cancelled} cancelled` : ""}; ${renderSpend(t)}`,
    `audit: ${shown(out)}`,
    `patch: ${shown(patch)}${audit.applied ? " (applied)" : ""}`,
  );
  return `${lines.join("\n")}\n`;
}

/** Stands in when no article goes to the model; being called would be a bug. */
function unusedModel(model: string): ModelClient {
  return {
    model,
    complete: async () => {
      throw new Error("bug: no article needed the model, yet it was called");
    },
  };
}
