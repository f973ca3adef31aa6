import type { Sweep } from "../plan.js";

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
