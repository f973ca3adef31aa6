import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import picomatch from "picomatch";
import { z } from "zod";
import { articleSelector } from "../cli/plan/articles.js";
import { type BacktestReplay, replayCommit, runBacktest } from "../cli/plan/backtest.js";
import { selectEvidence } from "../cli/plan/detect/evidence.js";
import { genericNames } from "../cli/plan/generic-names.js";
import { summaryLine } from "../cli/plan/judge.js";
import { proposeRepositoryConfig } from "../cli/plan/propose-config.js";
import { languageOf } from "../cli/plan/symbols/languages/index.js";
import type { ChangeSet } from "../shared/changeset.js";
import { ConfigSchema, type ImpactConfig } from "../shared/config.js";
import type { ImpactPlan } from "../shared/plan.js";
import { type BenchJudge, openBenchJudge } from "./truth-judge.js";

/**
 * The truth bench: `impact plan --backtest` over a corpus of public repositories that keep
 * docs beside code (bench/truth/corpus.json pins each one's tip and the config a maintainer
 * would write). Prints recall, precision and flagged articles per commit, per repository
 * and overall, beside two baselines scored on the same commits: "the article names a
 * changed file's basename" and "mappings only".
 *
 *   npm run bench:truth [-- [--config corpus|default|init] [--commits N] [--split | --half older|newer]
 *                           [--min-score X] [--dump FILE] [--judge] [NAME...]]
 *
 * `--config default` scores the defaults (no impact.config.json), `--config init` what
 * `impact init` proposes for each repository. `--split` also scores each repository's older
 * half of commits (where the defaults were tuned) and its newer half (held out) apart;
 * `--half older` replays and scores only the older half (of both the doc-changing and the
 * code-only commits), about half the time, for tuning; `--half newer` only the held-out half.
 * `--min-score` is the whole bar, as in `impact plan` (no share of the strongest article); `--dump` writes every scored commit
 * (truth, flagged and weak articles with their scores and reasons) as JSON for analysis.
 *
 * When bench/truth/code-only.json is there (per repository, pinned commits that changed code
 * and no article), it also replays those: the right plan for them flags nothing. It prints
 * the share of them with nothing flagged and the flags per commit. `--pick-code-only N`
 * (re)writes that file: the newest N such commits reachable from each pinned tip.
 *
 * `--judge` also runs the judge of `impact plan --judge` (one model call per related article,
 * cli/plan/judge.ts) over each replayed plan, with the model configured from the environment
 * as `impact run` reads it, and prints the judged figures as rows of their own after the
 * unjudged ones (which it leaves as they are).
 *
 * When bench/truth/labels.json is there (hand labels: was each changed article's edit caused
 * by the rest of its commit?), it also prints recall and precision over the caused edits.
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

/**
 * Commits that changed code and no article (bench/truth/code-only.json), newest first per
 * repository: the abstention half of the bench. Picked by `--pick-code-only`.
 */
const CodeOnlySchema = z.strictObject({
  about: z.string(),
  perRepository: z.number().int().positive(),
  commits: z.record(z.string(), z.array(z.string().regex(/^[0-9a-f]{40}$/))),
});
type CodeOnly = z.infer<typeof CodeOnlySchema>;

/** The plan on commits that changed code and no article: how often it stayed silent. */
export interface SilenceTally {
  commits: number;
  /** Commits with nothing flagged. */
  silent: number;
  flagged: number;
}

const emptySilence = (): SilenceTally => ({ commits: 0, silent: 0, flagged: 0 });

function sumSilence(tallies: readonly SilenceTally[]): SilenceTally {
  const total = emptySilence();
  for (const tally of tallies) {
    total.commits += tally.commits;
    total.silent += tally.silent;
    total.flagged += tally.flagged;
  }
  return total;
}

const silentShare = (tally: SilenceTally) => (tally.commits === 0 ? 0 : tally.silent / tally.commits);
const silenceCells = (tally: SilenceTally): string[] => [
  String(tally.commits),
  silentShare(tally).toFixed(2),
  (tally.commits === 0 ? 0 : tally.flagged / tally.commits).toFixed(2),
];

/** The goal on code-only commits: nothing flagged on most, few flags overall. */
const SILENCE_GOAL = { silentShare: 0.7, flaggedPerCommit: 0.5 };

function silenceGoalMet(tally: SilenceTally): string {
  const perCommitValue = tally.commits === 0 ? 0 : tally.flagged / tally.commits;
  return [
    `nothing flagged on ≥ ${SILENCE_GOAL.silentShare * 100} % ${silentShare(tally) >= SILENCE_GOAL.silentShare ? "met" : "not met"}`,
    `flags per commit ≤ ${SILENCE_GOAL.flaggedPerCommit} ${perCommitValue <= SILENCE_GOAL.flaggedPerCommit ? "met" : "not met"}`,
  ].join("; ");
}

/**
 * The newest `count` non-merge commits reachable from `head` that changed a source file that
 * can be evidence and no article (docs globs less ignores, at that commit's config): the
 * commits the right plan is silent on.
 */
export async function pickCodeOnly(
  dir: string,
  head: string,
  config: ImpactConfig,
  count: number,
): Promise<string[]> {
  const log = execFileSync(
    "git",
    [
      "-C",
      dir,
      "log",
      "--no-merges",
      "--no-renames",
      "--max-count=3000",
      "--format=%x1e%H%x1f%P",
      "--name-only",
      head,
    ],
    { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
  );
  const isArticle = articleSelector(config);
  const isDocs = picomatch(config.docs, { dot: false });
  const ignored = picomatch(config.evidence.ignore, { dot: true });
  const picked: string[] = [];
  for (const record of log.split("\x1e")) {
    if (picked.length >= count) break;
    const [header = "", ...names] = record.split("\n");
    const [sha, parents = ""] = header.split("\x1f");
    if (!sha || parents.trim() === "") continue;
    const files = names.filter((name) => name !== "");
    if (files.some(isArticle)) continue;
    if (files.some((path) => !isDocs(path) && !ignored(path) && languageOf(path) !== undefined))
      picked.push(sha);
  }
  return picked;
}

/**
 * Hand labels of changed articles (bench/truth/labels.json): whether the maintainers' edit of
 * the article follows from the commit's other files (`caused`) or would be as right without
 * them (`unrelated`: a typo or link sweep, a site restructure, another feature's docs).
 * A rule that reads the change finds an unrelated edit only by chance, so the bench also prints
 * recall over the changed articles not labelled unrelated. `unsure` counts as caused.
 */
const LabelSchema = z.strictObject({
  repository: z.string(),
  sha: z.string().regex(/^[0-9a-f]{40}$/),
  article: z.string(),
  label: z.enum(["caused", "unrelated", "unsure"]),
  why: z.string().min(1),
});
const LabelsSchema = z.strictObject({ about: z.string(), labels: z.array(LabelSchema) });
export type Label = z.infer<typeof LabelSchema>;
/** The labels by changed article (labelKey). */
export type Labels = ReadonlyMap<string, Label["label"]>;

/** The goal of the detector on this corpus. */
const GOAL = { recall: 0.85, precision: 0.55, flaggedPerCommit: 2.5, repositoryRecall: 0.75 };

/** One replayed code-only commit: what the plan flagged on it (nothing, ideally). */
interface Silent {
  /** 0 for the newest. */
  age: number;
  sha: string;
  flagged: string[];
}

function silenceOf(entries: readonly Silent[]): SilenceTally {
  return {
    commits: entries.length,
    silent: entries.filter((entry) => entry.flagged.length === 0).length,
    flagged: entries.reduce((total, entry) => total + entry.flagged.length, 0),
  };
}

interface Tally {
  commits: number;
  truth: number;
  found: number;
  flagged: number;
}
type Scores = { impact: Tally; basename: Tally; mappings: Tally };

/** One scored commit of one repository, newest first within the repository. */
interface Scored {
  repository: string;
  /** 0 for the newest scored commit. */
  age: number;
  sha: string;
  truth: string[];
  impact: string[];
  basename: string[];
  mappings: string[];
}

const emptyTally = (): Tally => ({ commits: 0, truth: 0, found: 0, flagged: 0 });

function add(tally: Tally, truth: Set<string>, flagged: Iterable<string>): void {
  const list = [...new Set(flagged)];
  tally.commits += 1;
  tally.truth += truth.size;
  tally.flagged += list.length;
  tally.found += list.filter((path) => truth.has(path)).length;
}

/** The three scorers' tallies summed over several repositories or halves. */
function sumScores(list: Scores[]): Scores {
  return {
    impact: sumTallies(list.map((scores) => scores.impact)),
    basename: sumTallies(list.map((scores) => scores.basename)),
    mappings: sumTallies(list.map((scores) => scores.mappings)),
  };
}

/** A table row's cells for the three scorers, the two baselines after a bar each. */
function scoreCells(scores: Scores): string[] {
  return [...cells(scores.impact), "|", ...cells(scores.basename), "|", ...cells(scores.mappings)];
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

/** Which parts of GOAL a tally meets, given the tallies of its repositories: one line. */
function goalMet(overall: Tally, repositories: readonly Tally[]): string {
  const lowest = Math.min(...repositories.map(recall));
  const checks = [
    [`recall ≥ ${GOAL.recall}`, recall(overall) >= GOAL.recall],
    [`precision ≥ ${GOAL.precision}`, precision(overall) >= GOAL.precision],
    [`flagged per commit ≤ ${GOAL.flaggedPerCommit}`, perCommit(overall) <= GOAL.flaggedPerCommit],
    [`every repository's recall ≥ ${GOAL.repositoryRecall}`, lowest >= GOAL.repositoryRecall],
  ] as const;
  return checks.map(([name, met]) => `${name} ${met ? "met" : "not met"}`).join("; ");
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

/** A commit editing this many articles or more is a site rewrite, a move or a sweep. */
export const MANY_ARTICLES = 6;

/** Why the plan missed changed articles, counted over the commits scored. */
export interface Misses {
  /** In commits that edit MANY_ARTICLES articles or more. */
  manyArticles: number;
  /** With evidence, below the change's bar (the plan's `weak` list). */
  belowBar: number;
  /** From a change with no source file among its evidence (build, theme, packaging, templates). */
  noSource: number;
  /** From source changes that give the article no reason: it describes them in prose. */
  noReason: number;
}

export const emptyMisses = (): Misses => ({ manyArticles: 0, belowBar: 0, noSource: 0, noReason: 0 });

/** Adds one commit's missed articles to `misses`, each under the first of its categories that applies. */
export function countMisses(
  misses: Misses,
  commit: {
    truth: ReadonlySet<string>;
    flagged: Iterable<string>;
    weak: Iterable<string>;
    evidence: readonly string[];
  },
): void {
  const flagged = new Set(commit.flagged);
  const weak = new Set(commit.weak);
  const hasSource = commit.evidence.some((path) => languageOf(path) !== undefined);
  for (const path of commit.truth) {
    if (flagged.has(path)) continue;
    if (commit.truth.size >= MANY_ARTICLES) misses.manyArticles += 1;
    else if (weak.has(path)) misses.belowBar += 1;
    else if (!hasSource) misses.noSource += 1;
    else misses.noReason += 1;
  }
}

/**
 * The plan scored against the changed articles less those labelled unrelated, for one
 * repository or all. An article flagged whose edit was unrelated counts as a false flag here:
 * the change did not make it wrong, as far as the commit shows.
 */
export interface CausedTally {
  commits: number;
  /** Changed articles in the commits scored. */
  changed: number;
  /** Of those, labelled unrelated to the rest of their commit. */
  unrelated: number;
  /** Of those, not labelled at all (counted as caused: label them). */
  unlabelled: number;
  /** Changed articles left once the unrelated ones are taken out, and how many of them the plan flagged. */
  caused: number;
  found: number;
  /** Articles the plan flagged. */
  flagged: number;
}

/** A changed article's key among the labels. */
export const labelKey = (repository: string, sha: string, article: string) =>
  `${repository}\0${sha}\0${article}`;

export function causedTally(
  commits: readonly {
    repository: string;
    sha: string;
    truth: readonly string[];
    impact: readonly string[];
  }[],
  labels: Labels,
): CausedTally {
  const tally: CausedTally = {
    commits: 0,
    changed: 0,
    unrelated: 0,
    unlabelled: 0,
    caused: 0,
    found: 0,
    flagged: 0,
  };
  for (const commit of commits) {
    const flagged = new Set(commit.impact);
    tally.commits += 1;
    tally.flagged += flagged.size;
    for (const article of new Set(commit.truth)) {
      tally.changed += 1;
      const label = labels.get(labelKey(commit.repository, commit.sha, article));
      if (label === undefined) tally.unlabelled += 1;
      if (label === "unrelated") tally.unrelated += 1;
      else {
        tally.caused += 1;
        if (flagged.has(article)) tally.found += 1;
      }
    }
  }
  return tally;
}

/** The caused tally as the plan's: the caused edits are the truth. */
const causedAsTally = (tally: CausedTally): Tally => ({ ...tally, truth: tally.caused });

export function indexLabels(labels: readonly Label[]): Labels {
  return new Map(labels.map((label) => [labelKey(label.repository, label.sha, label.article), label.label]));
}

function readLabels(file: string): Labels {
  return indexLabels(LabelsSchema.parse(JSON.parse(readFileSync(file, "utf8"))).labels);
}

/** The maintainer's config from the corpus, the defaults, or what `impact init` proposes at the pinned tip. */
async function configFor(variant: string, repository: Repository, dir: string): Promise<ImpactConfig> {
  if (variant === "corpus") return ConfigSchema.parse(repository.config);
  if (variant === "default") return ConfigSchema.parse({});
  const { proposal } = await proposeRepositoryConfig(dir, repository.sha);
  return ConfigSchema.parse(proposal.config);
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

/** Fixed-width columns, so each repository's row prints as soon as it is scored. */
const WIDTHS = [12, 11, 7, 6, 6, 6, 1, 10, 6, 4, 1, 10, 6, 4, 7];

/** The score table's columns, shared by the whole-corpus table and the split halves. */
const HEADER = [
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
];

function row(cells: readonly string[], widths: readonly number[] = WIDTHS): string {
  return cells
    .map((cell, index) => cell.padEnd(widths[index] ?? 0))
    .join("  ")
    .trimEnd();
}

export async function run(argv = process.argv.slice(2)): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: "string", default: "corpus" },
      commits: { type: "string" },
      corpus: { type: "string" },
      split: { type: "boolean", default: false },
      "min-score": { type: "string" },
      dump: { type: "string" },
      "pick-code-only": { type: "string" },
      half: { type: "string" },
      judge: { type: "boolean", default: false },
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
  if (variant !== "corpus" && variant !== "default" && variant !== "init") {
    console.error(`bench:truth: --config must be corpus, default or init, not "${variant}"`);
    return 2;
  }
  const minScore = values["min-score"] === undefined ? undefined : Number(values["min-score"]);
  if (minScore !== undefined && !(minScore >= 0 && minScore <= 1)) {
    console.error("bench:truth: --min-score must be a number from 0 to 1");
    return 2;
  }
  const half = values.half;
  if (half !== undefined && half !== "older" && half !== "newer") {
    console.error(`bench:truth: --half must be older or newer, not "${half}"`);
    return 2;
  }
  if (half !== undefined && values.split) {
    console.error("bench:truth: --half scores one half already; leave out --split");
    return 2;
  }
  // Checked before anything is replayed: a model that cannot answer would waste the whole run.
  const judge = values.judge ? await openBenchJudge(process.env) : undefined;
  if (typeof judge === "string") {
    console.error(judge);
    return 2;
  }
  /** Whether the commit at `age` (0 for the newest) of `size` is in the half asked for, if any. */
  const inAskedHalf = (age: number, size: number) =>
    half === undefined || (half === "older" ? age >= size / 2 : age < size / 2);
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
  const codeOnlyFile = join(dirname(corpusFile), "code-only.json");
  if (values["pick-code-only"] !== undefined) {
    const perRepository = Number(values["pick-code-only"]);
    if (!Number.isInteger(perRepository) || perRepository <= 0) {
      console.error("bench:truth: --pick-code-only must be a positive whole number");
      return 2;
    }
    const picked: CodeOnly = {
      about:
        "Per repository, the newest commits reachable from its pinned sha that changed a source file that can be evidence and no article (bench/truth.ts --pick-code-only); the right plan flags nothing on them.",
      perRepository,
      commits: {},
    };
    for (const repository of present) {
      const config = ConfigSchema.parse(repository.config);
      picked.commits[repository.name] = await pickCodeOnly(
        join(folder, repository.name),
        repository.sha,
        config,
        perRepository,
      );
      console.log(`${repository.name}: ${picked.commits[repository.name]!.length} code-only commits`);
    }
    writeFileSync(codeOnlyFile, `${JSON.stringify(picked, null, 2)}\n`);
    return 0;
  }
  /** With --judge: what the plans flag once the judge read their related articles. */
  const judgedScored: Scored[] = [];
  const judgedSilences = new Map<string, Silent[]>();
  const judgedScores: { name: string; scores: Scores }[] = [];
  /** The dump's entry of each replayed doc-changing commit, by repository and sha (the judge adds its verdicts). */
  const dumpedBySha = new Map<string, Record<string, unknown>>();
  const codeOnly = existsSync(codeOnlyFile)
    ? CodeOnlySchema.parse(JSON.parse(readFileSync(codeOnlyFile, "utf8")))
    : undefined;
  console.log(
    `Truth bench: ${count} commits per repository${half ? ` (the ${half} half of them only)` : ""}, config "${variant}", corpus ${folder}${present.length < wanted.length ? ` (${wanted.length - present.length} missing, left out)` : ""}\n`,
  );

  const labelsFile = join(dirname(corpusFile), "labels.json");
  const labels = existsSync(labelsFile) ? readLabels(labelsFile) : undefined;
  console.log(row([...HEADER, "SECONDS"]));
  const all: Scores[] = [];
  const scored: Scored[] = [];
  const dump: unknown[] = [];
  const misses = emptyMisses();
  const silences = new Map<string, Silent[]>();
  for (const repository of present) {
    const config = await configFor(variant, repository, join(folder, repository.name));
    const scores: Scores = { impact: emptyTally(), basename: emptyTally(), mappings: emptyTally() };
    const started = performance.now();
    const basenames = new Map<string, string[]>();
    const ages = new Map<string, number>();
    const truths = new Map<string, Set<string>>();
    const toJudge = new Map<string, { plan: ImpactPlan; changeSet: ChangeSet }>();
    const report = await runBacktest({
      repoRoot: join(folder, repository.name),
      config,
      count,
      head: repository.sha,
      // As `impact plan --min-score`: the whole bar, no share of the change's strongest article.
      minScore,
      only: (index) => inAskedHalf(index, count),
      onReplay: (replay) => {
        ages.set(replay.sha, replay.index);
        if (judge) toJudge.set(replay.sha, { plan: replay.plan, changeSet: replay.changeSet });
        basenames.set(replay.sha, basenameBaseline(replay));
        truths.set(replay.sha, replay.truth);
        const evidence = selectEvidence(
          replay.changeSet,
          new Set(replay.articles.map((article) => article.path)),
          config,
        ).files;
        countMisses(misses, {
          truth: replay.truth,
          flagged: replay.plan.articles
            .filter((article) => article.status === "impacted")
            .map((article) => article.path),
          weak: (replay.plan.weak ?? []).map((article) => article.path),
          evidence: evidence.map((file) => file.path),
        });
        if (values.dump) {
          const dumped: Record<string, unknown> = {
            repository: repository.name,
            sha: replay.sha,
            age: replay.index,
            base: replay.changeSet.base,
            truth: [...replay.truth].sort(),
            unrelated: [...replay.truth]
              .filter((path) => labels?.get(labelKey(repository.name, replay.sha, path)) === "unrelated")
              .sort(),
            files: replay.changeSet.files.map((file) => file.path),
            all: replay.articles.map((article) => article.path),
            evidence: evidence.map((file) => (file.oldPath ? [file.path, file.oldPath] : [file.path])),
            articles: replay.plan.articles
              .filter((article) => article.status === "impacted")
              .map((article) => ({ path: article.path, score: article.score, impact: article.impact })),
            weak: replay.plan.weak,
            related: replay.plan.related.map((article) => ({
              path: article.path,
              score: article.score,
              impact: article.impact,
            })),
          };
          dump.push(dumped);
          dumpedBySha.set(`${repository.name} ${replay.sha}`, dumped);
        }
      },
    });
    report.commits.forEach((commit, position) => {
      const age = ages.get(commit.sha) ?? position;
      const truth = truths.get(commit.sha) ?? new Set(commit.changed);
      const entry: Scored = {
        repository: repository.name,
        age,
        sha: commit.sha,
        truth: [...truth],
        impact: commit.flagged,
        basename: basenames.get(commit.sha) ?? [],
        mappings: commit.byKind.mapping ?? [],
      };
      scored.push(entry);
      add(scores.impact, truth, entry.impact);
      add(scores.basename, truth, entry.basename);
      add(scores.mappings, truth, entry.mappings);
    });
    all.push(scores);
    const repoRoot = join(folder, repository.name);
    if (judge) {
      const judged: Scores = { ...scores, impact: emptyTally() };
      for (const entry of scored.filter((candidate) => candidate.repository === repository.name)) {
        const replayed = toJudge.get(entry.sha);
        const judgedReplay = replayed ? await judge.judge({ repoRoot, ...replayed }) : undefined;
        const flagged = judgedReplay?.flagged ?? entry.impact;
        const dumped = dumpedBySha.get(`${repository.name} ${entry.sha}`);
        if (dumped && judgedReplay) dumped.judged = judgedReplay;
        judgedScored.push({ ...entry, impact: flagged });
        add(judged.impact, new Set(entry.truth), flagged);
      }
      judgedScores.push({ name: repository.name, scores: judged });
    }
    const quiet: Silent[] = [];
    const judgedQuiet: Silent[] = [];
    const picked = codeOnly?.commits[repository.name] ?? [];
    if (picked.length > 0) {
      const generic = await genericNames(join(folder, repository.name), repository.sha);
      for (const [age, sha] of picked.entries()) {
        if (!inAskedHalf(age, picked.length)) continue;
        const { plan, changeSet } = await replayCommit({
          repoRoot: join(folder, repository.name),
          config,
          sha,
          genericNames: generic,
          minScore,
        });
        const flagged = plan.articles.filter((article) => article.status === "impacted");
        quiet.push({ age, sha, flagged: flagged.map((article) => article.path) });
        const judgedCodeOnly = judge && (await judge.judge({ repoRoot, plan, changeSet }));
        if (judgedCodeOnly) judgedQuiet.push({ age, sha, flagged: judgedCodeOnly.flagged });
        if (values.dump)
          dump.push({
            repository: repository.name,
            sha,
            age,
            codeOnly: true,
            base: plan.base,
            articles: flagged.map((article) => ({
              path: article.path,
              score: article.score,
              impact: article.impact,
            })),
            related: plan.related.map((article) => ({ path: article.path, score: article.score })),
            ...(judgedCodeOnly ? { judged: judgedCodeOnly } : {}),
          });
      }
    }
    silences.set(repository.name, quiet);
    judgedSilences.set(repository.name, judgedQuiet);
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    console.log(
      row([
        repository.name,
        repository.ecosystem,
        String(scores.impact.commits),
        ...scoreCells(scores),
        seconds,
      ]),
    );
    console.error(`${repository.name}: ${scores.impact.commits} commits in ${seconds} s`);
  }
  const overall: Scores = sumScores(all);
  console.log(row(["OVERALL", "", String(overall.impact.commits), ...scoreCells(overall), ""]));
  console.log(
    `\nGoal: ${goalMet(
      overall.impact,
      all.map((scores) => scores.impact),
    )}`,
  );
  console.log(
    "Recall and precision are micro-averaged over commits (found/changed, found/flagged); baselines ran on the same commits.",
  );
  const missed = misses.manyArticles + misses.belowBar + misses.noSource + misses.noReason;
  console.log(
    `Missed: ${missed} changed articles: ${misses.manyArticles} in commits editing ${MANY_ARTICLES} or more, ${misses.belowBar} below the bar, ${misses.noSource} from changes with no source file among the evidence, ${misses.noReason} with no reason (described in prose).`,
  );
  if (labels) printCaused(present, scored, labels);
  if (codeOnly) printSilence(present, silences, () => true);
  if (values.split) {
    const halves = [
      [
        "Older half of each repository's commits (tuned on)",
        (entry: { age: number }, size: number) => entry.age >= size / 2,
      ],
      [
        "Newer half of each repository's commits (held out)",
        (entry: { age: number }, size: number) => entry.age < size / 2,
      ],
    ] as const;
    for (const [title, inHalf] of halves) {
      console.log(`\n${title}\n`);
      console.log(row(HEADER.map((cell) => (cell === "ECOSYSTEM" ? "" : cell))));
      const half: Scores[] = [];
      const halfEntries: Scored[] = [];
      for (const repository of present) {
        const own = scored.filter((entry) => entry.repository === repository.name);
        const entries = own.filter((entry) => inHalf(entry, own.length));
        halfEntries.push(...entries);
        const scores: Scores = { impact: emptyTally(), basename: emptyTally(), mappings: emptyTally() };
        for (const entry of entries) {
          const truth = new Set(entry.truth);
          add(scores.impact, truth, entry.impact);
          add(scores.basename, truth, entry.basename);
          add(scores.mappings, truth, entry.mappings);
        }
        half.push(scores);
        console.log(row([repository.name, "", String(scores.impact.commits), ...scoreCells(scores)]));
      }
      const total: Scores = sumScores(half);
      console.log(row(["OVERALL", "", String(total.impact.commits), ...scoreCells(total)]));
      if (labels) {
        const caused = causedTally(halfEntries, labels);
        console.log(
          `Change-caused edits (${caused.unrelated} of ${caused.changed} changed articles labelled unrelated): recall ${recall(causedAsTally(caused)).toFixed(2)}, precision ${precision(causedAsTally(caused)).toFixed(2)}, flagged per commit ${perCommit(causedAsTally(caused)).toFixed(1)}`,
        );
        printCaused(present, halfEntries, labels, "");
      }
      if (codeOnly) printSilence(present, silences, inHalf);
    }
  }
  if (judge)
    printJudged({
      judge,
      present,
      rows: judgedScores,
      scored: judgedScored,
      labels,
      codeOnly,
      silences: judgedSilences,
    });
  if (values.dump) writeFileSync(values.dump, `${JSON.stringify(dump)}\n`);
  return 0;
}

/** `--judge`: the same figures once the judge read each plan's related articles, as rows of their own. */
function printJudged(input: {
  judge: BenchJudge;
  present: readonly Repository[];
  rows: readonly { name: string; scores: Scores }[];
  scored: readonly Scored[];
  labels: Labels | undefined;
  codeOnly: CodeOnly | undefined;
  silences: ReadonlyMap<string, readonly Silent[]>;
}): void {
  const { judge } = input;
  console.log(`\nWith --judge, over every replayed commit: ${summaryLine(judge.totals)}\n`);
  console.log(row(HEADER.map((cell) => (cell === "ECOSYSTEM" ? "" : cell))));
  for (const { name, scores } of input.rows)
    console.log(row([name, "", String(scores.impact.commits), ...scoreCells(scores)]));
  const overall = sumScores(input.rows.map((entry) => entry.scores));
  console.log(row(["OVERALL", "", String(overall.impact.commits), ...scoreCells(overall)]));
  if (input.labels)
    printCaused(
      input.present,
      input.scored,
      input.labels,
      "\nChange-caused edits with --judge (the same commits and labels as above)\n",
    );
  if (input.codeOnly) printSilence(input.present, input.silences, () => true);
}

/** Per repository and overall, how often the plan flagged nothing on commits that changed code and no article. */
function printSilence(
  present: readonly Repository[],
  silences: ReadonlyMap<string, readonly Silent[]>,
  inHalf: (entry: Silent, size: number) => boolean,
): void {
  console.log("\nCode-only commits (bench/truth/code-only.json): the right plan flags nothing\n");
  const widths = [12, 7, 8, 7];
  const line = (cells: readonly string[]) => row(cells, widths);
  console.log(line(["REPOSITORY", "COMMITS", "SILENT", "FLAG/C"]));
  const tallies: SilenceTally[] = [];
  for (const repository of present) {
    const own = silences.get(repository.name) ?? [];
    const tally = silenceOf(own.filter((entry) => inHalf(entry, own.length)));
    tallies.push(tally);
    console.log(line([repository.name, ...silenceCells(tally)]));
  }
  const overall = sumSilence(tallies);
  console.log(line(["OVERALL", ...silenceCells(overall)]));
  console.log(`Goal on code-only commits: ${silenceGoalMet(overall)}`);
}

/** The plan's recall and precision over the edits that follow from the change, per repository and overall. */
function printCaused(
  present: readonly Repository[],
  scored: readonly Scored[],
  labels: Labels,
  title = "\nChange-caused edits: the changed articles less those hand-labelled unrelated to the rest of their commit (bench/truth/labels.json); a flag on an unrelated edit counts as false\n",
): void {
  if (title) console.log(title);
  const widths = [12, 7, 7, 9, 10, 6, 6, 6];
  const line = (cells: readonly string[]) => row(cells, widths);
  console.log(
    line(["REPOSITORY", "COMMITS", "CHANGED", "UNRELATED", "UNLABELLED", "RECALL", "PREC", "FLAG/C"]),
  );
  const rowOf = (name: string, tally: CausedTally) =>
    line([
      name,
      String(tally.commits),
      String(tally.changed),
      String(tally.unrelated),
      String(tally.unlabelled),
      ...cells(causedAsTally(tally)),
    ]);
  const tallies: Tally[] = [];
  for (const repository of present) {
    const tally = causedTally(
      scored.filter((entry) => entry.repository === repository.name),
      labels,
    );
    tallies.push(causedAsTally(tally));
    console.log(rowOf(repository.name, tally));
  }
  const overall = causedTally(scored, labels);
  console.log(rowOf("OVERALL", overall));
  console.log(`\nGoal on change-caused edits: ${goalMet(causedAsTally(overall), tallies)}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await run();
}
