import type { Audit, AuditArticle, AuditTotals } from "./audit.js";
import { pathInDocsRepository } from "./docs-repository.js";
import { UsageError } from "./errors.js";
import { contentHash } from "./hash.js";
import { roundUsd } from "./model/prices.js";
import { patchHeaderProblem } from "./patch.js";
import type { Sweep } from "./plan.js";

/**
 * Merges the audits of sharded runs into one (pure). Every article appears once, sorted
 * by path; when two audits hold the same article, a finished result beats a cancelled
 * one, and otherwise the later audit wins (a re-run shard). Totals are recomputed.
 * Audits of different base or head are refused with a UsageError.
 */
export function mergeAudits(audits: readonly Audit[]): Audit {
  const [first] = audits;
  if (first === undefined) throw new UsageError("no audits to merge");
  for (const audit of audits) {
    if (audit.base !== first.base || audit.head !== first.head) {
      throw new UsageError(
        `audits are of different changes (${first.base}..${first.head} and ${audit.base}..${audit.head}); merge only the shards of one run`,
        { code: "input" },
      );
    }
    if (audit.docsRepository?.name !== first.docsRepository?.name) {
      throw new UsageError(
        `audits are of different docs repositories (${first.docsRepository?.name ?? "none"} and ${audit.docsRepository?.name ?? "none"}); merge only the shards of one run`,
        { code: "input" },
      );
    }
  }
  // A docs repository's patches name the path inside it (`website:content/x.md` → content/x.md).
  const docsName = first.docsRepository?.name;
  const patchPath = (path: string) =>
    docsName === undefined ? path : (pathInDocsRepository(docsName, path) ?? path);
  const byPath = new Map<string, AuditArticle>();
  for (const audit of audits) {
    for (const article of audit.articles) {
      const problem =
        article.patch === "" ? undefined : patchHeaderProblem(article.patch, patchPath(article.path));
      if (problem) {
        throw new UsageError(`${article.path}: ${problem}; the audit was not made by impact run`, {
          code: "input",
        });
      }
      const earlier = byPath.get(article.path);
      if (earlier && article.status === "cancelled" && earlier.status !== "cancelled") continue;
      byPath.set(article.path, article);
    }
  }
  const articles = [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const startedAt = audits.map((audit) => audit.startedAt).sort()[0] ?? first.startedAt;
  const finishedAt =
    audits
      .map((audit) => audit.finishedAt)
      .sort()
      .at(-1) ?? first.finishedAt;
  const runIds = [...new Set(audits.map((audit) => audit.runId))];
  const models = [...new Set(audits.map((audit) => audit.model))];
  const wall = Date.parse(finishedAt) - Date.parse(startedAt);
  const durationMs =
    Number.isFinite(wall) && wall >= 0 ? wall : Math.max(...audits.map((a) => a.totals.durationMs));
  const merged: Audit = {
    version: 1,
    runId: runIds.length === 1 ? first.runId : `merged-${contentHash(runIds.sort().join("\n"))}`,
    startedAt,
    finishedAt,
    base: first.base,
    head: first.head,
    model: models.join(","),
    applied: audits.every((audit) => audit.applied),
    articles,
    ...mergedSweeps(audits),
    ...(first.docsRepository ? { docsRepository: { ...first.docsRepository } } : {}),
    totals: computeTotals(articles, durationMs),
  };
  return merged;
}

/** The totals block of an audit, counted from its articles. */
export function computeTotals(articles: readonly AuditArticle[], durationMs: number): AuditTotals {
  const totals: AuditTotals = {
    articles: articles.length,
    updated: 0,
    unchanged: 0,
    failed: 0,
    skipped: 0,
    touched: 0,
    cancelled: 0,
    gave_up: 0,
    promptTokens: 0,
    completionTokens: 0,
    durationMs: Math.round(durationMs),
  };
  let cachedPromptTokens = 0;
  let cached = 0;
  let costUsd = 0;
  // A total is only given when it is whole: one article that spent tokens at an unknown price leaves it out.
  let costKnown = articles.some((article) => article.usage.costUsd !== undefined);
  for (const article of articles) {
    totals[article.status] += 1;
    totals.promptTokens += article.usage.promptTokens;
    totals.completionTokens += article.usage.completionTokens;
    cachedPromptTokens += article.usage.cachedPromptTokens ?? 0;
    if (article.cached) cached += 1;
    if (article.usage.costUsd !== undefined) costUsd += article.usage.costUsd;
    else if (article.usage.promptTokens + article.usage.completionTokens > 0) costKnown = false;
  }
  if (cachedPromptTokens > 0) totals.cachedPromptTokens = cachedPromptTokens;
  if (cached > 0) totals.cached = cached;
  if (costKnown) totals.costUsd = roundUsd(costUsd);
  return totals;
}

/** The combined patch of an audit: every article's patch, in article order. */
export function combinedPatch(audit: Audit): string {
  return audit.articles
    .map((article) => article.patch)
    .filter((patch) => patch.length > 0)
    .map((patch) => (patch.endsWith("\n") ? patch : `${patch}\n`))
    .join("");
}

/** The shards' sweeps joined: one per id, its articles the union of theirs. */
function mergedSweeps(audits: readonly Audit[]): { sweeps?: Sweep[] } {
  const byId = new Map<string, Sweep>();
  for (const audit of audits) {
    for (const sweep of audit.sweeps ?? []) {
      const known = byId.get(sweep.id);
      const articles = new Map((known?.articles ?? []).map((article) => [article.path, article]));
      for (const article of sweep.articles) articles.set(article.path, article);
      byId.set(sweep.id, {
        ...(known ?? sweep),
        articles: [...articles.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
      });
    }
  }
  return byId.size === 0 ? {} : { sweeps: [...byId.values()] };
}
