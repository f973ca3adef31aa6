import { z } from "zod";
import { unquoteGitPath } from "../../shared/diff/parse.js";
import {
  HISTORY_MAX_ARTICLES_PER_FILE,
  HISTORY_MAX_COMMITS,
  HISTORY_MAX_FILES_PER_COMMIT,
  HISTORY_MIN_CONFIDENCE,
  HISTORY_MIN_SUPPORT,
  HISTORY_SMOOTHING,
  HISTORY_TIMEOUT_MS,
} from "../../shared/limits.js";
import type { ImpactReason } from "../../shared/plan.js";
import { plural } from "../../shared/render/markdown.js";
import { gitAt, isShallow } from "../git/repository.js";
import { runGit } from "../git/run.js";
import type { CacheSpec, CacheStore } from "../workdir/cache-store.js";

/** One commit of the base's history: its sha, the paths it changed, and its renames. */
export interface HistoryCommit {
  sha: string;
  /** Paths as the commit left them (a rename lists its new path). */
  files: string[];
  /** `[old, new]` for each file it renamed, so older commits can be read with today's names. */
  renames?: [string, string][];
}

export interface History {
  /** The revision the history ends at (never anything after it). */
  base: string;
  /** Newest first, merges left out. */
  commits: HistoryCommit[];
  /** The clone is shallow: older history is missing. */
  shallow: boolean;
  /** The scan stopped at the commit bound or the time bound. */
  truncated?: "commits" | "time" | undefined;
}

/**
 * The history cache: one entry per base (`<sha>.json`), at most 64, none unused for 30 days
 * (a base is mined again when its entry is gone; each entry is around 100 KB).
 */
export const HISTORY_CACHE: CacheSpec = {
  kind: "history",
  format: 4,
  names: /^[0-9a-f]{40,64}\.json$/,
  bounds: { maxEntries: 64, maxAgeMs: 30 * 24 * 60 * 60 * 1000 },
};

// Paths stored once, commits as indexes: a 3,000-commit history stays around 100 KB.
const CacheSchema = z.object({
  base: z.string(),
  maxCommits: z.number(),
  shallow: z.boolean(),
  truncated: z.enum(["commits"]).optional(),
  paths: z.array(z.string()),
  commits: z.array(
    z.tuple([
      z.string(),
      z.array(z.number().int().nonnegative()),
      z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])),
    ]),
  ),
});

/**
 * The history of `base` (a full commit sha): `git log <base>` walks only its ancestors, so
 * nothing after the base can leak in, which is what lets the backtest replay a commit
 * without seeing its future. Bounded by commit count and time; kept in `cache` (the
 * workdir's history cache) by base (a time-truncated scan is not kept).
 */
export async function mineHistory(
  repoRoot: string,
  base: string,
  options: { maxCommits?: number; timeoutMs?: number; cache?: CacheStore | undefined } = {},
): Promise<History> {
  const maxCommits = options.maxCommits ?? HISTORY_MAX_COMMITS;
  const entry = `${base}.json`;
  const cache = /^[0-9a-f]{40,64}$/.test(base) ? options.cache : undefined;
  if (cache) {
    const cached = await readCache(cache, entry, base, maxCommits);
    if (cached) return cached;
  }
  const [shallow, scan] = await Promise.all([
    isShallow(gitAt(repoRoot)),
    runGit(
      repoRoot,
      [
        // The first commit (or a shallow clone's oldest) lists every file as added: an
        // import, not a co-change, so it is read without its files.
        "-c",
        "log.showRoot=false",
        "log",
        "--no-merges",
        "--find-renames",
        `--max-count=${maxCommits}`,
        "--format=%x1e%H",
        "--name-status",
        base,
        "--",
      ],
      {
        timeoutMs: options.timeoutMs ?? HISTORY_TIMEOUT_MS,
        // The plan reads the base's history; a clone git cannot read it in needs repair.
        hint: `run git log ${base} in the repository to see why; a damaged clone needs git fsck or a fresh clone`,
      },
    ),
  ]);
  const commits = parseLog(scan.text, scan.timedOut);
  const truncated = scan.timedOut ? "time" : commits.length >= maxCommits ? "commits" : undefined;
  const history: History = { base, commits, shallow, truncated };
  if (cache && truncated !== "time") await writeCache(cache, entry, history, maxCommits);
  return history;
}

/** `%x1e%H` + `--name-status` records; a record cut off by the time bound is dropped. */
function parseLog(text: string, cutOff: boolean): HistoryCommit[] {
  const records = text.split("\x1e").slice(1);
  if (cutOff) records.pop();
  return records.flatMap((record) => {
    const [sha = "", ...lines] = record.split("\n");
    if (sha.trim() === "") return [];
    const files: string[] = [];
    const renames: [string, string][] = [];
    for (const line of lines) {
      const [status = "", quotedFirst, quotedSecond] = line.split("\t");
      if (quotedFirst === undefined) continue;
      // A path holding a control character, a quote or a backslash comes quoted, even with
      // core.quotePath=false.
      const first = unquoteGitPath(quotedFirst);
      const second = quotedSecond === undefined ? undefined : unquoteGitPath(quotedSecond);
      if (second !== undefined && status.startsWith("R")) {
        renames.push([first, second]);
        files.push(second);
      } else files.push(second ?? first);
    }
    return [{ sha: sha.trim(), files, ...(renames.length > 0 ? { renames } : {}) }];
  });
}

/**
 * How often each changed file changed, and with which articles (pure): over the commits of
 * the base's history that are no sweep, with renames followed to today's paths. What
 * historyReasons and the path check (historyDisowns) both read.
 */
export interface CoChanges {
  /** Commits that touched each changed file (by its path in the change). */
  touching: Map<string, number>;
  /** For each changed file, the articles that changed in the same commits, and how often. */
  together: Map<string, Map<string, number>>;
}

export function coChanges(input: {
  commits: HistoryCommit[];
  /** Changed non-article files of the change (a rename lists both paths). */
  changedFiles: { path: string; oldPath?: string }[];
  /** The articles at the base. */
  articles: ReadonlySet<string>;
}): CoChanges {
  const wanted = new Map<string, string>();
  for (const file of input.changedFiles) {
    wanted.set(file.path, file.path);
    if (file.oldPath) wanted.set(file.oldPath, file.path);
  }
  const touching = new Map<string, number>();
  const together = new Map<string, Map<string, number>>();
  // Newest first: a rename seen here names, for every older commit, the path it has today.
  const today = new Map<string, string>();
  for (const commit of input.commits) {
    const sweep = commit.files.length > HISTORY_MAX_FILES_PER_COMMIT;
    const sources = new Set<string>();
    const articles: string[] = [];
    for (const changed of sweep ? [] : commit.files) {
      const path = today.get(changed) ?? changed;
      const source = wanted.get(path);
      if (source !== undefined) sources.add(source);
      else if (input.articles.has(path)) articles.push(path);
    }
    for (const source of sources) {
      touching.set(source, (touching.get(source) ?? 0) + 1);
      const counts = together.get(source) ?? new Map<string, number>();
      together.set(source, counts);
      for (const article of articles) counts.set(article, (counts.get(article) ?? 0) + 1);
    }
    for (const [from, to] of commit.renames ?? []) today.set(from, today.get(to) ?? to);
  }
  return { touching, together };
}

/** A reason of the history rule. */
type HistoryReason = ImpactReason & { kind: "history" };

/**
 * History reasons (pure, from coChanges): for each changed code file, the articles that changed in the
 * same commits often enough (support and confidence above the bounds), strongest first.
 * The score is the co-change ratio shrunk toward 0 for thin evidence, c / (n + 1), then
 * square-rooted: on the truth bench a pair with ratio 0.25 was right about half the time,
 * one with 0.1 about a third (historyScore).
 */
export function historyReasons({ touching, together }: CoChanges): Map<string, HistoryReason[]> {
  const reasons = new Map<string, HistoryReason[]>();
  for (const [source, counts] of together) {
    const total = touching.get(source) ?? 0;
    const coupled = [...counts]
      .filter(([, count]) => count >= HISTORY_MIN_SUPPORT && count / total >= HISTORY_MIN_CONFIDENCE)
      .sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]))
      .slice(0, HISTORY_MAX_ARTICLES_PER_FILE);
    for (const [article, count] of coupled) {
      const reason: HistoryReason = {
        kind: "history",
        source,
        detail: `changed together in ${count} of ${total} commits that touched ${source}`,
        score: historyScore(count, total),
      };
      const list = reasons.get(article);
      if (list) list.push(reason);
      else reasons.set(article, [reason]);
    }
  }
  return reasons;
}

/**
 * A file the history knows well enough to disown a path: it changed in at least this many
 * commits (no sweep) of the base's history.
 */
const HISTORY_MIN_COMMITS_TO_DISOWN = 3;

/**
 * Whether the history says an article names `file` only to point at it (a "Source code:"
 * link, a file tree): the file changed in HISTORY_MIN_COMMITS_TO_DISOWN commits or more,
 * and the article with it in less than HISTORY_MIN_CONFIDENCE of them (too rarely for a
 * history reason). On the truth bench, leaving such paths out of the evidence removed a
 * tenth of the false flags for 1% of recall (docs/plan.md). Returns the counts when it
 * does, for the explanation.
 */
export function historyDisowns(
  coupling: CoChanges,
  file: string,
  article: string,
): { commits: number; together: number } | undefined {
  const commits = coupling.touching.get(file) ?? 0;
  if (commits < HISTORY_MIN_COMMITS_TO_DISOWN) return undefined;
  const together = coupling.together.get(file)?.get(article) ?? 0;
  return together / commits < HISTORY_MIN_CONFIDENCE ? { commits, together } : undefined;
}

/** The score of an article changed in `count` of the `total` commits that touched a file. */
function historyScore(count: number, total: number): number {
  return round(Math.sqrt(count / (total + HISTORY_SMOOTHING)));
}

/** The one warning a shallow clone gets. */
export function shallowHistoryWarning(history: History): string | undefined {
  if (!history.shallow) return undefined;
  return `history coupling sees only the ${plural(history.commits.length, "commit")} of this shallow clone; fetch the full history (actions/checkout with fetch-depth: 0, or git fetch --unshallow)`;
}

const round = (value: number) => Math.round(value * 1000) / 1000;

async function readCache(
  cache: CacheStore,
  entry: string,
  base: string,
  maxCommits: number,
): Promise<History | undefined> {
  const cached = await cache.getJson(
    entry,
    (json) => {
      const parsed = CacheSchema.safeParse(json);
      return parsed.success && parsed.data.base === base && parsed.data.maxCommits === maxCommits
        ? parsed.data
        : undefined;
    },
    // Another base's or limit's history, or a format of another version: mined again, silently.
    () => undefined,
  );
  if (!cached) return undefined;
  const { paths, commits, shallow, truncated } = cached;
  return {
    base,
    shallow,
    truncated,
    commits: commits.map(([sha, indexes, renames]) => {
      const path = (index: number) => paths[index] ?? "";
      const files = indexes.map(path);
      return renames.length > 0
        ? { sha, files, renames: renames.map(([from, to]): [string, string] => [path(from), path(to)]) }
        : { sha, files };
    }),
  };
}

async function writeCache(cache: CacheStore, entry: string, history: History, maxCommits: number) {
  const ids = new Map<string, number>();
  const id = (path: string) => {
    const known = ids.get(path);
    if (known !== undefined) return known;
    ids.set(path, ids.size);
    return ids.size - 1;
  };
  const commits = history.commits.map((commit) => [
    commit.sha,
    commit.files.map(id),
    (commit.renames ?? []).map(([from, to]) => [id(from), id(to)]),
  ]);
  const data = {
    base: history.base,
    maxCommits,
    shallow: history.shallow,
    // A time-cut history is never written; see mineHistory.
    truncated: history.truncated === "commits" ? "commits" : undefined,
    paths: [...ids.keys()],
    commits,
  };
  await cache.put(entry, JSON.stringify(data));
}
