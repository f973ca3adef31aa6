import type { ImpactReason, Sweep } from "../plan.js";

/** Kinds of names in the plural, for a sweep's title. */
const KIND_PLURALS: Record<string, [string, string]> = {
  class: ["class", "classes"],
  env: ["environment variable", "environment variables"],
  config: ["config key", "config keys"],
  member: ["member", "members"],
  export: ["export", "exports"],
};

/**
 * A sweep in words: "renamed 2,000 functions; 4,192 articles name an old name". Every
 * renderer (the plan table, `--explain`, the PR comment, the reports) says it this way.
 */
export function sweepTitle(sweep: Sweep): string {
  const count = (value: number) => value.toLocaleString("en-US");
  const byChange = (["renamed", "removed"] as const)
    .map((change) => {
      const parts = sweep.changes
        .filter((entry) => entry.change === change)
        .map((entry) => {
          const [one, many] = KIND_PLURALS[entry.kind] ?? [entry.kind, `${entry.kind}s`];
          return `${count(entry.count)} ${entry.count === 1 ? one : many}`;
        });
      return parts.length === 0 ? "" : `${change} ${parts.join(", ")}`;
    })
    .filter(Boolean);
  const articles = sweep.articles.length;
  return `${byChange.join(" and ")}; ${count(articles)} ${articles === 1 ? "article names" : "articles name"} an old name`;
}

/**
 * Whether an article is flagged by a sweep alone: every stale reason it has belongs to one.
 * Such articles are listed under their sweep instead of on rows of their own; an article
 * with other stale evidence keeps its row.
 */
export function sweptOnly(reasons: readonly ImpactReason[], sweeps: readonly Sweep[] = []): boolean {
  const stale = reasons.filter((reason) => reason.stale);
  return stale.length > 0 && stale.every((reason) => sweeps.some((sweep) => sweep.id === reason.sweep));
}

/** An article's reasons with those of a sweep said once, as the sweep's title. */
export function collapseSweepReasons(
  reasons: readonly ImpactReason[],
  sweeps: readonly Sweep[],
): { reasons: ImpactReason[]; sweeps: string[] } {
  const titles = new Map(sweeps.map((sweep) => [sweep.id, sweepTitle(sweep)]));
  const own = reasons.filter((reason) => reason.sweep === undefined || !titles.has(reason.sweep));
  const named = [
    ...new Set(reasons.flatMap((reason) => (reason.sweep && titles.has(reason.sweep) ? [reason.sweep] : []))),
  ];
  return { reasons: own, sweeps: named.map((id) => titles.get(id)!) };
}
