import type { ImpactPlan, PlannedArticle, Sweep } from "../../shared/plan.js";
import { workflowCommand } from "../../shared/render/escape.js";
import { plural, shortSha } from "../../shared/render/markdown.js";
import { sweepTitle } from "../../shared/render/sweep.js";

/** `plan --check` (strict: exit 3 on stale articles) or `--check=advisory` (annotations, exit 0). */
export type CheckMode = "strict" | "advisory";

/** The commit trailer that acknowledges a change: `Docs-Impact: none`. */
export const ACKNOWLEDGE_TRAILER = "Docs-Impact";
const ACKNOWLEDGE_VALUE = "none";

/** Who said the change needs no doc update: a commit of the range (by trailer) or a PR label. */
export type Acknowledgement =
  | { kind: "commit"; sha: string; subject: string }
  | { kind: "label"; label: string };

/**
 * The articles `plan --check` fails on: stale and left untouched by the change. A plan
 * written before tiers counts its impacted articles; `related` and `new` never fail it.
 */
export function untouchedStale(plan: Pick<ImpactPlan, "articles">): PlannedArticle[] {
  return plan.articles.filter(
    (article) => article.status === "impacted" && (article.tier ?? "stale") === "stale",
  );
}

/** The one line a failed (or advisory) check says: how many, and which (a sweep's articles as the sweep). */
export function checkSummary(articles: readonly PlannedArticle[], sweeps: readonly Sweep[] = []): string {
  const names = articles.map((article) => article.path);
  const shown =
    names.length > 5 ? `${names.slice(0, 5).join(", ")} and ${names.length - 5} more` : names.join(", ");
  const swept = sweeps.map((sweep) => {
    const paths = new Set(sweep.articles.map((article) => article.path));
    const count = articles.filter((article) => paths.has(article.path)).length;
    return `${count} of them under one sweep (${sweepTitle(sweep)})`;
  });
  return `${plural(articles.length, "article probably needs", "articles probably need")} an update that this change did not make: ${shown}${swept.map((said) => `; ${said}`).join("")}`;
}

/**
 * The first commit (newest first) whose trailers say `Docs-Impact: none`, or the configured
 * label when the pull request carries it.
 */
export function findAcknowledgement(input: {
  commits: readonly { sha: string; subject: string; values: readonly string[] }[];
  labels: readonly string[];
  label: string | undefined;
}): Acknowledgement | undefined {
  const commit = input.commits.find((entry) =>
    entry.values.some((value) => value.toLowerCase() === ACKNOWLEDGE_VALUE),
  );
  if (commit) return { kind: "commit", sha: commit.sha, subject: commit.subject };
  if (input.label !== undefined && input.labels.includes(input.label))
    return { kind: "label", label: input.label };
  return undefined;
}

/** The line a passing, acknowledged check prints. */
export function acknowledgementLine(acknowledgement: Acknowledgement, count: number): string {
  const what = `${plural(count, "article")} flagged as stale, not checked`;
  return acknowledgement.kind === "commit"
    ? `acknowledged by commit ${shortSha(acknowledgement.sha)} "${acknowledgement.subject}" (${ACKNOWLEDGE_TRAILER}: ${ACKNOWLEDGE_VALUE}): ${what}`
    : `acknowledged by the pull request label "${acknowledgement.label}": ${what}`;
}

/** Reasons written into one annotation; the rest are counted (all of them: `--explain`). */
const MAX_REASONS_PER_ANNOTATION = 3;

/**
 * GitHub annotations for `--check=advisory`: one `::warning` per article line a stale reason
 * contradicts (reasons on the same line together), or one on the file when no reason names a
 * line. Paths and text are escaped, so nothing in them can start a workflow command.
 * `onFiles: false` (articles in a separate docs repository, which the pull request's files
 * are not): each annotation names its article in its title instead of sitting on a file.
 */
export function checkAnnotations(
  articles: readonly PlannedArticle[],
  options: { onFiles?: boolean } = {},
): string[] {
  const onFiles = options.onFiles ?? true;
  const lines: string[] = [];
  for (const article of articles) {
    const byLine = new Map<number | undefined, string[]>();
    for (const reason of article.impact) {
      const where = reason.hunk ? ` (${reason.hunk})` : reason.source ? ` (${reason.source})` : "";
      const said = `${reason.detail}${where}`;
      byLine.set(reason.line, [...(byLine.get(reason.line) ?? []), said]);
    }
    const located = [...byLine].filter(([line]) => line !== undefined);
    const entries = located.length > 0 ? located : [[undefined, [...byLine.values()].flat()] as const];
    for (const [line, said] of entries) {
      const properties = onFiles
        ? { file: article.path, line, title: "Impact" }
        : { title: `Impact: ${article.path}${line === undefined ? "" : `:${line}`}` };
      const shown = said.slice(0, MAX_REASONS_PER_ANNOTATION).join("; ") || "changed code it documents";
      const more =
        said.length > MAX_REASONS_PER_ANNOTATION
          ? `; and ${said.length - MAX_REASONS_PER_ANNOTATION} more (impact plan --explain ${article.path})`
          : "";
      const message = `this article may be stale after the change: ${shown}${more}`;
      lines.push(workflowCommand("warning", properties, message));
    }
  }
  return lines;
}
