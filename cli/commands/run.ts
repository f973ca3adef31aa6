import { resolve, sep } from "node:path";
import type { Audit } from "../../shared/audit.js";
import { CONCURRENCY_LIMIT, MAX_TURNS_LIMIT } from "../../shared/config.js";
import { ArticlesFailed, Interrupted, UsageError } from "../../shared/errors.js";
import { preflightModel } from "../../shared/model/preflight.js";
import { createRecordingModelClient } from "../../shared/model/replay.js";
import { DEFAULT_MODEL, resolveModelClient } from "../../shared/model/resolve.js";
import type { ModelClient } from "../../shared/model/types.js";
import { renderReport } from "../../shared/render/report.js";
import { parseShard } from "../../shared/shard.js";
import { ignoreOutputDir, OUTPUT_DIR } from "../audit/files.js";
import { writeStepSummary } from "../audit/step-summary.js";
import type { CommandIo } from "../io.js";
import { buildPlan } from "../plan/build-plan.js";
import { DEFAULT_CONCURRENCY, DEFAULT_MAX_TURNS } from "../run/budget.js";
import { TerminalProgress } from "../run/progress.js";
import { runImpact, selectArticles } from "../run/run-impact.js";
import { CHANGE_OPTIONS, OUTPUT_OPTIONS, parsePositiveInt } from "./args.js";
import { defineCommand } from "./define-command.js";

export const command = defineCommand({
  name: "run",
  description: `Finds the documentation articles a change makes wrong and fixes each one with an LLM
agent that edits through small, exact, reasoned edits. Writes an audit JSON and one
combined patch; changes your files only with --apply.`,
  options: {
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
    apply: { type: "boolean", help: "write the edits to the working tree after a run that completed" },
    model: {
      type: "string",
      value: "NAME",
      help: "the model (default: IMPACT_MODEL, then gpt-4.1-mini); replay:FILE answers from a recording",
    },
    concurrency: {
      type: "string",
      value: "N",
      help: `articles worked on at once (default: ${DEFAULT_CONCURRENCY}, at most ${CONCURRENCY_LIMIT})`,
    },
    "max-turns": {
      type: "string",
      value: "N",
      help: `model calls per article before it fails (default: ${DEFAULT_MAX_TURNS}, at most ${MAX_TURNS_LIMIT})`,
    },
    only: { type: "string", value: "GLOB", help: "only the articles whose path matches GLOB" },
    shard: {
      type: "string",
      value: "I/N",
      help: "only shard I of N (articles split by a stable hash of their path)",
    },
    router: {
      type: "string",
      value: "URL",
      help: "drive the model through an impact router instead of an API key",
    },
    "allow-create": { type: "boolean", help: "let the agent create new articles under the docs globs" },
    record: {
      type: "string",
      value: "FILE",
      help: "save every model exchange to FILE (for --model replay:FILE)",
    },
    "include-touched": { type: "boolean", help: "also send articles the change already edits" },
    stream: { type: "boolean", help: "stream model answers" },
    json: { type: "boolean", help: "print the audit summary as one JSON object" },
    quiet: OUTPUT_OPTIONS.quiet,
  },
  footer: `Environment: OPENAI_API_KEY, OPENAI_BASE_URL, IMPACT_MODEL, IMPACT_ROUTER_URL, IMPACT_ROUTER_TOKEN.
Exit codes: 0 done, 1 an article failed, 2 bad usage, input or model setup, 130 interrupted.`,
  run: async ({ values, io }) => {
    const concurrency = parsePositiveInt("concurrency", values.concurrency, CONCURRENCY_LIMIT);
    const maxTurns = parsePositiveInt("max-turns", values["max-turns"], MAX_TURNS_LIMIT);
    const shard = values.shard === undefined ? undefined : parseShard(values.shard);
    if (shard === null) throw new UsageError(`--shard takes I/N with 1 ≤ I ≤ N, got "${values.shard}"`);
    if (values.only !== undefined && values.only.trim() === "") throw new UsageError("--only takes a glob");
    const repo = resolve(io.cwd, values.repo ?? ".");
    const diff =
      values.diff === undefined || values.diff === "-" ? values.diff : resolve(io.cwd, values.diff);

    const built = await buildPlan({
      repo,
      base: values.base,
      head: values.head,
      diff,
      config: values.config === undefined ? undefined : resolve(io.cwd, values.config),
      readStdin: io.readStdin,
    });
    if (!values.json && !values.quiet)
      for (const warning of built.plan.warnings) io.stderr(`warning: ${warning}\n`);
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
    // A wrong key or base URL fails here, once, before any article starts or any file is written.
    if (needsModel) await preflightModel(model, io.signal);
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
    if (values.json && !values.quiet) io.stdout(`${JSON.stringify(summaryOf(audit, out, patch))}\n`);
    if (!values.json && !values.quiet) io.stdout(renderSummary(audit, out, patch, io));
    if (interrupted)
      throw new Interrupted(
        "interrupted: unfinished articles are cancelled in the audit; no file was changed",
      );
    if (refused !== undefined) {
      throw new UsageError(
        `--apply wrote nothing: ${refused}; the audit and patch were written (impact apply can retry)`,
        { code: "stale" },
      );
    }
    if (audit.totals.failed > 0) throw new ArticlesFailed(audit.totals.failed);
    return 0;
  },
});

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
    const edits =
      article.edits.length > 0
        ? ` (${article.edits.length} edit${article.edits.length === 1 ? "" : "s"})`
        : "";
    const why = article.status === "failed" || article.status === "skipped" ? `: ${article.summary}` : "";
    return `${article.status.padEnd(9)} ${article.path}${edits}${why}`;
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
