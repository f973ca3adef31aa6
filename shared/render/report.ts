import type { ArticleStatus, Audit, AuditArticle, AuditTotals } from "../audit.js";
import { formatUsd } from "../model/prices.js";
import type { Sweep } from "../plan.js";
import { inertMarkdown } from "./escape.js";
import { inlineCode as code, codeCell, fence, lineSpan, plural, shortSha } from "./markdown.js";
import { sweepTitle, sweptOnly } from "./sweep.js";

/** Order of statuses in the summary: what needs a person's eye first. */
const STATUS_ORDER: ArticleStatus[] = [
  "failed",
  "gave_up",
  "updated",
  "cancelled",
  "unchanged",
  "touched",
  "skipped",
];

export interface ReportOptions {
  /** Heading level of the title (default 1); the PR comment or a larger document may nest it. */
  headingLevel?: number;
  /** Leave out the per-article diffs (default false). */
  omitDiffs?: boolean;
  /** The docs repository on GitHub (`--docs-repo OWNER/NAME`), named and linked in the docs repository line. */
  docsRepository?: GitHubRepository | undefined;
}

/** A repository on GitHub: `owner/name`, on `serverUrl` (default https://github.com). */
export interface GitHubRepository {
  fullName: string;
  serverUrl?: string | undefined;
}

/**
 * Renders an audit as Markdown for people: a summary table, then per article its impact
 * reasons, each edit's reason and evidence, and the diff. Pure: no clock, no I/O.
 */
export function renderReport(audit: Audit, options: ReportOptions = {}): string {
  const level = Math.min(Math.max(options.headingLevel ?? 1, 1), 4);
  const h = (depth: number) => "#".repeat(level + depth);
  const out: string[] = [];
  out.push(`${h(0)} Impact report`, "");
  out.push(renderRunLine(audit), "");
  const docs = docsRepositoryNote(audit, options.docsRepository);
  if (docs !== undefined) out.push(docs, "");
  out.push(renderSummaryTable(audit), "");
  const articles = sortArticles(audit.articles);
  for (const article of articles) {
    out.push(renderArticle(article, h(1), options.omitDiffs ?? false));
  }
  return `${out.join("\n").trimEnd()}\n`;
}

/** One line naming the change, the model and what the run did. */
export function renderRunLine(audit: Audit): string {
  const range =
    audit.base === audit.head
      ? code(audit.base)
      : `${code(shortSha(audit.base))}..${code(shortSha(audit.head))}`;
  const parts = [`Change ${range}`, `model ${code(audit.model)}`];
  if (audit.shard) parts.push(`shard ${audit.shard.index}/${audit.shard.count}`);
  parts.push(audit.applied ? "patches applied to the working tree" : "patches not applied");
  return `${parts.join(" · ")}.`;
}

/**
 * The line that says where the edits go when the articles are in a separate docs repository
 * (`--docs-repo`), in Markdown; undefined when they are in the code repository.
 */
export function docsRepositoryNote(
  audit: Pick<Audit, "docsRepository">,
  github?: GitHubRepository,
): string | undefined {
  const name = audit.docsRepository?.name;
  if (name === undefined) return undefined;
  const where = github === undefined ? "" : ` on GitHub, [${github.fullName}](${gitHubUrl(github)})`;
  return `The articles are in the docs repository ${code(name)}${where} (paths ${code(`${name}:…`)}): their patches apply there, not to this repository (${code("impact apply AUDIT --docs-repo DIR")}).`;
}

/** The web address of a GitHub repository (owner/name checked by the commands that take it). */
export function gitHubUrl(repository: GitHubRepository): string {
  return `${(repository.serverUrl ?? "https://github.com").replace(/\/+$/, "")}/${repository.fullName}`;
}

/** The summary table: one row per article with its status, edit count and tokens. */
export function renderSummaryTable(audit: Audit): string {
  const totals = audit.totals;
  const counts = STATUS_ORDER.filter((status) => totals[status] > 0).map(
    (status) => `${totals[status]} ${status}`,
  );
  const lines = [
    `${plural(totals.articles, "article")}${counts.length > 0 ? `: ${counts.join(", ")}` : ""}; ${renderSpend(totals)}.`,
  ];
  if (audit.articles.length === 0) return lines[0]!;
  const withCost = totals.costUsd !== undefined;
  lines.push(
    "",
    `| Article | Status | Edits | Tokens |${withCost ? " Cost |" : ""}`,
    `|---|---|---:|---:|${withCost ? "---:|" : ""}`,
  );
  for (const article of sortArticles(audit.articles)) {
    if (sweptOnly(article.impact, audit.sweeps)) continue;
    const tokens = article.usage.promptTokens + article.usage.completionTokens;
    const cost = article.usage.costUsd === undefined ? "" : formatUsd(article.usage.costUsd);
    lines.push(
      `| ${cell(article.path)} | ${shownStatus(article)}${article.cached ? " (cached)" : ""} | ${article.edits.length} | ${formatTokens(tokens)} |${withCost ? ` ${cost} |` : ""}`,
    );
  }
  for (const sweep of audit.sweeps ?? []) lines.push("", ...sweepLines(sweep, audit.articles));
  return lines.join("\n");
}

/** A sweep: what the change did, then every article of it with its status and the old names it writes. */
function sweepLines(sweep: Sweep, articles: readonly AuditArticle[]): string[] {
  const byPath = new Map(articles.map((article) => [article.path, article]));
  return [
    `Sweep: ${oneLine(sweepTitle(sweep))}:`,
    "",
    ...sweep.articles.map((entry) => {
      const article = byPath.get(entry.path);
      return `- ${code(entry.path)}${article ? ` — ${shownStatus(article)}` : ""} (writes ${entry.names.map(code).join(", ")})`;
    }),
  ];
}

/**
 * What the run spent, in one phrase: tokens (cached prompt tokens named apart), the cost
 * when the price is known, and how many results came from the result cache.
 */
export function renderSpend(totals: AuditTotals): string {
  const tokens = `${formatTokens(totals.promptTokens + totals.completionTokens)} tokens`;
  const cachedTokens =
    (totals.cachedPromptTokens ?? 0) > 0
      ? ` (${formatTokens(totals.cachedPromptTokens ?? 0)} prompt tokens from the provider's cache)`
      : "";
  const cost = totals.costUsd === undefined ? "" : `, ${formatUsd(totals.costUsd)}`;
  const reused =
    (totals.cached ?? 0) > 0 ? `; ${plural(totals.cached ?? 0, "result")} reused from the result cache` : "";
  return `${tokens}${cachedTokens}${cost}${reused}`;
}

function renderArticle(article: AuditArticle, heading: string, omitDiffs: boolean): string {
  const out: string[] = [`${heading} ${code(article.path)} — ${shownStatus(article)}`, ""];
  if (article.impact.length > 0) {
    out.push("Why it was checked:", "");
    for (const reason of article.impact) {
      out.push(`- ${reason.kind} ${code(reason.source)}: ${oneLine(reason.detail)}`);
    }
    out.push("");
  }
  if (article.error)
    out.push(`**Error (${code(article.error.code)}):** ${oneLine(article.error.message)}`, "");
  if (article.edits.length > 0) {
    out.push("Edits:", "");
    article.edits.forEach((edit, index) => {
      const lines = lineSpan(edit.startLine, edit.endLine);
      const id = edit.id === undefined ? "" : ` (${code(edit.id)})`;
      out.push(`${index + 1}. ${edit.kind}, ${lines}${id}: ${oneLine(edit.reason)}`);
      if (edit.evidence.length > 0) out.push(`   Evidence: ${edit.evidence.map(code).join(", ")}`);
    });
    out.push("");
  }
  if (hasOwnSummary(article)) out.push(`> ${oneLine(article.summary)}`, "");
  if (!omitDiffs && article.patch !== "") out.push(fence(article.patch, "diff"), "");
  return out.join("\n");
}

/** Whether the summary says something the error does not (a failure's summary is its error): shown once. */
export function hasOwnSummary(article: Pick<AuditArticle, "summary" | "error">): boolean {
  const summary = article.summary.trim();
  return summary !== "" && summary !== article.error?.message.trim();
}

/** An article's status as people read it: a created article is `new`, not merely updated. */
export function shownStatus(article: Pick<AuditArticle, "status" | "created">): string {
  return article.created && article.status === "updated" ? "new" : article.status;
}

/** Articles in the order a reviewer reads them: failures first, then by path. */
export function sortArticles(articles: readonly AuditArticle[]): AuditArticle[] {
  return [...articles].sort(
    (a, b) =>
      STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
}

function cell(text: string): string {
  return codeCell(text);
}

/** Model and audit text is data: one line of inert Markdown. */
function oneLine(text: string): string {
  return inertMarkdown(text);
}

function formatTokens(tokens: number): string {
  return tokens.toLocaleString("en-US");
}
