import { access } from "node:fs/promises";
import { join, resolve } from "node:path";
import { GitError, UsageError } from "../../shared/errors.js";
import type { BacktestReport } from "../plan/backtest.js";
import type { ConfigProposal } from "../plan/propose-config.js";
import { parsePositiveInt } from "./args.js";
import { defineCommand } from "./define-command.js";

/** Commits the proposal and the defaults are scored on, unless `--backtest N` says otherwise. */
export const INIT_BACKTEST_COMMITS = 20;

export const command = defineCommand({
  name: "init",
  description: `Proposes an impact.config.json from the repository's layout and history: which files are
articles, which records to leave alone, which code folders map to which docs. Each
proposal comes with its evidence, and the whole with its backtest score beside the
defaults'. Nothing is written without --write.`,
  options: {
    repo: { type: "string", value: "DIR", help: "the repository (default: the current directory)" },
    write: { type: "boolean", help: "write impact.config.json (refused when one exists)" },
    backtest: {
      type: "string",
      value: "N",
      help: `score on the last N commits that changed code and docs (default ${INIT_BACKTEST_COMMITS})`,
    },
    json: { type: "boolean", help: "print {config, proposals, score, defaults} as one JSON object" },
  },
  footer: "Exit codes: 0 done, 2 bad usage, or impact.config.json exists with --write.",
  run: async ({ values, io }) => {
    const count = parsePositiveInt("backtest", values.backtest) ?? INIT_BACKTEST_COMMITS;
    const [
      { repositoryRoot },
      { CONFIG_FILE },
      { proposeRepositoryConfig },
      { runBacktest },
      { ConfigSchema },
    ] = await Promise.all([
      import("../git.js"),
      import("../config.js"),
      import("../plan/propose-config.js"),
      import("../plan/backtest.js"),
      import("../../shared/config.js"),
    ]);
    const repoRoot = await repositoryRoot(resolve(io.cwd, values.repo ?? "."));
    const { gitAt, resolveCommit } = await import("../git.js");
    if ((await resolveCommit(gitAt(repoRoot), "HEAD")) === undefined)
      throw new GitError(
        "the repository has no commits yet: impact init reads its files and history; commit something first",
      );
    const target = join(repoRoot, CONFIG_FILE);
    // Refused before any work: --write never replaces a config someone wrote.
    if (values.write && (await exists(target)))
      throw new UsageError(
        `${CONFIG_FILE} already exists; edit it, or move it away and run impact init --write again`,
      );
    const { proposal, commits } = await proposeRepositoryConfig(repoRoot);
    const score = await runBacktest({ repoRoot, config: ConfigSchema.parse(proposal.config), count });
    const defaults = await runBacktest({ repoRoot, config: ConfigSchema.parse({}), count });
    const file = `${JSON.stringify(configFile(proposal), null, 2)}\n`;
    if (values.json) {
      io.stdout(
        `${JSON.stringify({ config: configFile(proposal), proposals: proposal.proposals, score: summary(score), defaults: summary(defaults) })}\n`,
      );
    } else {
      io.stdout(renderProposal(proposal, commits, file, { proposal: score, defaults }));
    }
    if (values.write) {
      const { writeFileAtomic } = await import("../../shared/fs.js");
      await writeFileAtomic(target, file);
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

/** The file's content: only the keys the proposal has evidence for. */
function configFile(proposal: ConfigProposal): Record<string, unknown> {
  const { docs, ignore, mappings, versions } = proposal.config;
  return {
    ...(docs.length > 0 ? { docs } : {}),
    ...(ignore.length > 0 ? { ignore } : {}),
    ...(mappings.length > 0 ? { mappings } : {}),
    ...(versions ? { versions } : {}),
  };
}

function summary(report: BacktestReport) {
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

/** The proposal for people: each entry with its evidence, the file, and the two scores. */
export function renderProposal(
  proposal: ConfigProposal,
  commits: number,
  file: string,
  scores: { proposal: BacktestReport; defaults: BacktestReport },
): string {
  const lines: string[] = [
    `Proposed impact.config.json (from the layout and ${commits} commits of history)`,
    "",
  ];
  if (proposal.proposals.length === 0) lines.push("No documentation found; the defaults stay.");
  for (const entry of proposal.proposals) {
    const value = typeof entry.value === "string" ? entry.value : `${entry.value.code} → ${entry.value.docs}`;
    lines.push(`${entry.key.padEnd(8)}  ${value}`, `          ${entry.evidence}`);
  }
  lines.push("", file.trimEnd(), "");
  const scored = scores.proposal.commits.length;
  if (scored === 0) {
    lines.push(
      scores.proposal.shallow
        ? "Nothing to score it on: the clone is shallow, so its history is missing (git fetch --unshallow, or fetch-depth: 0 in actions/checkout), then run impact init again."
        : "No commit changed both code and an existing article: nothing to score it on.",
    );
  } else {
    lines.push(`Backtest over the last ${scored} commits that changed code and docs:`);
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
  }
  return `${lines.join("\n")}\n`;
}
