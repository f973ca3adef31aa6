import type { Audit, AuditArticle } from "../audit.js";

/** The hidden marker that identifies Impact's one comment on a pull request. */
export const COMMENT_MARKER = "<!-- impact:comment -->";
/** GitHub refuses issue comments longer than this many characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;

export interface RenderCommentOptions {
  /** Upper bound on the body length; default GitHub's limit less a safety margin. */
  maxLength?: number;
}

export interface RenderedComment {
  body: string;
  /** Paths of the articles whose diffs were folded to fit the limit, largest first. */
  folded: string[];
}

const STATUS_LABEL: Record<AuditArticle["status"], string> = {
  updated: "✏️ updated",
  unchanged: "✅ unchanged",
  failed: "❌ failed",
  skipped: "⏭️ skipped",
  touched: "👤 touched by the PR",
  cancelled: "⏹️ cancelled",
};

/** Whether the audit has anything worth a comment: an article updated or failed. */
export function hasCommentWorthyArticles(audit: Audit): boolean {
  return audit.articles.some((article) => article.status === "updated" || article.status === "failed");
}

/**
 * Renders the PR comment for an audit (pure). The body starts with the hidden marker,
 * then a one-line verdict, a table of articles, and per updated or failed article a
 * collapsible block with its reasons, its edits and the diff. When the body would pass
 * `maxLength`, the largest diffs are folded first and the comment says so.
 */
export function renderComment(audit: Audit, options: RenderCommentOptions = {}): RenderedComment {
  const maxLength = options.maxLength ?? GITHUB_COMMENT_LIMIT - 536;
  const detailed = audit.articles.filter(
    (article) => article.status === "updated" || article.status === "failed",
  );
  const folded = new Set<string>();
  // Fold the largest diffs first, one at a time, until the body fits.
  const bySize = [...detailed]
    .filter((article) => article.patch.length > 0)
    .sort((a, b) => b.patch.length - a.patch.length || a.path.localeCompare(b.path));
  let body = assemble(audit, detailed, folded);
  for (const article of bySize) {
    if (body.length <= maxLength) break;
    folded.add(article.path);
    body = assemble(audit, detailed, folded);
  }
  if (body.length > maxLength) {
    // Even without diffs it is too long (thousands of articles): cut, and say so.
    const note = `\n\n_The comment was cut to stay under GitHub's ${GITHUB_COMMENT_LIMIT.toLocaleString("en-US")}-character limit; the audit artifact has everything._\n`;
    body = `${body.slice(0, maxLength - note.length)}${note}`;
  }
  return { body, folded: [...folded] };
}

function assemble(audit: Audit, detailed: AuditArticle[], folded: Set<string>): string {
  const parts: string[] = [COMMENT_MARKER, `### ${verdict(audit)}`, ""];
  if (folded.size > 0) {
    parts.push(
      `> [!NOTE]\n> ${folded.size} diff${folded.size === 1 ? " was" : "s were"} folded (largest first) to stay under GitHub's ${GITHUB_COMMENT_LIMIT.toLocaleString("en-US")}-character comment limit; the audit artifact has ${folded.size === 1 ? "it" : "them"} in full.`,
      "",
    );
  }
  parts.push("| Article | Status | Edits |", "|---|---|---|");
  for (const article of audit.articles) {
    parts.push(`| ${code(article.path)} | ${STATUS_LABEL[article.status]} | ${article.edits.length} |`);
  }
  parts.push("");
  for (const article of detailed) parts.push(articleBlock(article, folded.has(article.path)), "");
  parts.push(
    `<sub>Impact · base ${code(short(audit.base))} → head ${code(short(audit.head))} · model ${code(audit.model)} · run ${code(audit.runId)}</sub>`,
  );
  return `${parts.join("\n")}\n`;
}

function verdict(audit: Audit): string {
  const updated = audit.articles.filter((article) => article.status === "updated").length;
  const failed = audit.articles.filter((article) => article.status === "failed").length;
  const clauses: string[] = [];
  if (updated > 0) {
    clauses.push(
      `${updated} doc article${updated === 1 ? " needs" : "s need"} changes after this PR; proposed edits below`,
    );
  }
  if (failed > 0) {
    clauses.push(`${failed} impacted article${failed === 1 ? "" : "s"} could not be updated automatically`);
  }
  return `Impact: ${clauses.join("; ")}.`;
}

function articleBlock(article: AuditArticle, diffFolded: boolean): string {
  const edits = `${article.edits.length} edit${article.edits.length === 1 ? "" : "s"}`;
  const lines: string[] = [
    "<details>",
    `<summary><code>${escapeHtml(article.path)}</code> — ${article.status}, ${edits}</summary>`,
    "",
  ];
  if (article.impact.length > 0) {
    lines.push("**Why this article**", "");
    for (const reason of article.impact) {
      lines.push(`- ${reason.kind}: ${code(reason.source)} — ${inline(reason.detail)}`);
    }
    lines.push("");
  }
  if (article.status === "failed" && article.error) {
    lines.push(`**Failed** (${code(article.error.code)}): ${inline(article.error.message)}`, "");
  }
  if (article.edits.length > 0) {
    lines.push("**Edits**", "");
    article.edits.forEach((edit, index) => {
      const where =
        edit.startLine === edit.endLine
          ? `line ${edit.startLine}`
          : `lines ${edit.startLine}–${edit.endLine}`;
      const evidence =
        edit.evidence.length > 0 ? ` (evidence: ${edit.evidence.map((item) => code(item)).join(", ")})` : "";
      lines.push(`${index + 1}. ${edit.kind}, ${where}: ${inline(edit.reason)}${evidence}`);
    });
    lines.push("");
  } else if (article.editReasons.length > 0) {
    lines.push("**Edits**", "");
    article.editReasons.forEach((reason, index) => {
      lines.push(`${index + 1}. ${inline(reason)}`);
    });
    lines.push("");
  }
  if (article.summary.trim() !== "") lines.push(`> ${inline(article.summary)}`, "");
  if (article.patch.length > 0) {
    if (diffFolded) {
      const count = article.patch.split("\n").length - 1;
      lines.push(`_Diff folded (${count} lines) to fit the comment size limit._`, "");
    } else {
      const fence = fenceFor(article.patch);
      lines.push(`${fence}diff`, article.patch.replace(/\n$/, ""), fence, "");
    }
  }
  lines.push("</details>");
  return lines.join("\n");
}

/** A code fence longer than any backtick run inside the text, so the text cannot close it. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  return "`".repeat(Math.max(3, longest + 1));
}

/** Inline code that survives backticks and pipes in the text. */
function code(text: string): string {
  const clean = text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|");
  const longest = Math.max(0, ...[...clean.matchAll(/`+/g)].map((match) => match[0].length));
  const ticks = "`".repeat(longest + 1);
  const pad = longest > 0 ? " " : "";
  return `${ticks}${pad}${clean}${pad}${ticks}`;
}

/** Model and diff text is data: one line, and no HTML that could close our <details>. */
function inline(text: string): string {
  return escapeHtml(text.replace(/\s*\r?\n\s*/g, " ").trim());
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function short(sha: string): string {
  return /^[0-9a-f]{40}$/.test(sha) ? sha.slice(0, 12) : sha;
}
