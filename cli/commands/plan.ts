import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { InstructionsSource } from "../../shared/audit.js";
import { pathInDocsRepository } from "../../shared/docs-repository.js";
import { CheckFailed, UsageError } from "../../shared/errors.js";
import type { ImpactPlan, PlannedArticle, Sweep } from "../../shared/plan.js";
import { printable } from "../../shared/render/escape.js";
import { plural, shortSha } from "../../shared/render/markdown.js";
import { sweepTitle, sweptOnly } from "../../shared/render/sweep.js";
import { resolveSetting, resolveSettings, settingFlag } from "../../shared/settings.js";
import type { CommandIo } from "../io.js";
import type { BacktestReport } from "../plan/backtest.js";
import type { Explanation } from "../plan/detector.js";
import type { CheckMode } from "../plan/gate.js";
import { RELATIVE_MIN_SCORE } from "../plan/score.js";
import { startSymbolExtractor } from "../plan/symbols/extractor.js";
import { CHANGE_OPTIONS, JUDGE_OPTIONS, OUTPUT_OPTIONS, parsePositiveInt, settingOptions } from "./args.js";
import { defineCommand } from "./define-command.js";

// Only light modules load up front: the symbol worker starts compiling TypeScript first,
// and zod, yaml and the detector load on this thread while it does.

export const command = defineCommand({
  name: "plan",
  description: "Finds the documentation articles a change makes wrong, and says why. No model needed.",
  options: {
    ...CHANGE_OPTIONS,
    check: {
      type: "boolean",
      values: ["strict", "advisory"] as const,
      help: "exit 3 when stale articles exist that the change did not touch; =advisory: exit 0 and print GitHub annotations",
    },
    labels: {
      type: "string",
      value: "A,B",
      help: "the pull request's labels, for checkAcknowledgeLabel (default: from GITHUB_EVENT_PATH in Actions)",
    },
    backtest: {
      type: "string",
      value: "N",
      help: "score the detector on the last N commits that changed code and docs",
    },
    ...settingOptions(["minScore", "include", "docsRepo"]),
    explain: {
      type: "string",
      value: "PATH",
      help: "every signal considered for one article, with scores, and why kept or dropped",
    },
    ...JUDGE_OPTIONS,
    ...OUTPUT_OPTIONS,
  },
  footer: `Exit codes: 0 done (or acknowledged: a "Docs-Impact: none" trailer in the range, or the
checkAcknowledgeLabel label), 2 bad usage or input, 3 --check found stale articles left untouched.`,
  run: async ({ values, io }) => {
    const repo = resolve(io.cwd, values.repo ?? ".");
    const config = values.config === undefined ? undefined : resolve(io.cwd, values.config);
    const backtest = parsePositiveInt("backtest", values.backtest);
    const minScore = settingFlag("minScore", values) as number | undefined;
    // Checked before anything starts; the config's `include` applies once it is loaded.
    settingFlag("include", values);
    if (backtest !== undefined) {
      if (values.diff !== undefined || values.base !== undefined || values.check || values.labels) {
        throw new UsageError("--backtest walks history itself; drop --diff, --base, --check and --labels");
      }
      if (values.judge) throw new UsageError("--backtest scores the plan without a model; drop --judge");
      if (values["docs-repo"] !== undefined)
        throw new UsageError(
          "--backtest walks the history of one repository, where code and docs changed together; drop --docs-repo",
        );
      const [{ repositoryRoot }, { loadConfig }, { BacktestReportSchema, runBacktest }, { Workdir }] =
        await Promise.all([
          import("../git/repository.js"),
          import("../config.js"),
          import("../plan/backtest.js"),
          import("../workdir/workdir.js"),
        ]);
      const repoRoot = await repositoryRoot(repo);
      const loaded = await loadConfig(repoRoot, config);
      const workdir = new Workdir(repoRoot, { env: io.env }).prepare();
      const report = await runBacktest({
        repoRoot,
        config: loaded,
        minScore,
        count: backtest,
        head: values.head,
        workdir,
      });
      for (const warning of workdir.takeWarnings()) {
        if (!values.quiet) io.stderr(`warning: ${printable(warning)}\n`);
      }
      if (values.json && !values.quiet) io.stdout(`${JSON.stringify(BacktestReportSchema.parse(report))}\n`);
      if (!values.json && !values.quiet) io.stdout(renderBacktest(report, backtest));
      return 0;
    }
    const diff =
      values.diff === undefined || values.diff === "-" ? values.diff : resolve(io.cwd, values.diff);
    const extractor = startSymbolExtractor();
    const [{ buildPlan }, { ImpactPlanSchema }] = await Promise.all([
      import("../plan/build-plan.js"),
      import("../../shared/plan.js"),
    ]);
    const built = await buildPlan({
      repo,
      base: values.base,
      head: values.head,
      diff,
      config,
      readStdin: io.readStdin,
      extractor,
      minScore,
      env: io.env,
      docsRepo: values["docs-repo"],
      cwd: io.cwd,
      explain: values.explain === undefined ? undefined : toRepoPath(values.explain),
    }).finally(() => extractor.close());
    const { plan, explanation, config: loadedConfig, repoRoot, docsRepository } = built;
    // The judge (a model call per related article) runs only when asked: --judge or config judge.
    const judge =
      values.judge || loadedConfig.judge
        ? (await import("../plan/judge.js")).judgeSettings(values.judge, loadedConfig)
        : undefined;
    if (judge && (!explanation || plan.related.some((article) => article.path === explanation.path))) {
      const { judgePlan } = await import("../plan/judge-plan.js");
      await judgePlan({
        built,
        judge,
        settings: resolveSettings({ flags: values, env: io.env, config: loadedConfig }),
        io,
        quiet: values.quiet ?? false,
        json: values.json ?? false,
        useCache: true,
        only: explanation && ((path) => path === explanation.path),
      });
    }
    if (explanation) {
      // A path that names nothing is a typo, not an article "with no reason to change".
      const explained = docsRepository
        ? join(docsRepository.root, pathInDocsRepository(docsRepository.name, explanation.path) ?? "")
        : join(repoRoot, explanation.path);
      if (!explanation.isArticle && !existsSync(explained))
        throw new UsageError(
          `--explain ${explanation.path}: no such file in the repository; give an article's path from the repository root, such as docs/guide.md`,
        );
      // What a run would add to this article's first message: the project's style guidance.
      const { loadInstructions } = await import("../run/instructions.js");
      const { sources: instructions } = await loadInstructions(repoRoot, loadedConfig);
      const verdict = [...plan.articles, ...plan.related].find(
        (article) => article.path === explanation.path,
      )?.judge;
      if (values.json && !values.quiet)
        io.stdout(`${JSON.stringify({ ...explanation, instructions, judge: verdict })}\n`);
      const said = verdict && (await import("../plan/judge.js")).verdictLine(verdict);
      if (verdict?.verdict === "stale") {
        explanation.tier = "stale";
        explanation.why = `stale: the judge quoted line ${verdict.line} as false after the change (--judge)`;
      }
      if (!values.json && !values.quiet) io.stdout(renderExplanation(explanation, instructions, said));
      return 0;
    }
    // --quiet wins over --json: nothing but errors.
    if (values.json && !values.quiet) io.stdout(`${JSON.stringify(ImpactPlanSchema.parse(plan))}\n`);
    const includeRelated = resolveSetting("include", { flags: values, config: loadedConfig }).value.includes(
      "related",
    );
    const judged = plan.judge && (await import("../plan/judge.js"));
    const judgeSummary = plan.judge && judged?.summaryLine(plan.judge);
    const judgeNotes = judged?.verdictNotes(plan.related);
    if (!values.json && !values.quiet)
      io.stdout(renderPlan(plan, { includeRelated, judgeSummary, judgeNotes }));
    if (!values.json && !values.quiet)
      for (const warning of plan.warnings) io.stderr(`warning: ${printable(warning)}\n`);
    if (values.check) {
      await checkPlan({
        plan,
        mode: values.check === true ? "strict" : values.check,
        repoRoot,
        acknowledgeLabel: loadedConfig.checkAcknowledgeLabel,
        fromDiff: diff !== undefined,
        labels: values.labels,
        io,
        json: values.json ?? false,
      });
    }
    return 0;
  },
});

/**
 * `--check`: passes when no stale article is left untouched, or when a commit trailer or the
 * pull request's label acknowledges the change (said in one line); otherwise fails with exit 3
 * (strict) or prints GitHub annotations and passes (advisory). Git and the event file are
 * read only when there is something to acknowledge.
 */
async function checkPlan(input: {
  plan: ImpactPlan;
  mode: CheckMode;
  repoRoot: string;
  /** Config `checkAcknowledgeLabel`. */
  acknowledgeLabel: string | undefined;
  fromDiff: boolean;
  labels: string | undefined;
  io: CommandIo;
  json: boolean;
}): Promise<void> {
  const { plan, io } = input;
  const gate = await import("../plan/gate.js");
  const stale = gate.untouchedStale(plan);
  if (stale.length === 0) return;
  const [{ gitAt, commitTrailers }, { readPullRequestEvent }] = await Promise.all([
    import("../git/repository.js"),
    import("../audit/github-event.js"),
  ]);
  // A diff read from a file or stdin has no commits to carry a trailer.
  const commits = input.fromDiff
    ? []
    : await commitTrailers(gitAt(input.repoRoot), plan.base, plan.head, gate.ACKNOWLEDGE_TRAILER);
  const labels =
    input.labels !== undefined
      ? input.labels
          .split(",")
          .map((label) => label.trim())
          .filter(Boolean)
      : input.acknowledgeLabel === undefined
        ? []
        : ((await readPullRequestEvent(io.env))?.labels ?? []);
  const acknowledgement = gate.findAcknowledgement({
    commits,
    labels,
    label: input.acknowledgeLabel,
  });
  // On stdout, where the runner reads workflow commands; beside --json's object, on stderr.
  const write = input.json ? io.stderr : io.stdout;
  if (acknowledgement) {
    write(`${printable(gate.acknowledgementLine(acknowledgement, stale.length))}\n`);
    return;
  }
  if (input.mode === "strict") throw new CheckFailed(gate.checkSummary(stale, plan.sweeps));
  for (const line of gate.checkAnnotations(stale, { onFiles: plan.docsRepository === undefined }))
    write(`${line}\n`);
  io.stderr(`impact plan: advisory: ${printable(gate.checkSummary(stale, plan.sweeps))}\n`);
}

/** `--explain ./docs/a.md` and `docs\\a.md` name the same article as `docs/a.md`. */
function toRepoPath(path: string): string {
  return path.replace(/\\/g, "/").replace(/^(?:\.\/)+/, "");
}

/** A score as the table shows it; "-" for a plan written without scores. */
const score = (value: number | undefined) => (value === undefined ? "-" : value.toFixed(2));

/** The bar of one change in words: the minimum, or the share of the strongest article that raised it. */
function bar(plan: { minScore?: number | undefined; threshold?: number | undefined }): string {
  const minimum = `the minimum ${score(plan.minScore)}`;
  if (plan.threshold === undefined || plan.minScore === undefined || plan.threshold <= plan.minScore)
    return minimum;
  return `${score(plan.threshold)} (${Math.round(RELATIVE_MIN_SCORE * 100)}% of this change's strongest article; ${minimum})`;
}

/** `--explain PATH` for people: the verdict, then every signal kept and dropped. */
export function renderExplanation(
  explanation: Explanation,
  instructions: readonly InstructionsSource[] = [],
  judge?: string,
): string {
  const lines: string[] = [];
  const verdict = !explanation.isArticle
    ? "is not an article"
    : explanation.status === "none"
      ? "has no reason to change"
      : explanation.status === "weak"
        ? `is left out: score ${score(explanation.score)} is below ${bar(explanation)}`
        : explanation.tier === "related" && explanation.status === "impacted"
          ? `is related (listed apart, not flagged): score ${score(explanation.score)}`
          : explanation.status === "new"
            ? `does not exist; the change calls for it as a new article: score ${score(explanation.score)}`
            : `is ${explanation.status}: score ${score(explanation.score)} (${bar(explanation)})`;
  lines.push(
    explanation.related
      ? `${explanation.path} is related, not flagged: ${explanation.related}; versions.editOlder: true makes it a candidate`
      : `${explanation.path} ${verdict}`,
  );
  lines.push(`Tier: ${explanation.why}`);
  if (judge) lines.push(printable(judge));
  if (explanation.sweep)
    lines.push(
      `Sweep: ${explanation.sweep.title}; this article writes ${explanation.sweep.names.join(", ")} (listed under the sweep)`,
    );
  if (explanation.olderVersion)
    lines.push(
      `Scored at ${explanation.olderVersion.factor} of its reasons: ${explanation.olderVersion.folder} documents an older version than ${explanation.olderVersion.newest}`,
    );
  if (explanation.kept.length > 0) {
    lines.push("", "Kept (combined: 1 - the product of (1 - score)):");
    const rows = [["SCORE", "REASON", "EVIDENCE", "FILE", "DETAIL"]];
    for (const reason of explanation.kept)
      rows.push([
        score(reason.score),
        reason.kind,
        reason.stale ? `stale${reason.line === undefined ? "" : ` (line ${reason.line})`}` : "relevance",
        reason.source,
        reason.detail,
      ]);
    lines.push(...table(rows).map((line) => `  ${line}`));
  }
  if (explanation.dropped.length > 0) {
    lines.push("", "Dropped:");
    for (const signal of explanation.dropped)
      lines.push(
        `  ${signal.kind} ${signal.source ? `${signal.source} ` : ""}${signal.detail}: ${signal.why}`,
      );
  }
  for (const entry of explanation.dismissed ?? [])
    lines.push(
      "",
      `Dismissed in the config for ${entry.for === undefined ? "any change" : `changes to ${entry.for}`}: ${entry.reason}`,
    );
  const names = explanation.droppedNames.map((entry) => `${entry.symbol} (${entry.why})`);
  if (names.length > 0) lines.push("", `Names never used as evidence: ${names.join(", ")}`);
  const files = explanation.ignoredFiles.map((file) => `${file.path} (${file.why})`);
  if (files.length > 0) lines.push("", `Changed files not used as evidence: ${files.join(", ")}`);
  if (instructions.length > 0) {
    const shown = instructions.map(
      (source) => `${source.path} (hash ${source.hash}${source.truncated ? ", cut at the size cap" : ""})`,
    );
    lines.push("", `Style instructions a run sends with it: ${shown.map(printable).join(", ")}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Rows of reasons shown per article; the rest are counted (all are in `--json`). */
const MAX_REASON_ROWS = 8;

/** An article's reasons, one group per kind and changed file, in first-seen order. */
function groupReasons(reasons: ImpactPlan["articles"][number]["impact"]) {
  const groups = new Map<string, { kind: string; source: string; details: string[] }>();
  for (const reason of reasons) {
    const key = `${reason.kind}\0${reason.source}`;
    const group = groups.get(key) ?? { kind: reason.kind, source: reason.source, details: [] };
    group.details.push(
      reason.score === undefined ? reason.detail : `${reason.detail} (${score(reason.score)})`,
    );
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** An article's rows in the table: its status and score, then one row per reason group. */
function articleRows(
  articles: readonly PlannedArticle[],
  judgeNotes: ReadonlyMap<string, string> = new Map(),
): string[][] {
  const rows: string[][] = [["ARTICLE", "STATUS", "SCORE", "REASON", "FILE", "DETAIL"]];
  for (const article of articles) {
    if (article.impact.length === 0)
      rows.push([article.path, article.status, "-", "-", article.path, "changed by the diff"]);
    const groups = groupReasons(article.impact);
    groups.slice(0, MAX_REASON_ROWS).forEach((group, index) => {
      const more = group.details.length > 1 ? ` (and ${group.details.length - 1} more)` : "";
      rows.push([
        index === 0 ? article.path : "",
        index === 0 ? (article.tier === "related" ? "related" : article.status) : "",
        index === 0 ? score(article.score) : "",
        group.kind,
        group.source,
        `${group.details[0]}${more}`,
      ]);
    });
    if (groups.length > MAX_REASON_ROWS) {
      const hidden = groups.length - MAX_REASON_ROWS;
      rows.push(["", "", "", "…", plural(hidden, "more file"), "all of them: impact plan --json"]);
    }
    const note = judgeNotes.get(article.path);
    if (note !== undefined) rows.push(["", "", "", "judge", article.judge?.model ?? "", note]);
  }
  return rows.map((row) => row.map(printable));
}

/**
 * The table people read: each article with its status, its reasons and the changed files
 * behind them. Related articles (nothing in them contradicted) are named on one line, or
 * shown in a table of their own with `includeRelated` (`--include related`).
 */
export function renderPlan(
  plan: ImpactPlan,
  options: {
    includeRelated?: boolean;
    judgeSummary?: string | undefined;
    /** The judge's verdict on each related article it read, in a few words (`--judge`). */
    judgeNotes?: ReadonlyMap<string, string> | undefined;
  } = {},
): string {
  const impacted = plan.articles.filter((article) => article.status === "impacted").length;
  const created = plan.articles.filter((article) => article.status === "new");
  const touched = plan.articles.filter((article) => article.status === "touched").length;
  const range =
    plan.base === plan.head ? shortSha(plan.head) : `${shortSha(plan.base)}..${shortSha(plan.head)}`;
  const lines: string[] = [];
  if (plan.articles.length === 0) {
    lines.push(`No article is impacted by ${range}.`);
  } else {
    const fresh = created.length > 0 ? `, ${created.length} new` : "";
    lines.push(
      `${plural(impacted, "article")} impacted, ${touched} touched${fresh} by the change (${range})`,
      "",
    );
    // A sweep's articles are listed under it, not as rows of their own (those with other stale evidence stay).
    const rows = plan.articles.filter((article) => !onlyInSweep(article, plan.sweeps));
    if (rows.length > 0) lines.push(...table(articleRows(rows)));
    for (const sweep of plan.sweeps ?? []) {
      if (rows.length > 0) lines.push("");
      lines.push(...sweepLines(sweep));
    }
    if (created.length > 0) {
      lines.push("", "New articles (impact run --allow-create writes them, following their models):");
      for (const article of created)
        lines.push(
          printable(
            `  ${article.path}${article.models && article.models.length > 0 ? ` (like ${article.models.join(", ")})` : ""}`,
          ),
        );
    }
  }
  const related = plan.related ?? [];
  if (related.length > 0 && options.includeRelated) {
    lines.push("", `Related, not flagged (about the changed code; nothing in them is contradicted):`, "");
    lines.push(...table(articleRows(related, options.judgeNotes)));
  } else if (related.length > 0) {
    const shown = related.slice(0, 10).map((article) => printable(article.path));
    const more = related.length > 10 ? `, and ${related.length - 10} more` : "";
    lines.push("", `Related, not flagged: ${shown.join(", ")}${more} (show them: --include related)`);
  }
  const weak = plan.weak ?? [];
  if (weak.length > 0 && plan.minScore !== undefined) {
    const shown = weak.slice(0, 10).map((article) => `${article.path} (${score(article.score)})`);
    const more = weak.length > 10 ? `, and ${weak.length - 10} more` : "";
    lines.push("", `Below ${bar(plan)}: ${shown.join(", ")}${more}`);
  }
  // Quiet when nothing is impacted: the dropped names matter only next to a finding.
  if (plan.dropped.length > 0 && plan.articles.length > 0) {
    const shown = plan.dropped.slice(0, 20).map((entry) => `${printable(entry.symbol)} (${entry.why})`);
    const more = plan.dropped.length > 20 ? `, and ${plan.dropped.length - 20} more` : "";
    lines.push("", `Not used as evidence: ${shown.join(", ")}${more}`);
  }
  if (options.judgeSummary) lines.push("", printable(options.judgeSummary));
  if (plan.docsRepository)
    lines.push(
      "",
      `Articles named ${printable(plan.docsRepository.name)}:PATH are in the docs repository (--docs-repo); the change is this repository's.`,
    );
  return `${lines.join("\n")}\n`;
}

/** Articles listed under a sweep in the table's place; the rest are in `impact plan --json`. */
const MAX_SWEEP_ROWS = 50;

/** Whether an article is flagged only by a sweep (so it is listed under the sweep, not in the table). */
function onlyInSweep(article: PlannedArticle, sweeps: readonly Sweep[] = []): boolean {
  return article.status === "impacted" && sweptOnly(article.impact, sweeps);
}

/** A sweep for people: one line saying what the change did, then its articles with the old names they write. */
function sweepLines(sweep: Sweep): string[] {
  const files = sweep.files.slice(0, 3).join(", ");
  const moreFiles = sweep.files.length > 3 ? `, and ${sweep.files.length - 3} more` : "";
  const lines = [`Sweep: ${sweepTitle(sweep)} (declared in ${files}${moreFiles}):`];
  const rows = sweep.articles
    .slice(0, MAX_SWEEP_ROWS)
    .map((article) => [
      `  ${article.path}${article.line === undefined ? "" : `:${article.line}`}`,
      article.names.join(", "),
    ]);
  lines.push(...table(rows.map((row) => row.map(printable))));
  if (sweep.articles.length > MAX_SWEEP_ROWS)
    lines.push(
      `  and ${(sweep.articles.length - MAX_SWEEP_ROWS).toLocaleString("en-US")} more (all of them: impact plan --json)`,
    );
  return lines.map(printable);
}

function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index]!)))
      .join("  ")
      .trimEnd(),
  );
}

function percent(value: { hits: number; of: number; rate: number | null }): string {
  return value.rate === null ? `n/a (0/0)` : `${Math.round(value.rate * 100)}% (${value.hits}/${value.of})`;
}

/** The backtest for people: one row per commit, then the scores overall and per reason kind. */
export function renderBacktest(report: BacktestReport, asked: number): string {
  const lines: string[] = [];
  // A shallow clone hides the history the backtest needs; say so rather than "nothing".
  const shallow = report.shallow
    ? "the clone is shallow, so older history is missing (fetch it with `git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout)"
    : "";
  if (report.commits.length === 0) {
    return report.shallow
      ? `Nothing to score up to ${shortSha(report.head)}: ${shallow}.\n`
      : `No commit up to ${shortSha(report.head)} changed both code and an existing article; nothing to score.\n`;
  }
  const found =
    report.commits.length < asked
      ? ` (only ${report.commits.length} found${report.shallow ? `: ${shallow}` : ""})`
      : "";
  lines.push(
    `Backtest over the last ${report.commits.length} commits that changed code and docs${found}`,
    "",
  );
  const rows = [["COMMIT", "CHANGED", "FLAGGED", "FOUND", "SUBJECT"]];
  for (const commit of report.commits) {
    rows.push([
      commit.sha.slice(0, 12),
      String(commit.changed.length),
      String(commit.flagged.length),
      String(commit.found.length),
      commit.subject,
    ]);
  }
  lines.push(...table(rows.map((row) => row.map(printable))), "");
  lines.push(`recall     ${percent(report.recall)}`);
  lines.push(`precision  ${percent(report.precision)}`);
  lines.push(
    `flagged per commit  ${report.flaggedPerCommit === null ? "n/a" : report.flaggedPerCommit.toFixed(1)}`,
  );
  lines.push("");
  const kindRows = [["REASON", "FLAGGED", "RECALL", "PRECISION"]];
  for (const [kind, score] of Object.entries(report.byKind)) {
    kindRows.push([kind, String(score.flagged), percent(score.recall), percent(score.precision)]);
  }
  lines.push(...table(kindRows));
  const missed = report.commits.flatMap((commit) =>
    commit.changed
      .filter((path) => !commit.found.includes(path))
      .map((path) => `${commit.sha.slice(0, 12)} ${path}`),
  );
  if (missed.length > 0) {
    lines.push(
      "",
      "Missed (changed by the commit, not flagged):",
      ...missed.slice(0, 20).map((line) => `  ${line}`),
    );
    if (missed.length > 20) lines.push(`  … and ${missed.length - 20} more`);
  }
  return `${lines.join("\n")}\n`;
}
