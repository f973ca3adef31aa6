import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { z } from "zod";
import { type BacktestReplay, runBacktest } from "../cli/plan/backtest.js";
import { ConfigSchema, type ImpactConfig } from "../shared/config.js";

/**
 * The truth bench: `impact plan --backtest` over a corpus of public repositories that keep
 * docs beside code (bench/truth/corpus.json pins each one's tip and the config a maintainer
 * would write). Prints recall, precision and flagged articles per commit, per repository
 * and overall, beside two baselines scored on the same commits: "the article names a
 * changed file's basename" and "mappings only".
 *
 *   npm run bench:truth [-- [--config corpus|default] [--commits N] [NAME...]]
 *
 * The repositories are not downloaded here: each must already be a clone under
 * $IMPACT_TRUTH_CORPUS (default /work/corpus, else ~/.cache/impact-truth), in a folder named
 * like its corpus entry; the bench names what is missing and how to get it.
 */

const RepositorySchema = z.strictObject({
  name: z.string(),
  url: z.string(),
  sha: z.string().regex(/^[0-9a-f]{40}$/),
  ecosystem: z.string(),
  config: z.unknown(),
});
const CorpusSchema = z.strictObject({
  commitsPerRepository: z.number().int().positive(),
  repositories: z.array(RepositorySchema),
});
type Repository = z.infer<typeof RepositorySchema>;

/** The goal of the detector on this corpus. */
const GOAL = { recall: 0.9, precision: 0.5, flaggedPerCommit: 3, repositoryRecall: 0.75 };

interface Tally {
  commits: number;
  truth: number;
  found: number;
  flagged: number;
}
type Scores = { impact: Tally; basename: Tally; mappings: Tally };

const emptyTally = (): Tally => ({ commits: 0, truth: 0, found: 0, flagged: 0 });

function add(tally: Tally, truth: Set<string>, flagged: Iterable<string>): void {
  const list = [...new Set(flagged)];
  tally.commits += 1;
  tally.truth += truth.size;
  tally.flagged += list.length;
  tally.found += list.filter((path) => truth.has(path)).length;
}

function sumTallies(tallies: Tally[]): Tally {
  const total = emptyTally();
  for (const tally of tallies) {
    total.commits += tally.commits;
    total.truth += tally.truth;
    total.found += tally.found;
    total.flagged += tally.flagged;
  }
  return total;
}

const recall = (tally: Tally) => (tally.truth === 0 ? 0 : tally.found / tally.truth);
const precision = (tally: Tally) => (tally.flagged === 0 ? 0 : tally.found / tally.flagged);
const perCommit = (tally: Tally) => (tally.commits === 0 ? 0 : tally.flagged / tally.commits);

function cells(tally: Tally): string[] {
  return [recall(tally).toFixed(2), precision(tally).toFixed(2), perCommit(tally).toFixed(1)];
}

/** Articles whose text names a changed code file's basename (`options.ts`). */
function basenameBaseline(replay: BacktestReplay): string[] {
  const names = [
    ...new Set(replay.changeSet.files.filter((file) => !file.binary).map((file) => basename(file.path))),
  ];
  const decoder = new TextDecoder();
  return replay.articles
    .filter((article) => {
      const text = typeof article.content === "string" ? article.content : decoder.decode(article.content);
      return names.some((name) => text.includes(name));
    })
    .map((article) => article.path);
}

function corpusFolder(): string {
  const fromEnv = process.env.IMPACT_TRUTH_CORPUS;
  if (fromEnv) return fromEnv;
  return existsSync("/work/corpus") ? "/work/corpus" : join(homedir(), ".cache", "impact-truth");
}

function hasCommit(dir: string, sha: string): boolean {
  try {
    execFileSync("git", ["-C", dir, "cat-file", "-e", `${sha}^{commit}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows)
    for (const [index, cell] of row.entries()) widths[index] = Math.max(widths[index] ?? 0, cell.length);
  return rows
    .map((row) =>
      row
        .map((cell, index) => cell.padEnd(widths[index]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

export async function run(argv = process.argv.slice(2)): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: "string", default: "corpus" },
      commits: { type: "string" },
      corpus: { type: "string" },
    },
  });
  const here = dirname(fileURLToPath(import.meta.url));
  // Compiled to dist/bench/; the corpus file stays in the source tree.
  const corpusFile =
    values.corpus ??
    [join(here, "truth", "corpus.json"), join(here, "..", "..", "bench", "truth", "corpus.json")].find(
      existsSync,
    );
  if (!corpusFile) {
    console.error("bench:truth: bench/truth/corpus.json not found");
    return 2;
  }
  const corpus = CorpusSchema.parse(JSON.parse(readFileSync(corpusFile, "utf8")));
  const count = values.commits === undefined ? corpus.commitsPerRepository : Number(values.commits);
  if (!Number.isInteger(count) || count <= 0) {
    console.error("bench:truth: --commits must be a positive whole number");
    return 2;
  }
  const variant = values.config;
  if (variant !== "corpus" && variant !== "default") {
    console.error(`bench:truth: --config must be corpus or default, not "${variant}"`);
    return 2;
  }
  const folder = corpusFolder();
  const wanted = corpus.repositories.filter(
    (repository) => positionals.length === 0 || positionals.includes(repository.name),
  );
  const present: Repository[] = [];
  for (const repository of wanted) {
    const dir = join(folder, repository.name);
    if (existsSync(dir) && hasCommit(dir, repository.sha)) present.push(repository);
    else
      console.error(
        `missing ${repository.name}: git clone ${repository.url} ${dir} (needs commit ${repository.sha})`,
      );
  }
  if (present.length === 0) {
    console.error(`bench:truth: no corpus repository found under ${folder} (set IMPACT_TRUTH_CORPUS)`);
    return 1;
  }
  console.log(
    `Truth bench: ${count} commits per repository, config "${variant}", corpus ${folder}${present.length < wanted.length ? ` (${wanted.length - present.length} missing, left out)` : ""}\n`,
  );

  const rows: string[][] = [
    [
      "REPOSITORY",
      "ECOSYSTEM",
      "COMMITS",
      "RECALL",
      "PREC",
      "FLAG/C",
      "|",
      "BASENAME R",
      "P",
      "F/C",
      "|",
      "MAPPINGS R",
      "P",
      "F/C",
      "SECONDS",
    ],
  ];
  const all: Scores[] = [];
  for (const repository of present) {
    const config: ImpactConfig =
      variant === "corpus" ? ConfigSchema.parse(repository.config) : ConfigSchema.parse({});
    const scores: Scores = { impact: emptyTally(), basename: emptyTally(), mappings: emptyTally() };
    const started = performance.now();
    const basenames = new Map<string, string[]>();
    const truths = new Map<string, Set<string>>();
    const report = await runBacktest({
      repoRoot: join(folder, repository.name),
      config,
      count,
      head: repository.sha,
      onReplay: (replay) => {
        basenames.set(replay.sha, basenameBaseline(replay));
        truths.set(replay.sha, replay.truth);
      },
    });
    for (const commit of report.commits) {
      const truth = truths.get(commit.sha) ?? new Set(commit.changed);
      add(scores.impact, truth, commit.flagged);
      add(scores.basename, truth, basenames.get(commit.sha) ?? []);
      add(scores.mappings, truth, commit.byKind.mapping ?? []);
    }
    all.push(scores);
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    rows.push([
      repository.name,
      repository.ecosystem,
      String(scores.impact.commits),
      ...cells(scores.impact),
      "|",
      ...cells(scores.basename),
      "|",
      ...cells(scores.mappings),
      seconds,
    ]);
    console.error(`${repository.name}: ${scores.impact.commits} commits in ${seconds} s`);
  }
  const overall: Scores = {
    impact: sumTallies(all.map((scores) => scores.impact)),
    basename: sumTallies(all.map((scores) => scores.basename)),
    mappings: sumTallies(all.map((scores) => scores.mappings)),
  };
  rows.push([
    "OVERALL",
    "",
    String(overall.impact.commits),
    ...cells(overall.impact),
    "|",
    ...cells(overall.basename),
    "|",
    ...cells(overall.mappings),
    "",
  ]);
  console.log(table(rows));
  const lowest = Math.min(...all.map((scores) => recall(scores.impact)));
  const checks = [
    [`recall ≥ ${GOAL.recall}`, recall(overall.impact) >= GOAL.recall],
    [`precision ≥ ${GOAL.precision}`, precision(overall.impact) >= GOAL.precision],
    [`flagged per commit ≤ ${GOAL.flaggedPerCommit}`, perCommit(overall.impact) <= GOAL.flaggedPerCommit],
    [`every repository's recall ≥ ${GOAL.repositoryRecall}`, lowest >= GOAL.repositoryRecall],
  ] as const;
  console.log(`\nGoal: ${checks.map(([name, met]) => `${name} ${met ? "met" : "not met"}`).join("; ")}`);
  console.log(
    "Recall and precision are micro-averaged over commits (found/changed, found/flagged); baselines ran on the same commits.",
  );
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await run();
}
