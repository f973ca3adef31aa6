import { access } from "node:fs/promises";
import { join, resolve } from "node:path";
import { DEFAULT_IGNORE_GLOBS } from "../../shared/config.js";
import { GitError, UsageError } from "../../shared/errors.js";
import { plural } from "../../shared/render/markdown.js";
import type { BacktestReplay, BacktestReport } from "../plan/backtest.js";
import type { ConfigProposal } from "../plan/propose-config.js";
import { parsePositiveInt } from "./args.js";
import { defineCommand } from "./define-command.js";

/** Commits the proposal and the defaults are scored on, unless `--backtest N` says otherwise. */
export const INIT_BACKTEST_COMMITS = 20;
/** The share of flagged articles that should be ones maintainers changed, unless `--target-precision P`. */
export const DEFAULT_TARGET_PRECISION = 0.6;

export const command = defineCommand({
  name: "init",
  description: `Proposes an impact.config.json from the repository's layout and history: which files are
articles, which records to leave alone, which code folders map to which docs. Each
proposal comes with its evidence, and the whole with its backtest score beside the
defaults'. Nothing is written without --write.`,
  options: {
    repo: { type: "string", value: "DIR", help: "the repository (default: the current directory)" },
    write: { type: "boolean", help: "write impact.config.json (refused when one exists)" },
    "docs-repo": {
      type: "string",
      value: "DIR",
      help: "the docs are a separate repository: read its layout for docs, ignore and versions (no backtest)",
    },
    backtest: {
      type: "string",
      value: "N",
      help: `score on the last N commits that changed code and docs (default ${INIT_BACKTEST_COMMITS})`,
    },
    "target-precision": {
      type: "string",
      value: "P",
      help: `pick minScore for this backtest precision, 0 to 1 (default ${DEFAULT_TARGET_PRECISION})`,
    },
    json: { type: "boolean", help: "print {config, proposals, score, defaults} as one JSON object" },
  },
  footer: "Exit codes: 0 done, 2 bad usage, or impact.config.json exists with --write.",
  run: async ({ values, io }) => {
    const count = parsePositiveInt("backtest", values.backtest) ?? INIT_BACKTEST_COMMITS;
    const target = parseTargetPrecision(values["target-precision"]);
    const [
      { repositoryRoot },
      { CONFIG_FILE },
      { proposeRepositoryConfig },
      { runBacktest, minScoreRows, pickMinScore },
      { ConfigSchema },
    ] = await Promise.all([
      import("../git/repository.js"),
      import("../config.js"),
      import("../plan/propose-config.js"),
      import("../plan/backtest.js"),
      import("../../shared/config.js"),
    ]);
    const repoRoot = await repositoryRoot(resolve(io.cwd, values.repo ?? "."));
    const { gitAt, resolveCommit } = await import("../git/repository.js");
    if ((await resolveCommit(gitAt(repoRoot), "HEAD")) === undefined)
      throw new GitError(
        "the repository has no commits yet: impact init reads its files and history; commit something first",
      );
    const configPath = join(repoRoot, CONFIG_FILE);
    // Refused before any work: --write never replaces a config someone wrote.
    if (values.write && (await exists(configPath)))
      throw new UsageError(
        `${CONFIG_FILE} already exists; edit it, or move it away and run impact init --write again`,
      );
    if (values["docs-repo"] !== undefined) {
      const [{ openDocsRepository }, { proposeDocsRepositoryConfig }] = await Promise.all([
        import("../git/docs-repository.js"),
        import("../plan/propose-config.js"),
      ]);
      const docs = await openDocsRepository({
        flag: values["docs-repo"],
        cwd: io.cwd,
        codeRoot: repoRoot,
        config: {},
      });
      const { proposal } = await proposeDocsRepositoryConfig(repoRoot, docs!.root);
      const file = `${JSON.stringify(configFile(proposal), null, 2)}\n`;
      if (values.json)
        io.stdout(`${JSON.stringify({ config: configFile(proposal), proposals: proposal.proposals })}\n`);
      else io.stdout(renderDocsRepositoryProposal(proposal, file));
      if (values.write) {
        const { writeFileAtomic } = await import("../../shared/fs.js");
        await writeFileAtomic(configPath, file);
        if (!values.json) io.stdout(`\nWrote ${CONFIG_FILE}.\n`);
      }
      return 0;
    }
    const { proposal, commits } = await proposeRepositoryConfig(repoRoot);
    // Both rows over the same commits and answers: the window is the proposal's articles.
    const window = ConfigSchema.parse(proposal.config);
    const replays: BacktestReplay[] = [];
    // At a minimum of 0 only the relative bar applies; each minimum worth trying is scored from these plans.
    const unbounded = await runBacktest({
      repoRoot,
      config: { ...window, minScore: 0 },
      count,
      onReplay: (replay) => replays.push(replay),
    });
    const subjects = new Map(unbounded.commits.map((commit) => [commit.sha, commit.subject]));
    const rows = minScoreRows(unbounded.head, replays, subjects);
    const picked = pickMinScore(rows, target);
    if (picked) {
      proposal.config.minScore = picked.row.minScore;
      proposal.proposals.push({
        key: "minScore",
        value: picked.row.minScore,
        evidence: picked.reached
          ? `the lowest minimum reaching precision ${target} over ${plural(unbounded.commits.length, "commit")}: precision ${percent(picked.row.report.precision)}, recall ${percent(picked.row.report.recall)}`
          : `no minimum reaches precision ${target} over ${plural(unbounded.commits.length, "commit")}; the most precise: precision ${percent(picked.row.report.precision)}, recall ${percent(picked.row.report.recall)}`,
      });
    }
    // Nothing flagged at any minimum: the proposal scores as the default minimum does, from the same plans.
    const scoredRow = picked?.row ?? rows.find((row) => row.minScore === window.minScore) ?? rows[0]!;
    const score = { ...scoredRow.report, shallow: unbounded.shallow };
    const defaults = await runBacktest({ repoRoot, config: ConfigSchema.parse({}), count, window });
    const worse = worseThan(score, defaults);
    const file = `${JSON.stringify(configFile(proposal), null, 2)}\n`;
    if (values.json) {
      io.stdout(
        `${JSON.stringify({ config: configFile(proposal), proposals: proposal.proposals, score: summary(score), defaults: summary(defaults), worseThanDefaults: worse })}\n`,
      );
    } else {
      io.stdout(renderProposal(proposal, commits, file, { proposal: score, defaults, worse }));
    }
    if (values.write) {
      const { writeFileAtomic } = await import("../../shared/fs.js");
      await writeFileAtomic(configPath, file);
      if (!values.json) io.stdout(`\nWrote ${CONFIG_FILE}.\n`);
    }
    return 0;
  },
});

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** `--target-precision P`: a number above 0, at most 1. */
function parseTargetPrecision(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TARGET_PRECISION;
  const target = Number(value);
  if (value.trim() === "" || !Number.isFinite(target) || target <= 0 || target > 1)
    throw new UsageError(
      `--target-precision takes a number above 0, at most 1 (such as 0.6), got "${value}"`,
    );
  return target;
}

/**
 * Whether the proposal scores worse than the defaults on the same commits: lower on recall
 * or precision, and higher on neither.
 */
function worseThan(proposal: BacktestScores, defaults: BacktestScores): boolean {
  const { recall, precision } = differences(proposal, defaults);
  return (recall < 0 || precision < 0) && recall <= 0 && precision <= 0;
}

/** Whether the proposal is lower than the defaults on one of recall and precision and higher on the other. */
function tradesWith(proposal: BacktestScores, defaults: BacktestScores): boolean {
  const { recall, precision } = differences(proposal, defaults);
  return (recall < 0 && precision > 0) || (recall > 0 && precision < 0);
}

function differences(proposal: BacktestScores, defaults: BacktestScores) {
  const rate = (value: { rate: number | null }) => value.rate ?? 0;
  return {
    recall: rate(proposal.recall) - rate(defaults.recall),
    precision: rate(proposal.precision) - rate(defaults.precision),
  };
}

type BacktestScores = Pick<
  BacktestReport,
  "commits" | "recall" | "precision" | "flaggedPerCommit" | "shallow"
>;

/** The file's content: only the keys the proposal has evidence for (ignores only when they add to the defaults). */
function configFile(proposal: ConfigProposal): Record<string, unknown> {
  const { docs, ignore, mappings, minScore, versions, docsRepo } = proposal.config;
  const extendsIgnores = ignore.length > DEFAULT_IGNORE_GLOBS.length;
  return {
    docsRepo,
    ...(docs.length > 0 ? { docs } : {}),
    ...(extendsIgnores ? { ignore } : {}),
    ...(mappings.length > 0 ? { mappings } : {}),
    minScore,
    versions,
  };
}

function summary(report: BacktestScores) {
  return {
    commits: report.commits.length,
    recall: report.recall,
    precision: report.precision,
    flaggedPerCommit: report.flaggedPerCommit,
  };
}

function percent(value: { hits: number; of: number; rate: number | null }): string {
  return value.rate === null ? "n/a" : `${Math.round(value.rate * 100)}% (${value.hits}/${value.of})`;
}

/** Each proposal line: its key and value, then its evidence. */
function proposalLines(proposal: ConfigProposal): string[] {
  const lines: string[] = [];
  for (const entry of proposal.proposals) {
    const value =
      typeof entry.value === "object" ? `${entry.value.code} → ${entry.value.docs}` : String(entry.value);
    lines.push(`${entry.key.padEnd(8)}  ${value}`, `          ${entry.evidence}`);
  }
  return lines;
}

/** The proposal for a separate docs repository: its layout, the file, and why there is no score. */
function renderDocsRepositoryProposal(proposal: ConfigProposal, file: string): string {
  return `${[
    "Proposed impact.config.json (from the layout of the docs repository and the code repository)",
    "",
    ...proposalLines(proposal),
    "",
    file.trimEnd(),
    "",
    "No backtest: the code's history does not name the docs repository's files, so there is nothing to score on (history coupling across the two repositories is off).",
  ].join("\n")}\n`;
}

/** The proposal for people: each entry with its evidence, the file, and the two scores. */
export function renderProposal(
  proposal: ConfigProposal,
  commits: number,
  file: string,
  scores: { proposal: BacktestScores; defaults: BacktestScores; worse: boolean },
): string {
  const lines: string[] = [
    `Proposed impact.config.json (from the layout and ${commits} commits of history)`,
    "",
  ];
  if (proposal.proposals.length === 0) lines.push("No documentation found; the defaults stay.");
  lines.push(...proposalLines(proposal));
  lines.push("", file.trimEnd(), "");
  const scored = scores.proposal.commits.length;
  if (scored === 0) {
    lines.push(
      scores.proposal.shallow
        ? "Nothing to score it on: the clone is shallow, so its history is missing (git fetch --unshallow, or fetch-depth: 0 in actions/checkout), then run impact init again."
        : "No commit changed both code and an existing article: nothing to score it on.",
    );
  } else {
    lines.push(
      `Backtest over the last ${scored} commits that changed code and the proposal's articles (both rows: the same commits and answers):`,
    );
    const rows = [
      ["", "RECALL", "PRECISION", "FLAGGED/COMMIT"],
      ...(
        [
          ["proposal", scores.proposal],
          ["defaults", scores.defaults],
        ] as const
      ).map(([name, report]) => [
        name,
        percent(report.recall),
        percent(report.precision),
        report.flaggedPerCommit === null ? "n/a" : report.flaggedPerCommit.toFixed(1),
      ]),
    ];
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
    for (const row of rows)
      lines.push(
        row
          .map((cell, column) => cell.padEnd(widths[column]!))
          .join("  ")
          .trimEnd(),
      );
    if (scores.worse)
      lines.push(
        "",
        "The proposal scores worse than the defaults on these commits: keep the defaults (no impact.config.json), or edit the proposal before writing it.",
      );
    else if (tradesWith(scores.proposal, scores.defaults)) {
      const lower = differences(scores.proposal, scores.defaults).recall < 0 ? "recall" : "precision";
      const higher = lower === "recall" ? "precision" : "recall";
      lines.push(
        "",
        `The proposal scores lower than the defaults on ${lower} and higher on ${higher} on these commits: write it if ${higher} matters more to you, else keep the defaults.`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}
