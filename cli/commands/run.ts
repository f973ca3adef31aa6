import { resolve, sep } from "node:path";
import type { Audit } from "../../shared/audit.js";
import { ArticlesFailed, Interrupted, UsageError } from "../../shared/errors.js";
import { createRecordingModelClient } from "../../shared/model/replay.js";
import { DEFAULT_MODEL, resolveModelClient } from "../../shared/model/resolve.js";
import type { ModelClient } from "../../shared/model/types.js";
import { printable } from "../../shared/render/escape.js";
import { plural } from "../../shared/render/markdown.js";
import { renderReport } from "../../shared/render/report.js";
import { parseShard } from "../../shared/shard.js";
import { ignoreOutputDir, OUTPUT_DIR } from "../audit/files.js";
import { writeStepSummary } from "../audit/step-summary.js";
import type { Command, CommandIo } from "../io.js";
import { buildPlan } from "../plan/build-plan.js";
import { DEFAULT_CONCURRENCY, DEFAULT_MAX_TURNS } from "../run/budget.js";
import { TerminalProgress } from "../run/progress.js";
import { runImpact, selectArticles } from "../run/run-impact.js";
import { COMMON_OPTIONS, parseCommandArgs, parsePositiveInt } from "./args.js";

const OPTIONS = {
  ...COMMON_OPTIONS,
  out: { type: "string" },
  patch: { type: "string" },
  apply: { type: "boolean" },
  model: { type: "string" },
  concurrency: { type: "string" },
  "max-turns": { type: "string" },
  only: { type: "string" },
  shard: { type: "string" },
  router: { type: "string" },
  "allow-create": { type: "boolean" },
  record: { type: "string" },
  "include-touched": { type: "boolean" },
  stream: { type: "boolean" },
} as const;

const HELP = `Usage: impact run [options]

Finds the documentation articles a change makes wrong and fixes each one with an LLM
agent that edits through small, exact, reasoned edits. Writes an audit JSON and one
combined patch; changes your files only with --apply.

Options:
  --repo DIR          the repository (default: the current directory)
  --base REV          the revision before the change (default: HEAD~1)
  --head REV          the revision after the change (default: HEAD)
  --diff FILE|-       read a unified diff instead of asking git
  --config FILE       the config file (default: impact.config.json at the repository root)
  --out FILE          the audit JSON (default: .impact/audit.json in the repository)
  --patch FILE        the combined patch (default: .impact/impact.patch in the repository)
  --apply             write the edits to the working tree after a run that completed
  --model NAME        the model (default: IMPACT_MODEL, then gpt-4.1-mini); replay:FILE answers from a recording
  --concurrency N     articles worked on at once (default: 4)
  --max-turns N       model calls per article before it fails (default: 12)
  --only GLOB         only the articles whose path matches GLOB
  --shard I/N         only shard I of N (articles split by a stable hash of their path)
  --router URL        drive the model through an impact router instead of an API key
  --allow-create      let the agent create new articles under the docs globs
  --record FILE       save every model exchange to FILE (for --model replay:FILE)
  --include-touched   also send articles the change already edits
  --stream            stream model answers
  --json              print the audit summary as one JSON object
  --quiet             print nothing but errors

Environment: OPENAI_API_KEY, OPENAI_BASE_URL, IMPACT_MODEL, IMPACT_ROUTER_URL, IMPACT_ROUTER_TOKEN.
Exit codes: 0 done, 1 an article failed, 2 bad usage or input, 130 interrupted.
`;

export const command: Command = async (argv, io) => {
  const { values } = parseCommandArgs("run", argv, OPTIONS);
  if (values.help) {
    io.stdout(HELP);
    return 0;
  }
  const concurrency = parsePositiveInt("concurrency", values.concurrency);
  const maxTurns = parsePositiveInt("max-turns", values["max-turns"]);
  const shard = values.shard === undefined ? undefined : parseShard(values.shard);
  if (shard === null) throw new UsageError(`--shard takes I/N with 1 ≤ I ≤ N, got "${values.shard}"`);
  if (values.only !== undefined && values.only.trim() === "") throw new UsageError("--only takes a glob");
  const repo = resolve(io.cwd, values.repo ?? ".");
  const diff = values.diff === undefined || values.diff === "-" ? values.diff : resolve(io.cwd, values.diff);

  const built = await buildPlan({
    repo,
    base: values.base,
    head: values.head,
    diff,
    config: values.config === undefined ? undefined : resolve(io.cwd, values.config),
    readStdin: io.readStdin,
  });
  if (!values.json && !values.quiet)
    for (const warning of built.plan.warnings) io.stderr(`warning: ${printable(warning)}\n`);
  // The agents read and edit the checked-out files: another head's articles would not match
  // the plan, the hashes or the patches.
  if (built.articleSource.kind === "revision") {
    throw new UsageError(
      `the agents edit the checked-out files, so --head must be the checked-out commit: run git checkout ${values.head} first, or leave --head out`,
    );
  }
  // The flag, then the environment, then the config file, then the default.
  const modelName = values.model ?? io.env.IMPACT_MODEL ?? built.config.model;
  const selection = {
    ...(values.only === undefined ? {} : { only: values.only }),
    ...(shard ? { shard } : {}),
  };
  // A change that impacts no article needs no model: the PR check passes without a key.
  const needsModel = selectArticles(built.plan.articles, selection).some(
    (article) => article.status === "impacted" || values["include-touched"],
  );
  let model: ModelClient = needsModel
    ? await resolveModelClient({
        ...(modelName ? { model: modelName } : {}),
        env: io.env,
        cwd: io.cwd,
        ...(values.stream ? { stream: true } : {}),
        ...(values.router
          ? {
              router: {
                url: values.router,
                ...(io.env.IMPACT_ROUTER_TOKEN ? { token: io.env.IMPACT_ROUTER_TOKEN } : {}),
              },
            }
          : {}),
      })
    : unusedModel(modelName ?? DEFAULT_MODEL);
  const recording = values.record
    ? createRecordingModelClient(model, resolve(io.cwd, values.record), { env: io.env })
    : undefined;
  if (recording) model = recording;

  const showProgress = io.isTTY && !values.json && !values.quiet;
  let progress: TerminalProgress | undefined;
  const out = resolve(io.cwd, values.out ?? resolve(built.repoRoot, OUTPUT_DIR, "audit.json"));
  const patch = resolve(io.cwd, values.patch ?? resolve(built.repoRoot, OUTPUT_DIR, "impact.patch"));
  const outputDir = resolve(built.repoRoot, OUTPUT_DIR) + sep;
  if (out.startsWith(outputDir) || patch.startsWith(outputDir)) await ignoreOutputDir(built.repoRoot);
  let result: Awaited<ReturnType<typeof runImpact>>;
  try {
    result = await runImpact({
      built,
      model,
      out,
      patch,
      apply: values.apply ?? false,
      allowCreate: values["allow-create"] ?? false,
      includeTouched: values["include-touched"] ?? false,
      ...selection,
      concurrency: concurrency ?? built.config.concurrency ?? DEFAULT_CONCURRENCY,
      maxTurns: maxTurns ?? built.config.maxTurns ?? DEFAULT_MAX_TURNS,
      env: io.env,
      signal: io.signal,
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

  const { audit, interrupted, refused } = result;
  // In GitHub Actions, the job summary shows what the run did (reasons and edits, no diffs).
  await writeStepSummary(renderReport(audit, { omitDiffs: true }), io.env);
  if (values.json) io.stdout(`${JSON.stringify(summaryOf(audit, out, patch))}\n`);
  else if (!values.quiet) io.stdout(renderSummary(audit, out, patch, io));
  if (interrupted)
    throw new Interrupted("interrupted: unfinished articles are cancelled in the audit; no file was changed");
  if (refused !== undefined) {
    throw new UsageError(
      `--apply wrote nothing: ${refused}; the audit and patch were written (impact apply can retry)`,
      { code: "stale" },
    );
  }
  if (audit.totals.failed > 0) throw new ArticlesFailed(audit.totals.failed);
  return 0;
};

/** The `--json` output: one object with where the outputs are, the totals and each article's status. */
function summaryOf(audit: Audit, out: string, patch: string) {
  return {
    runId: audit.runId,
    base: audit.base,
    head: audit.head,
    model: audit.model,
    applied: audit.applied,
    ...(audit.shard ? { shard: audit.shard } : {}),
    audit: out,
    patch,
    totals: audit.totals,
    articles: audit.articles.map((article) => ({
      path: article.path,
      status: article.status,
      edits: article.edits.length,
      ...(article.error ? { error: article.error } : {}),
    })),
  };
}

function renderSummary(audit: Audit, out: string, patch: string, io: CommandIo): string {
  const shown = (path: string) => (path.startsWith(`${io.cwd}/`) ? path.slice(io.cwd.length + 1) : path);
  const lines = audit.articles.map((article) => {
    const edits = article.edits.length > 0 ? ` (${plural(article.edits.length, "edit")})` : "";
    const why =
      article.status === "failed" || article.status === "skipped" ? `: ${printable(article.summary)}` : "";
    return `${article.status.padEnd(9)} ${printable(article.path)}${edits}${why}`;
  });
  const t = audit.totals;
  if (lines.length === 0) lines.push("no impacted articles");
  lines.push(
    "",
    `${t.updated} updated, ${t.unchanged} unchanged, ${t.failed} failed${t.cancelled > 0 ? `, ${t.cancelled} cancelled` : ""}; ${(t.promptTokens + t.completionTokens).toLocaleString("en-US")} tokens`,
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
