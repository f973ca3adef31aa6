import { z } from "zod";
import type { ChangeSet } from "../../shared/changeset.js";
import type { ImpactConfig } from "../../shared/config.js";
import { unquoteGitPath } from "../../shared/diff/parse.js";
import { GitError } from "../../shared/errors.js";
import { BACKTEST_SCAN_LIMIT } from "../../shared/limits.js";
import { ImpactKindSchema, type ImpactPlan } from "../../shared/plan.js";
import { gitAt, isShallow, resolveCommit } from "../git/repository.js";
import type { Workdir } from "../workdir/workdir.js";
import { articleSelector, listArticles, readArticles } from "./articles.js";
import { boilerplateNames } from "./boilerplate-names.js";
import { selectEvidence } from "./detect/evidence.js";
import type { Dropped } from "./detect/references.js";
import { type ArticleText, detectImpact } from "./detector.js";
import { genericNames } from "./generic-names.js";
import { HISTORY_CACHE, mineHistory } from "./history.js";
import { loadChangeSet } from "./read-change-set.js";

const RateSchema = z.object({ hits: z.number(), of: z.number(), rate: z.number().nullable() });

const BacktestCommitSchema = z.object({
  sha: z.string(),
  subject: z.string(),
  /** Existing articles the commit really changed (the answer). */
  changed: z.array(z.string()),
  /** Articles the detector flagged for the commit's code-only change. */
  flagged: z.array(z.string()),
  /** flagged ∩ changed. */
  found: z.array(z.string()),
  byKind: z.record(ImpactKindSchema, z.array(z.string())),
});

export const BacktestReportSchema = z.object({
  head: z.string(),
  commits: z.array(BacktestCommitSchema),
  recall: RateSchema,
  precision: RateSchema,
  flaggedPerCommit: z.number().nullable(),
  /** The clone is shallow: history before its first commit is missing. */
  shallow: z.boolean().default(false),
  byKind: z.record(
    ImpactKindSchema,
    z.object({ flagged: z.number(), recall: RateSchema, precision: RateSchema }),
  ),
});

type BacktestCommit = z.infer<typeof BacktestCommitSchema>;
export type BacktestReport = z.infer<typeof BacktestReportSchema>;

const KINDS = ImpactKindSchema.options;

/** One replayed commit as the detector saw it, for callers that score other detectors on it. */
export interface BacktestReplay {
  sha: string;
  /** The commit's code-only change (articles left out). */
  changeSet: ChangeSet;
  /** The articles at the parent, with their text. */
  articles: ArticleText[];
  /** Existing articles the commit really changed. */
  truth: Set<string>;
  /** The detector's plan for the code-only change (scores, reasons, the weak articles). */
  plan: ImpactPlan;
  /** Its place among the qualifying commits, 0 for the newest. */
  index: number;
}

/**
 * Scores the detector on the repository's own history: the last `count` non-merge commits
 * reachable from `head` that changed code (a text file that can be evidence: not a test,
 * lockfile, CI file or record of the past) and modified at least one existing article are
 * replayed as code-only changes against their parent's docs. The articles the commit really
 * changed are the answer; recall and precision compare the plan with it, overall and per
 * reason kind. Commits are qualified one by one, so `count` is the number scored (when the
 * history has that many within BACKTEST_SCAN_LIMIT commits).
 */
export async function runBacktest(options: {
  repoRoot: string;
  config: ImpactConfig;
  count: number;
  /** `--min-score`: the whole bar, as in `impact plan` (config.minScore otherwise). */
  minScore?: number | undefined;
  head?: string | undefined;
  /** Called with each scored commit's replay (the truth bench scores its baselines here). */
  onReplay?: (replay: BacktestReplay) => void;
  /** Where the history and declaration caches live; saved once the head is known good. */
  workdir?: Workdir;
  /**
   * The config whose articles pick the commits and the answer (default: `config`), so that
   * two configs scored with the same `window` are scored on the same commits and truth.
   */
  window?: ImpactConfig;
  /**
   * Which qualifying commits (0 for the newest) to replay and score; the others still count
   * toward `count` but are not planned (the truth bench scores one half of its window).
   */
  only?: (index: number) => boolean;
}): Promise<BacktestReport> {
  const { repoRoot, config, count } = options;
  const windowConfig = options.window ?? config;
  const git = gitAt(repoRoot);
  const headName = options.head ?? "HEAD";
  const head = await resolveCommit(git, headName);
  if (!head) throw new GitError(`unknown revision "${headName}" for --head (check the name, or fetch it)`);
  const { workdir } = options;
  await workdir?.save();
  const historyCache = await workdir?.cache(HISTORY_CACHE);
  const isArticle = articleSelector(config);
  const isWindowArticle = windowConfig === config ? isArticle : articleSelector(windowConfig);
  const [log, shallow] = await Promise.all([
    git.raw([
      "log",
      "--no-merges",
      "--no-renames",
      `--max-count=${BACKTEST_SCAN_LIMIT}`,
      "--format=%x1e%H%x1f%P%x1f%s",
      "--name-only",
      head,
    ]),
    isShallow(git),
  ]);
  const generic = await genericNames(repoRoot, head);
  const commits: BacktestCommit[] = [];
  let qualified = 0;
  for (const candidate of candidatesOf(log, isWindowArticle)) {
    if (qualified >= count) break;
    const changeSet = await loadChangeSet({
      repo: repoRoot,
      base: candidate.parent,
      head: candidate.sha,
      workdir,
    });
    // The window (which commits, and the articles they changed) comes from the window's config alone.
    const windowArticles = await listArticles(repoRoot, windowConfig, { revision: candidate.parent });
    const existing = new Set(windowArticles);
    const changed = changeSet.files
      .filter((file) => file.status !== "added" && file.status !== "deleted")
      .map((file) => file.oldPath ?? file.path)
      .filter((path) => existing.has(path));
    if (changed.length === 0) continue;
    const windowCodeOnly = codeOnlyChange(changeSet, isWindowArticle);
    // A commit whose other files are all CI config, tests, lockfiles, images or records of
    // the past changed no code: nothing in it can be evidence, so there is nothing to score.
    if (!selectEvidence(windowCodeOnly, existing, windowConfig).files.some((file) => !file.binary)) continue;
    const index = qualified;
    qualified += 1;
    if (options.only && !options.only(index)) continue;
    const codeOnly = windowConfig === config ? windowCodeOnly : codeOnlyChange(windowCodeOnly, isArticle);
    const articlesBefore =
      windowConfig === config
        ? windowArticles
        : await listArticles(repoRoot, config, { revision: candidate.parent });
    const { articles, plan } = await planAtParent({
      repoRoot,
      config,
      parent: candidate.parent,
      articlePaths: articlesBefore,
      changeSet: codeOnly,
      genericNames: generic,
      minScore: options.minScore,
      historyCache,
    });
    const flaggedArticles = flaggedByPlan(plan);
    const truth = new Set(changed);
    options.onReplay?.({ sha: candidate.sha, changeSet: codeOnly, articles, truth, plan, index });
    const byKind = Object.fromEntries(
      KINDS.map((kind) => [
        kind,
        flaggedArticles
          .filter((article) => article.impact.some((reason) => reason.kind === kind))
          .map((article) => article.path),
      ]),
    ) as BacktestCommit["byKind"];
    const flagged = flaggedArticles.map((article) => article.path);
    commits.push({
      sha: candidate.sha,
      subject: candidate.subject,
      changed: [...truth].sort(),
      flagged,
      found: flagged.filter((path) => truth.has(path)),
      byKind,
    });
  }
  return { ...scoreBacktest(head, commits), shallow };
}

/** The change less its articles: what the detector sees when the author has not edited the docs yet. */
function codeOnlyChange(changeSet: ChangeSet, isArticle: (path: string) => boolean): ChangeSet {
  return {
    ...changeSet,
    files: changeSet.files.filter(
      (file) => !isArticle(file.path) && !(file.oldPath && isArticle(file.oldPath)),
    ),
    symbols: changeSet.symbols.filter((symbol) => !isArticle(symbol.file)),
  };
}

/** The plan for a change against the docs and history of its parent (the commit and its future stay unseen). */
async function planAtParent(input: {
  repoRoot: string;
  config: ImpactConfig;
  parent: string;
  articlePaths: string[];
  changeSet: ChangeSet;
  genericNames: Dropped[];
  minScore: number | undefined;
  /** Where mined histories are kept (the workdir's history cache), if anywhere. */
  historyCache?: NonNullable<Parameters<typeof mineHistory>[2]>["cache"];
}): Promise<{ articles: ArticleText[]; plan: ImpactPlan }> {
  const [articles, history, boilerplate] = await Promise.all([
    readArticles(input.repoRoot, input.articlePaths, { revision: input.parent }),
    // The parent's own history only: the commit being replayed and its future stay unseen.
    mineHistory(input.repoRoot, input.parent, { cache: input.historyCache }),
    boilerplateNames(
      input.repoRoot,
      { base: input.parent, symbols: input.changeSet.symbols, files: input.changeSet.files },
      input.config,
    ),
  ]);
  const plan = detectImpact({
    changeSet: input.changeSet,
    articles,
    config: input.config,
    history: history.commits,
    genericNames: [...input.genericNames, ...boilerplate],
    minScore: input.minScore,
  });
  return { articles, plan };
}

/**
 * One commit replayed as it is (it changed no article): the detector's plan for it against
 * its parent's docs. What the truth bench scores on commits that changed code and no
 * article, where the right plan flags nothing.
 */
export async function replayCommit(options: {
  repoRoot: string;
  config: ImpactConfig;
  sha: string;
  /** Names the repository uses everywhere, as genericNames finds them at the bench's head. */
  genericNames: Dropped[];
  minScore?: number | undefined;
}): Promise<{ changeSet: ChangeSet; articles: ArticleText[]; plan: ImpactPlan }> {
  const git = gitAt(options.repoRoot);
  const parent = await resolveCommit(git, `${options.sha}^`);
  if (!parent) throw new GitError(`commit ${options.sha} has no parent here (fetch its history)`);
  const changeSet = codeOnlyChange(
    await loadChangeSet({ repo: options.repoRoot, base: parent, head: options.sha }),
    articleSelector(options.config),
  );
  const articlePaths = await listArticles(options.repoRoot, options.config, { revision: parent });
  const { articles, plan } = await planAtParent({
    repoRoot: options.repoRoot,
    config: options.config,
    parent,
    articlePaths,
    changeSet,
    genericNames: options.genericNames,
    minScore: options.minScore,
  });
  return { changeSet, articles, plan };
}

/** What a plan flags: its stale articles (impacted ones of a plan without tiers); related ones are not flags. */
function flaggedByPlan(plan: ImpactPlan) {
  return plan.articles.filter(
    (article) => article.status === "impacted" && (article.tier ?? "stale") === "stale",
  );
}

/** The minimums `impact init` tries: round steps, so a handful of commits cannot pick an odd value. */
const MIN_SCORE_GRID = Array.from({ length: 17 }, (_, step) => Math.round((0.1 + step * 0.05) * 100) / 100);

/** One row of a minScore calibration: the backtest as it would be with this minimum. */
export interface MinScoreRow {
  minScore: number;
  report: Omit<BacktestReport, "shallow">;
}

/**
 * The backtest at each minimum worth trying, from replays scored with a config minScore of 0
 * (so only the relative bar applied): with a minimum `m`, an article is flagged when it was
 * and scores at least `m`. Rows for each minimum of MIN_SCORE_GRID, lowest (most recall) first.
 */
export function minScoreRows(
  head: string,
  replays: readonly BacktestReplay[],
  subjects: Map<string, string>,
): MinScoreRow[] {
  const flaggedByReplay = replays.map((replay) => ({ replay, flagged: flaggedByPlan(replay.plan) }));
  return MIN_SCORE_GRID.map((minScore) => {
    const commits = flaggedByReplay.map(({ replay, flagged }) => {
      const kept = flagged.filter((article) => (article.score ?? 1) >= minScore);
      const paths = kept.map((article) => article.path);
      return {
        sha: replay.sha,
        subject: subjects.get(replay.sha) ?? "",
        changed: [...replay.truth].sort(),
        flagged: paths,
        found: paths.filter((path) => replay.truth.has(path)),
        byKind: Object.fromEntries(
          KINDS.map((kind) => [
            kind,
            kept
              .filter((article) => article.impact.some((reason) => reason.kind === kind))
              .map((article) => article.path),
          ]),
        ) as BacktestCommit["byKind"],
      };
    });
    return { minScore, report: scoreBacktest(head, commits) };
  });
}

/**
 * The minimum that reaches `target` precision with the most recall (the lowest such
 * minimum), or, when none reaches it, the one with the best precision; undefined when
 * nothing was flagged at all.
 */
export function pickMinScore(
  rows: readonly MinScoreRow[],
  target: number,
): { row: MinScoreRow; reached: boolean } | undefined {
  const scored = rows.filter((row) => row.report.precision.rate !== null);
  const reaching = scored.find((row) => row.report.precision.rate! >= target);
  if (reaching) return { row: reaching, reached: true };
  let best: MinScoreRow | undefined;
  for (const row of scored)
    if (best === undefined || row.report.precision.rate! > best.report.precision.rate!) best = row;
  return best === undefined ? undefined : { row: best, reached: false };
}

/** Commits of a `git log --name-only` listing that changed both an article and another file, newest first. */
function* candidatesOf(
  log: string,
  isArticle: (path: string) => boolean,
): Generator<{ sha: string; parent: string; subject: string }> {
  for (const record of log.split("\x1e")) {
    const [header = "", ...names] = record.split("\n");
    const [sha, parents, subject = ""] = header.split("\x1f");
    const parent = parents?.split(" ")[0];
    if (!sha || !parent) continue;
    const files = names.filter((name) => name !== "").map(unquoteGitPath);
    if (files.some(isArticle) && files.some((name) => !isArticle(name))) yield { sha, parent, subject };
  }
}

/** Micro-averaged recall and precision over the commits, overall and per reason kind. */
function scoreBacktest(head: string, commits: BacktestCommit[]): Omit<BacktestReport, "shallow"> {
  const rate = (hits: number, of: number) => ({ hits, of, rate: of === 0 ? null : hits / of });
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const truthTotal = sum(commits.map((commit) => commit.changed.length));
  const found = sum(commits.map((commit) => commit.found.length));
  const flagged = sum(commits.map((commit) => commit.flagged.length));
  const byKind = Object.fromEntries(
    KINDS.map((kind) => {
      const kindFlagged = sum(commits.map((commit) => commit.byKind[kind]?.length ?? 0));
      const kindFound = sum(
        commits.map(
          (commit) => (commit.byKind[kind] ?? []).filter((path) => commit.changed.includes(path)).length,
        ),
      );
      return [
        kind,
        {
          flagged: kindFlagged,
          recall: rate(kindFound, truthTotal),
          precision: rate(kindFound, kindFlagged),
        },
      ];
    }),
  ) as BacktestReport["byKind"];
  return {
    head,
    commits,
    recall: rate(found, truthTotal),
    precision: rate(found, flagged),
    flaggedPerCommit: commits.length === 0 ? null : flagged / commits.length,
    byKind,
  };
}
