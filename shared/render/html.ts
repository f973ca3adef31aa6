import { createHash } from "node:crypto";
import { type Audit, type AuditArticle, type AuditEdit, editId } from "../audit.js";
import { type DiffLineKind, readDiffLines } from "../diff/lines.js";
import { pathInDocsRepository } from "../docs-repository.js";
import { formatUsd } from "../model/prices.js";
import type { Sweep } from "../plan.js";
import { escapeHtml, shellWord } from "./escape.js";
import { lineSpan, plural, shortSha } from "./markdown.js";
import { gitHubUrl, hasOwnSummary, renderSpend, shownStatus, sortArticles } from "./report.js";
import { sweepTitle, sweptOnly } from "./sweep.js";

export interface HtmlReportOptions {
  /** `owner/name` on GitHub: evidence becomes links to the head commit's files. */
  repository?: string | undefined;
  /** Default https://github.com (GitHub Enterprise: its own URL). */
  serverUrl?: string | undefined;
  /** The audit file as the reviewer names it, for the `impact apply` command the page composes. */
  auditPath?: string;
  /** `owner/name` of the docs repository on GitHub: its evidence links to the audit's docs commit. */
  docsRepository?: string | undefined;
}

/**
 * The audit as one self-contained HTML page (pure): a verdict, the article table, and per
 * article its reasons, each edit's reason and evidence, its summary and its diff with
 * added and removed lines coloured and changed words marked. Inline CSS only; the page's
 * Content-Security-Policy forbids every request and every script but one: when the audit has
 * edits to choose from, each edit gets a "keep" box and REVIEW_SCRIPT, pinned by its hash,
 * turns the boxes into the `impact apply --only/--exclude` command (without scripts the page
 * shows the ids to type). Every string from the audit goes through escapeHtml.
 */
export function renderHtmlReport(audit: Audit, options: HtmlReportOptions = {}): string {
  const articles = sortArticles(audit.articles);
  const links = evidenceLinker(audit, options);
  const range = audit.base === audit.head ? audit.base : `${shortSha(audit.base)}..${shortSha(audit.head)}`;
  const state = verdictState(audit);
  const reviewable = audit.articles.some(isReviewable);
  const body = [
    "<header>",
    "<h1>Impact report</h1>",
    `<p class="verdict verdict-${state}">${escapeHtml(verdictText(audit))}</p>`,
    `<p class="run">Change <code>${escapeHtml(range)}</code> · model <code>${escapeHtml(audit.model)}</code>${audit.shard ? ` · shard ${audit.shard.index}/${audit.shard.count}` : ""} · ${escapeHtml(renderSpend(audit.totals))} · ${audit.applied ? "patches applied to the working tree" : "patches not applied"}</p>`,
    ...(audit.docsRepository
      ? [
          `<p class="run">The articles are in the docs repository <code>${escapeHtml(audit.docsRepository.name)}</code>${docsRepositoryLink(options)} (paths <code>${escapeHtml(audit.docsRepository.name)}:…</code>): their patches apply there, with <code>--docs-repo DIR</code> naming its checkout.</p>`,
        ]
      : []),
    "</header>",
    "<main>",
    articleTable(audit, articles),
    ...(audit.sweeps ?? []).map((sweep) => sweepSection(sweep, articles)),
    ...(reviewable
      ? [reviewSection(options.auditPath ?? "audit.json", audit.docsRepository !== undefined)]
      : []),
    ...articles.map((article, index) => articleSection(article, index, links, reviewable)),
    "</main>",
    `<footer>Run <code>${escapeHtml(audit.runId)}</code>, ${escapeHtml(audit.startedAt)} to ${escapeHtml(audit.finishedAt)}.</footer>`,
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'${reviewable ? `; script-src '${REVIEW_SCRIPT_HASH}'` : ""}">
<meta name="referrer" content="no-referrer">
<title>Impact report · ${escapeHtml(range)}</title>
<style>${STYLE}</style>
</head>
<body>
${body.join("\n")}
${reviewable ? `<script>${REVIEW_SCRIPT}</script>\n` : ""}</body>
</html>
`;
}

type VerdictState = "ok" | "changes" | "failed";

function verdictState(audit: Audit): VerdictState {
  if (audit.totals.failed > 0 || audit.totals.gave_up > 0) return "failed";
  return audit.totals.updated > 0 ? "changes" : "ok";
}

function verdictText(audit: Audit): string {
  const { updated, failed, cancelled, skipped, gave_up: gaveUp } = audit.totals;
  const clauses: string[] = [];
  if (updated > 0) clauses.push(`${plural(updated, "article needs", "articles need")} changes`);
  if (failed > 0) clauses.push(`${plural(failed, "article")} could not be updated`);
  if (gaveUp > 0)
    clauses.push(
      `${plural(gaveUp, "article")} left as ${gaveUp === 1 ? "it was" : "they were"} after a refused edit`,
    );
  if (cancelled > 0) clauses.push(`${cancelled} cancelled`);
  if (skipped > 0) clauses.push(`${skipped} skipped`);
  if (clauses.length === 0) {
    return audit.articles.length === 0
      ? "No article is impacted by this change."
      : "The docs are still right.";
  }
  return `${clauses.join("; ")}.`.replace(/^./, (first) => first.toUpperCase());
}

function articleTable(audit: Audit, articles: readonly AuditArticle[]): string {
  if (articles.length === 0) return "<p>No impacted articles.</p>";
  const withCost = audit.totals.costUsd !== undefined;
  const headings = ["Article", "Status", "Score", "Edits", "Tokens", ...(withCost ? ["Cost"] : [])];
  const swept = (article: AuditArticle) => sweptOnly(article.impact, audit.sweeps);
  const rows = articles.flatMap((article, index) => {
    if (swept(article)) return [];
    const tokens = article.usage.promptTokens + article.usage.completionTokens;
    const score = scoreOf(article);
    const cells = [
      `<td class="path"><a href="#article-${index + 1}">${escapeHtml(article.path)}</a></td>`,
      `<td>${statusBadge(article)}</td>`,
      `<td class="num">${score === undefined ? "–" : score.toFixed(2)}</td>`,
      `<td class="num">${article.edits.length}</td>`,
      `<td class="num">${tokens.toLocaleString("en-US")}</td>`,
      ...(withCost
        ? [
            `<td class="num">${article.usage.costUsd === undefined ? "–" : formatUsd(article.usage.costUsd)}</td>`,
          ]
        : []),
    ];
    return `<tr>${cells.join("")}</tr>`;
  });
  return `<section class="summary">
<h2>Articles</h2>
<div class="table-wrap"><table>
<thead><tr>${headings.map((heading) => `<th scope="col">${heading}</th>`).join("")}</tr></thead>
<tbody>
${rows.join("\n")}
</tbody>
</table></div>
</section>`;
}

/** A sweep: what the change did, its articles folded under it, each linking to its section. */
function sweepSection(sweep: Sweep, articles: readonly AuditArticle[]): string {
  const index = new Map(articles.map((article, position) => [article.path, position]));
  const items = sweep.articles.map((entry) => {
    const position = index.get(entry.path);
    const article = position === undefined ? undefined : articles[position]!;
    const path =
      position === undefined
        ? `<code>${escapeHtml(entry.path)}</code>`
        : `<a href="#article-${position + 1}">${escapeHtml(entry.path)}</a>`;
    const names = entry.names.map((name) => `<code>${escapeHtml(name)}</code>`).join(", ");
    return `<li>${path}${article ? ` ${statusBadge(article)}` : ""} writes ${names}</li>`;
  });
  return `<section class="sweep">
<h2>Sweep: ${escapeHtml(sweepTitle(sweep))}</h2>
<details><summary>${escapeHtml(plural(sweep.articles.length, "article"))}</summary>
<ul>
${items.join("\n")}
</ul></details>
</section>`;
}

function statusBadge(article: AuditArticle): string {
  const cached = article.cached ? ' <span class="badge badge-cached">cached</span>' : "";
  const status = shownStatus(article);
  return `<span class="badge status-${status}">${status}</span>${cached}`;
}

/** The plan's combined score of the article, when the plan scored it. */
function scoreOf(article: AuditArticle): number | undefined {
  return article.score;
}

function articleSection(
  article: AuditArticle,
  index: number,
  links: EvidenceLinker,
  reviewable: boolean,
): string {
  const out = [
    `<section class="article" id="article-${index + 1}">`,
    `<h2><code>${escapeHtml(article.path)}</code> ${statusBadge(article)}</h2>`,
  ];
  if (article.impact.length > 0) {
    out.push("<h3>Why it was checked</h3>", '<ul class="reasons">');
    for (const reason of article.impact) {
      out.push(
        `<li><span class="kind">${escapeHtml(reason.kind)}</span> <code>${escapeHtml(reason.source)}</code>: ${escapeHtml(reason.detail)}</li>`,
      );
    }
    out.push("</ul>");
  }
  if (article.error) {
    out.push(
      `<p class="error"><strong>Error</strong> <code>${escapeHtml(article.error.code)}</code>: ${escapeHtml(article.error.message)}</p>`,
    );
  }
  if (article.edits.length > 0) {
    out.push("<h3>Edits</h3>", '<ol class="edits">');
    article.edits.forEach((edit, position) => {
      const id =
        reviewable && isReviewable(article) ? (edit.id ?? editId(article.path, position)) : undefined;
      out.push(editItem(edit, links, id));
    });
    out.push("</ol>");
  }
  if (hasOwnSummary(article)) {
    out.push(`<blockquote class="summary-text">${escapeHtml(article.summary.trim())}</blockquote>`);
  }
  if (article.patch !== "") out.push(renderDiff(article.patch));
  out.push("</section>");
  return out.join("\n");
}

function editItem(edit: AuditEdit, links: EvidenceLinker, id: string | undefined): string {
  const lines = lineSpan(edit.startLine, edit.endLine);
  const evidence =
    edit.evidence.length === 0
      ? ""
      : `<p class="evidence">Evidence: ${edit.evidence.map((location) => links(location)).join(", ")}</p>`;
  const keep =
    id === undefined
      ? ""
      : `<label class="keep"><input type="checkbox" name="keep" value="${escapeHtml(id)}" checked> keep <code>${escapeHtml(id)}</code></label>`;
  const own = edit.request ? requestDiff(edit) : "";
  return `<li>${keep}<p><span class="kind">${escapeHtml(edit.kind)}</span>, ${lines}: <span class="reason">${escapeHtml(edit.reason)}</span></p>${evidence}${own}</li>`;
}

/** Whether an article's edits can be picked one by one: an updated article with a patch. */
function isReviewable(article: AuditArticle): boolean {
  return article.status === "updated" && article.patch !== "" && article.edits.length > 0;
}

/**
 * One edit's own change, as the model gave it: the text it replaces and the text it writes
 * (a section's new content, a checklist item's state, frontmatter keys), coloured as a diff.
 */
function requestDiff(edit: AuditEdit): string {
  const request = edit.request!;
  const minus = (text: string) => text.split("\n").map((line) => `-${line}`);
  const plus = (text: string) => text.split("\n").map((line) => `+${line}`);
  let lines: string[];
  if ("old_string" in request) lines = [...minus(request.old_string), ...plus(request.new_string)];
  else if ("section" in request)
    lines = [`@@ section ${request.section}, ${request.mode} @@`, ...plus(request.content)];
  else if ("checklist_item" in request)
    lines = [`@@ checklist @@`, `${request.checked ? "+[x]" : "+[ ]"} ${request.checklist_item}`];
  else
    lines = [
      "@@ frontmatter @@",
      ...Object.entries(request.frontmatter).map(([key, value]) =>
        value === null ? `-${key}` : `+${key}: ${JSON.stringify(value)}`,
      ),
    ];
  return `<details class="edit-diff"><summary>This edit</summary>${renderDiff(`${lines.join("\n")}\n`)}</details>`;
}

/** `on GitHub, <a>owner/name</a>` for the docs repository line when the docs repository is known ("" otherwise). */
function docsRepositoryLink(options: HtmlReportOptions): string {
  const repository = options.docsRepository;
  if (repository === undefined || !/^[\w.-]+\/[\w.-]+$/.test(repository)) return "";
  const href = gitHubUrl({ fullName: repository, serverUrl: options.serverUrl || undefined });
  if (!/^https?:\/\//.test(href)) return "";
  return ` on GitHub, <a href="${escapeHtml(href)}" rel="noreferrer">${escapeHtml(repository)}</a>`;
}

/** Where the reviewer's choice becomes a command: filled by REVIEW_SCRIPT as boxes are ticked. */
function reviewSection(auditPath: string, docsRepository: boolean): string {
  // An audit of a docs repository is applied to its checkout, which the reviewer names.
  const audit = `${shellWord(auditPath)}${docsRepository ? " --docs-repo DIR" : ""}`;
  return `<section class="review" id="review" data-audit="${escapeHtml(audit)}">
<h2>Review</h2>
<p>Untick the edits you do not want (each edit below has a <em>keep</em> box), then run:</p>
<pre class="command"><code id="apply-command">impact apply ${escapeHtml(audit)}</code></pre>
<p class="hint">The command names the edits by id: <code>--only ID,…</code> keeps just those, <code>--exclude ID,…</code> drops those. Where scripts are off, write it yourself from the ids shown.</p>
</section>`;
}

/**
 * The page's only script (its hash is pinned in the Content-Security-Policy): composes the
 * `impact apply` command from the keep boxes, with --only or --exclude, whichever is shorter.
 * Its words are quoted as shellWord (escape.ts) quotes them.
 */
export const REVIEW_SCRIPT = `(function(){
var boxes=[].slice.call(document.querySelectorAll('input[name="keep"]'));
var out=document.getElementById("apply-command");
var audit=document.getElementById("review").getAttribute("data-audit");
function word(w){return /^[\\w./#@+:=,-]+$/.test(w)?w:"'"+w.replace(/'/g,"'\\\\''")+"'";}
function update(){
var kept=[],dropped=[];
boxes.forEach(function(b){(b.checked?kept:dropped).push(b.value);});
var command="impact apply "+audit;
if(kept.length===0)command="# nothing kept: nothing to apply";
else if(dropped.length>0)command+=kept.length<=dropped.length?" --only "+word(kept.join(",")):" --exclude "+word(dropped.join(","));
out.textContent=command;
}
boxes.forEach(function(b){b.addEventListener("change",update);});
update();
})();`;

const REVIEW_SCRIPT_HASH = `sha256-${createHash("sha256").update(REVIEW_SCRIPT).digest("base64")}`;

type EvidenceLinker = (location: string) => string;

/** `path:line` or `path:start-end` (or a bare path). */
const LOCATION = /^(.+?)(?::(\d+)(?:[-–](\d+))?)?$/;

/**
 * Evidence as links to the file at the head commit on GitHub, when the repository is known
 * and the head is a commit sha; otherwise as code.
 */
function evidenceLinker(audit: Audit, options: HtmlReportOptions): EvidenceLinker {
  const repository = options.repository;
  const docsRepository =
    options.docsRepository !== undefined && /^[\w.-]+\/[\w.-]+$/.test(options.docsRepository)
      ? options.docsRepository
      : undefined;
  const server = (options.serverUrl ?? "https://github.com").replace(/\/+$/, "");
  const linkable =
    repository !== undefined &&
    /^[\w.-]+\/[\w.-]+$/.test(repository) &&
    /^[0-9a-f]{40}$/.test(audit.head) &&
    /^https?:\/\//.test(server);
  return (location) => {
    const shown = `<code>${escapeHtml(location)}</code>`;
    const match = LOCATION.exec(location);
    if (!linkable || !match) return shown;
    const [, path, start, end] = match;
    // A docs repository's file (`website:content/x.md`) is at the docs repository's commit.
    const docs = audit.docsRepository;
    const inDocs = docs === undefined ? undefined : pathInDocsRepository(docs.name, path!);
    if (inDocs !== undefined && (docsRepository === undefined || docs?.head === undefined)) return shown;
    const [where, commit, inside] =
      inDocs === undefined ? [repository, audit.head, path!] : [docsRepository, docs!.head, inDocs];
    const file = inside.split("/").map(encodeURIComponent).join("/");
    const anchor = start ? `#L${start}${end ? `-L${end}` : ""}` : "";
    const href = `${server}/${where}/blob/${commit}/${file}${anchor}`;
    return `<a href="${escapeHtml(href)}" rel="noreferrer">${shown}</a>`;
  };
}

/**
 * A unified diff with its lines classified; a run of removed lines followed by a run of
 * added lines is paired line by line, and the words that differ are marked.
 */
export function renderDiff(patch: string): string {
  const lines = readDiffLines(patch.replace(/\n$/, "")).lines;
  const out: string[] = [];
  let index = 0;
  const run = (kind: DiffLineKind) => {
    const texts: string[] = [];
    while (index < lines.length && lines[index]!.kind === kind) texts.push(lines[index++]!.raw.slice(1));
    return texts;
  };
  while (index < lines.length) {
    const line = lines[index]!;
    if (line.kind === "removed") {
      const removed = run("removed");
      const added = run("added");
      const pairs = Math.min(removed.length, added.length);
      const marked = removed
        .slice(0, pairs)
        .map((text, position) => markChangedWords(text, added[position]!));
      removed.forEach((text, position) => {
        out.push(diffLine("del", "-", position < pairs ? marked[position]![0] : escapeHtml(text)));
      });
      added.forEach((text, position) => {
        out.push(diffLine("add", "+", position < pairs ? marked[position]![1] : escapeHtml(text)));
      });
      continue;
    }
    out.push(diffLine(LINE_CLASS[line.kind], "", escapeHtml(line.raw)));
    index += 1;
  }
  return `<div class="diff" role="region" aria-label="diff"><pre>${out.join("")}</pre></div>`;
}

const LINE_CLASS: Record<DiffLineKind, string> = {
  hunk: "hunk",
  added: "add",
  removed: "del",
  context: "ctx",
  note: "meta",
  meta: "meta",
};

function diffLine(kind: string, sign: string, html: string): string {
  return `<span class="line ${kind}">${escapeHtml(sign)}${html}\n</span>`;
}

/** Words, runs of white space, and single other characters: the units a change is marked in. */
const WORD = /[\p{L}\p{N}_]+|\s+|[^\p{L}\p{N}_\s]/gu;
/** Past this many cells the middle of a line pair is marked whole instead of aligned word by word. */
const MAX_ALIGN_CELLS = 40_000;

/**
 * A removed line and the added line that replaced it, as HTML with the words that differ
 * marked (`<del>` on the removed side, `<ins>` on the added side). The common start and
 * end are cut off first; the words in between are aligned by their longest common
 * subsequence. (Written here rather than taken from a diff library's word diff: that took
 * a tenth of a millisecond a line, too slow for an audit with thousands of changed lines.)
 */
export function markChangedWords(before: string, after: string): [string, string] {
  const a = before.match(WORD) ?? [];
  const b = after.match(WORD) ?? [];
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const keptA = new Array<boolean>(a.length).fill(true);
  const keptB = new Array<boolean>(b.length).fill(true);
  for (let index = start; index < endA; index++) keptA[index] = false;
  for (let index = start; index < endB; index++) keptB[index] = false;
  const rows = endA - start;
  const columns = endB - start;
  if (rows > 0 && columns > 0 && rows * columns <= MAX_ALIGN_CELLS) {
    // lengths[i * width + j]: the longest common subsequence of a[start+i..endA) and b[start+j..endB).
    const width = columns + 1;
    const lengths = new Uint32Array((rows + 1) * width);
    for (let i = rows - 1; i >= 0; i--) {
      for (let j = columns - 1; j >= 0; j--) {
        lengths[i * width + j] =
          a[start + i] === b[start + j]
            ? lengths[(i + 1) * width + j + 1]! + 1
            : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < rows && j < columns) {
      if (a[start + i] === b[start + j]) {
        keptA[start + i] = true;
        keptB[start + j] = true;
        i += 1;
        j += 1;
      } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) i += 1;
      else j += 1;
    }
  }
  return [markRuns(a, keptA, "del"), markRuns(b, keptB, "ins")];
}

/** Tokens as escaped HTML, each run of changed tokens in one `tag` element. */
function markRuns(tokens: readonly string[], kept: readonly boolean[], tag: "del" | "ins"): string {
  let html = "";
  let index = 0;
  while (index < tokens.length) {
    const keep = kept[index]!;
    let end = index;
    while (end < tokens.length && kept[end] === keep) end += 1;
    const text = escapeHtml(tokens.slice(index, end).join(""));
    html += keep ? text : `<${tag}>${text}</${tag}>`;
    index = end;
  }
  return html;
}

const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--add:#dafbe1;--add-word:#aceebb;--del:#ffebe9;--del-word:#ffcecb;--hunk:#ddf4ff;--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e;--link:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--soft:#151b23;--add:#12261e;--add-word:#1f6f3c;--del:#25171c;--del-word:#7d2a31;--hunk:#0c2d6b;--ok:#3fb950;--warn:#d29922;--bad:#f85149;--link:#4493f8}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1200px;padding:24px;background:var(--bg);color:var(--fg);font:15px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif;overflow-wrap:anywhere}
h1{font-size:1.6em;margin:0 0 8px}h2{font-size:1.2em;margin:0 0 8px}h3{font-size:1em;margin:16px 0 4px;color:var(--muted)}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
a{color:var(--link)}
.verdict{font-size:1.15em;font-weight:600;padding:8px 12px;border-left:4px solid var(--ok);background:var(--soft);margin:8px 0}
.verdict-changes{border-color:var(--warn)}.verdict-failed{border-color:var(--bad)}
.run,footer{color:var(--muted)}
footer{margin-top:32px;font-size:.85em}
section{margin:24px 0}
.article{border:1px solid var(--line);border-radius:6px;padding:16px}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}
th{background:var(--soft);white-space:nowrap;user-select:none}
td.num,th:nth-child(n+3){text-align:right}
td.path{word-break:break-all}
.badge{display:inline-block;padding:0 8px;border-radius:10px;font-size:.85em;font-weight:600;border:1px solid var(--line);white-space:nowrap}
.status-updated,.status-new{color:var(--warn)}.status-failed,.status-gave_up{color:var(--bad)}.status-unchanged{color:var(--ok)}
.status-skipped,.status-cancelled,.status-touched,.badge-cached{color:var(--muted)}
.kind{font-weight:600}
.error{color:var(--bad)}
.evidence{margin:2px 0 8px;color:var(--muted)}
.edits p{margin:0}
.keep{float:right;margin-left:8px;font-size:.85em;color:var(--muted);white-space:nowrap}
.edit-diff summary{cursor:pointer;color:var(--muted);font-size:.85em}
.review{border:1px solid var(--line);border-radius:6px;padding:16px;background:var(--soft)}
.command{margin:8px 0;padding:8px 12px;border:1px solid var(--line);border-radius:6px;background:var(--bg);overflow-x:auto}
.hint{color:var(--muted);font-size:.85em}
blockquote{margin:12px 0;padding:4px 12px;border-left:4px solid var(--line);color:var(--muted)}
.diff{overflow-x:auto;border:1px solid var(--line);border-radius:6px;margin-top:12px}
.diff pre{margin:0;padding:8px 0;min-width:max-content}
.line{display:block;padding:0 12px}
.line.add{background:var(--add)}.line.del{background:var(--del)}.line.hunk{background:var(--hunk);color:var(--muted)}.line.meta{color:var(--muted)}
ins{background:var(--add-word);text-decoration:none}del{background:var(--del-word);text-decoration:none}
@media (max-width:600px){body{padding:12px;font-size:14px}.article{padding:10px}th,td{padding:4px 6px}h1{font-size:1.3em}}
`.trim();
