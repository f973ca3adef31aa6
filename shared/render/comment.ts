import type { Audit, AuditArticle } from "../audit.js";
import { lineText, readDiffLines } from "../diff/lines.js";
import type { Sweep } from "../plan.js";
import { escapeHtml, inertMarkdown, oneLine, shellWord } from "./escape.js";
import { codeCell, fence, fenceMarks, lineSpan, plural, shortSha } from "./markdown.js";
import {
  docsRepositoryNote,
  type GitHubRepository,
  hasOwnSummary,
  renderSpend,
  shownStatus,
} from "./report.js";
import { collapseSweepReasons, sweepTitle, sweptOnly } from "./sweep.js";

/** The hidden marker that identifies Impact's one comment on a pull request. */
export const COMMENT_MARKER = "<!-- impact:comment -->";
/** GitHub refuses issue comments longer than this many characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;

export interface RenderCommentOptions {
  /** Upper bound on the body length; default GitHub's limit less a safety margin. */
  maxLength?: number;
  /** The docs repository on GitHub (`--docs-repo OWNER/NAME`), linked in the docs repository line. */
  docsRepository?: GitHubRepository;
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
  gave_up: "⚠️ gave up after a refused edit",
};

/** Statuses a reviewer must look at: each gets its block in the comment. */
const NEEDS_A_LOOK: ReadonlySet<AuditArticle["status"]> = new Set(["updated", "failed", "gave_up"]);

/** Whether the audit has anything worth a comment: an article updated or failed. */
export function hasCommentWorthyArticles(audit: Audit): boolean {
  return audit.articles.some((article) => NEEDS_A_LOOK.has(article.status));
}

/**
 * Renders the PR comment for an audit (pure). The body starts with the hidden marker,
 * then a one-line verdict, a table of articles, and per updated or failed article a
 * collapsible block with its reasons, its edits and the diff. When the body would pass
 * `maxLength`, the largest diffs are folded first and the comment says so.
 */
export function renderComment(audit: Audit, options: RenderCommentOptions = {}): RenderedComment {
  const maxLength = options.maxLength ?? GITHUB_COMMENT_LIMIT - 536;
  const detailed = audit.articles.filter((article) => NEEDS_A_LOOK.has(article.status));
  const folded = new Set<string>();
  // Fold the largest diffs first, one at a time, until the body fits.
  const bySize = [...detailed]
    .filter((article) => article.patch.length > 0)
    .sort((a, b) => b.patch.length - a.patch.length || a.path.localeCompare(b.path));
  let body = assemble(audit, detailed, folded, options.docsRepository);
  for (const article of bySize) {
    if (body.length <= maxLength) break;
    folded.add(article.path);
    body = assemble(audit, detailed, folded, options.docsRepository);
  }
  if (body.length > maxLength) {
    // Even without diffs it is too long (thousands of articles): cut, and say so.
    const note = `\n\n_The comment was cut to stay under GitHub's ${GITHUB_COMMENT_LIMIT.toLocaleString("en-US")}-character limit; the audit artifact has everything._\n`;
    body = `${body.slice(0, maxLength - note.length)}${note}`;
  }
  return { body, folded: [...folded] };
}

function assemble(
  audit: Audit,
  detailed: AuditArticle[],
  folded: Set<string>,
  docsRepository: GitHubRepository | undefined,
): string {
  const parts: string[] = [COMMENT_MARKER, `### ${verdict(audit)}`, ""];
  const docs = docsRepositoryNote(audit, docsRepository);
  if (docs !== undefined) parts.push(docs, "");
  if (folded.size > 0) {
    parts.push(
      `> [!NOTE]\n> ${plural(folded.size, "diff was", "diffs were")} folded (largest first) to stay under GitHub's ${GITHUB_COMMENT_LIMIT.toLocaleString("en-US")}-character comment limit; the audit artifact has ${folded.size === 1 ? "it" : "them"} in full.`,
      "",
    );
  }
  parts.push("| Article | Status | Edits |", "|---|---|---|");
  const sweeps = audit.sweeps ?? [];
  const swept = (article: AuditArticle) => sweptOnly(article.impact, sweeps);
  for (const article of audit.articles) {
    if (swept(article)) continue;
    parts.push(`| ${codeCell(article.path)} | ${statusLabel(article)} | ${article.edits.length} |`);
  }
  parts.push("");
  for (const sweep of sweeps) parts.push(sweepBlock(sweep, audit.articles), "");
  for (const article of detailed) parts.push(articleBlock(article, folded.has(article.path), sweeps), "");
  parts.push(
    `<sub>Impact · base ${code(shortSha(audit.base))} → head ${code(shortSha(audit.head))} · model ${code(audit.model)} · ${renderSpend(audit.totals)} · run ${code(audit.runId)}</sub>`,
  );
  return `${parts.join("\n")}\n`;
}

function verdict(audit: Audit): string {
  const updated = audit.articles.filter((article) => article.status === "updated").length;
  const failed = audit.articles.filter(
    (article) => article.status === "failed" || article.status === "gave_up",
  ).length;
  const clauses: string[] = [];
  if (updated > 0) {
    clauses.push(
      `${plural(updated, "doc article needs", "doc articles need")} changes after this PR; proposed edits below`,
    );
  }
  if (failed > 0) {
    clauses.push(`${plural(failed, "impacted article")} could not be updated automatically`);
  }
  return `Impact: ${clauses.join("; ")}.`;
}

function statusLabel(article: AuditArticle): string {
  return shownStatus(article) === "new" ? "🆕 new article" : STATUS_LABEL[article.status];
}

/** Sweep articles listed in the comment; the audit artifact has them all. */
const MAX_SWEEP_ITEMS = 50;

/** A sweep: one line saying what the change did and how its articles fared, the articles folded under it. */
function sweepBlock(sweep: Sweep, articles: readonly AuditArticle[]): string {
  const byPath = new Map(articles.map((article) => [article.path, article]));
  const counts = new Map<string, number>();
  for (const entry of sweep.articles) {
    const article = byPath.get(entry.path);
    if (article) counts.set(statusLabel(article), (counts.get(statusLabel(article)) ?? 0) + 1);
  }
  const fared = [...counts].map(([label, count]) => `${count.toLocaleString("en-US")} ${label}`).join(", ");
  const lines = [
    "<details>",
    `<summary><b>Sweep</b>: ${escapeHtml(oneLine(sweepTitle(sweep)))}${fared ? ` — ${escapeHtml(fared)}` : ""}</summary>`,
    "",
  ];
  for (const entry of sweep.articles.slice(0, MAX_SWEEP_ITEMS)) {
    const article = byPath.get(entry.path);
    lines.push(
      `- ${code(entry.path)}${article ? ` — ${statusLabel(article)}` : ""} (writes ${entry.names.map(code).join(", ")})`,
    );
  }
  if (sweep.articles.length > MAX_SWEEP_ITEMS)
    lines.push(
      `- and ${(sweep.articles.length - MAX_SWEEP_ITEMS).toLocaleString("en-US")} more (the audit artifact lists them all)`,
    );
  lines.push("", "</details>");
  return lines.join("\n");
}

function articleBlock(article: AuditArticle, diffFolded: boolean, sweeps: readonly Sweep[]): string {
  const edits = plural(article.edits.length, "edit");
  const lines: string[] = [
    "<details>",
    `<summary><code>${escapeHtml(oneLine(article.path))}</code> — ${shownStatus(article)}, ${edits}</summary>`,
    "",
  ];
  if (article.impact.length > 0) {
    lines.push("**Why this article**", "");
    const collapsed = collapseSweepReasons(article.impact, sweeps);
    for (const title of collapsed.sweeps) lines.push(`- sweep: ${inline(title)}`);
    for (const reason of collapsed.reasons) {
      lines.push(`- ${reason.kind}: ${code(reason.source)} — ${inline(reason.detail)}`);
    }
    lines.push("");
  }
  if ((article.status === "failed" || article.status === "gave_up") && article.error) {
    const label = article.status === "failed" ? "Failed" : "Gave up after a refused edit";
    lines.push(`**${label}** (${code(article.error.code)}): ${inline(article.error.message)}`, "");
  }
  if (article.edits.length > 0) {
    lines.push("**Edits**", "");
    article.edits.forEach((edit, index) => {
      const where = lineSpan(edit.startLine, edit.endLine);
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
  if (hasOwnSummary(article)) lines.push(`> ${inline(article.summary)}`, "");
  lines.push(dismissHint(article), "");
  if (article.patch.length > 0) {
    if (diffFolded) {
      const count = article.patch.split("\n").length - 1;
      lines.push(`_Diff folded (${count} lines) to fit the comment size limit._`, "");
    } else {
      lines.push(fence(article.patch, "diff"), "");
    }
  }
  lines.push("</details>");
  return lines.join("\n");
}

/** Inline code for a path or name that GitHub renders as it is, also inside our tables. */
/** How to tell Impact, once, that these changes do not affect the article (`impact dismiss`). */
function dismissHint(article: AuditArticle): string {
  const sources = [...new Set(article.impact.map((reason) => reason.source))];
  const scope = sources.length === 1 ? ` --for ${shellWord(sources[0]!)}` : "";
  const command = `impact dismiss ${shellWord(article.path)}${scope} --reason "…"`;
  return `<sub>Not affected by changes like these? ${code(command)} records it in impact.config.json, and Impact stops flagging it.</sub>`;
}

function code(text: string): string {
  return codeCell(text);
}

/** Model and audit text is data: one line of inert Markdown. */
function inline(text: string): string {
  return inertMarkdown(text);
}

/** A GitHub review comment with a ```suggestion block, replacing lines of the PR's head file. */
export interface ReviewSuggestion {
  path: string;
  /** First and last line (1-based, head file) the suggestion replaces. */
  startLine: number;
  line: number;
  body: string;
}

/**
 * The lines of the new side of a unified diff (as GitHub's pulls/N/files `patch` gives it)
 * that a review comment may be put on: added and context lines.
 */
export function diffRightLines(patch: string): Set<number> {
  const lines = new Set<number>();
  for (const line of readDiffLines(patch).lines) if (line.newLine !== undefined) lines.add(line.newLine);
  return lines;
}

/**
 * Review suggestions for the edits of updated articles that fall on lines the pull request
 * itself changed (`prLines`: per path, the lines its diff shows), pure. Each change block of
 * an article's patch becomes one suggestion over the head-file lines it replaces; a block
 * that only inserts takes the line before it along. Blocks off the PR's lines are left out:
 * GitHub accepts review comments only there.
 */
export function buildSuggestions(
  audit: Audit,
  prLines: ReadonlyMap<string, ReadonlySet<number>>,
): ReviewSuggestion[] {
  const suggestions: ReviewSuggestion[] = [];
  for (const article of audit.articles) {
    const allowed = prLines.get(article.path);
    if (article.status !== "updated" || !article.patch || !allowed) continue;
    for (const block of changeBlocks(article.patch)) {
      let startLine = block.oldStart;
      let line = block.oldStart + block.removed.length - 1;
      let replacement = block.added;
      if (block.removed.length === 0) {
        // A pure insertion: anchor it on the line before (or after, at the top of the file).
        if (block.before !== undefined) {
          startLine = line = block.oldStart - 1;
          replacement = [block.before, ...block.added];
        } else if (block.after !== undefined) {
          startLine = line = block.oldStart;
          replacement = [...block.added, block.after];
        } else {
          continue;
        }
      }
      let inside = true;
      for (let number = startLine; number <= line; number++) inside &&= allowed.has(number);
      if (!inside || startLine < 1) continue;
      const reason =
        article.edits.find((edit) => edit.startLine <= block.newEnd && edit.endLine >= block.newStart)
          ?.reason ??
        article.editReasons[0] ??
        "Keeps this article true to the code.";
      const text = replacement.join("\n");
      // The suggestion is committed as it is, so its text is not made printable, only fenced.
      const marks = fenceMarks(text);
      suggestions.push({
        path: article.path,
        startLine,
        line,
        body: `${inline(reason)}\n\n${marks}suggestion\n${text}${text === "" ? "" : "\n"}${marks}\n\n<sub>Impact</sub>`,
      });
    }
  }
  return suggestions;
}

interface ChangeBlock {
  /** Head-file line of the first removed line (or where the insertion goes). */
  oldStart: number;
  removed: string[];
  added: string[];
  /** New-file line range of the added text (for finding the edit's reason). */
  newStart: number;
  newEnd: number;
  before?: string | undefined;
  after?: string;
}

function changeBlocks(patch: string): ChangeBlock[] {
  const blocks: ChangeBlock[] = [];
  let current: ChangeBlock | undefined;
  let lastContext: string | undefined;
  // Where the next changed line goes: after the last body line read.
  let oldLine = 1;
  let newLine = 1;
  const close = (after?: string) => {
    if (current) {
      if (after !== undefined) current.after = after;
      blocks.push(current);
      current = undefined;
    }
  };
  for (const line of readDiffLines(patch).lines) {
    switch (line.kind) {
      case "hunk":
        close();
        oldLine = Math.max(1, line.hunk!.oldStart);
        newLine = Math.max(1, line.hunk!.newStart);
        lastContext = undefined;
        break;
      case "removed":
        current ??= openBlock(oldLine, newLine, lastContext);
        current.removed.push(lineText(line));
        oldLine = line.oldLine! + 1;
        break;
      case "added":
        current ??= openBlock(oldLine, newLine, lastContext);
        current.added.push(lineText(line));
        current.newEnd = line.newLine!;
        newLine = line.newLine! + 1;
        break;
      case "context":
        close(lineText(line));
        lastContext = lineText(line);
        oldLine = line.oldLine! + 1;
        newLine = line.newLine! + 1;
        break;
      case "meta":
        close();
        break;
      case "note":
        break;
    }
  }
  close();
  return blocks;
}

function openBlock(oldStart: number, newStart: number, before: string | undefined): ChangeBlock {
  return {
    oldStart,
    removed: [],
    added: [],
    newStart,
    newEnd: newStart,
    before,
  };
}
