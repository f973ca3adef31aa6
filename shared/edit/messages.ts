import { CONTEXT_LINES } from "./context.js";
import type { Difference } from "./near-miss.js";
import type { AppliedEdit, EditSuccess } from "./types.js";

/**
 * Every text the edit engine writes for the model or a person: built from the facts the
 * steps found (line numbers, counts, exact text), so the steps hold no wording and the
 * wording lives in one place.
 */

const MAX_LISTED_MATCHES = 50;
const MAX_EXACT_TEXT_CHARS = 2000;
export const ARTICLE_HEAD_CHARS = 500;

function plural(count: number, one: string, many = `${one}s`): string {
  return count === 1 ? one : many;
}

function quoteBlock(label: string, text: string): string {
  return `----- ${label} -----\n${text}\n----- end -----`;
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}

/** "line 4" or "lines 4, 9, … 3 more" for the lines of some matches. */
function describeLines(lineNumbers: number[]): string {
  const shown = lineNumbers.slice(0, MAX_LISTED_MATCHES);
  const more = lineNumbers.length > shown.length ? `, … ${lineNumbers.length - shown.length} more` : "";
  return `${plural(shown.length, "line")} ${shown.join(", ")}${more}`;
}

// Batch level.

export function hashMismatch(expected: string, actual: string): string {
  return `expected_hash ${expected} does not match the article's current hash ${actual}: the article changed since you read it. Read it again (or use hash ${actual}) and redo the edits against its current text.`;
}

export function consumedByEarlierEdit(earlier: number, lineBeforeBatch: number): string {
  return `old_string is no longer in the article: edit ${earlier} of this batch already changed that text (it was at line ${lineBeforeBatch} before the batch). Write this edit against the text as edit ${earlier} leaves it, or merge the two edits into one.`;
}

/** Appended to a failure of edit `index` > 0 whose message cites line numbers. */
export function linesAfterEarlierEdits(index: number): string {
  return `\n(Line numbers are those of the article after ${index === 1 ? "edit 0" : `edits 0-${index - 1}`} of this batch.)`;
}

/** The message of a failing edit, named by its 0-based index. */
export function editFailure(index: number, message: string): string {
  return `Edit ${index}: ${message}`;
}

// One edit on its own.

export const emptyOldString =
  "old_string is empty. Give the exact text to replace; to add text, include a neighbouring line in old_string and new_string, or use a section edit with mode append or prepend.";

export const identicalStrings =
  "old_string and new_string are identical, so the edit changes nothing. Drop it or write the new text.";

export const missingReason =
  "reason is missing. Every edit needs one sentence saying which code change makes it necessary.";

export function emptyInsert(mode: string): string {
  return `content is empty, so ${mode} adds nothing. Drop the edit or write the content.`;
}

export const emptyChecklistItem =
  "checklist_item is empty. Give text contained in exactly one checklist item.";

export function placeholderLeft(placeholder: string): string {
  return `the new text contains the placeholder "${placeholder}". Edits replace text literally, so the placeholder would land in the article. Write out the full text instead, or make the edit smaller so it covers only what changes.`;
}

// Replace.

/** Where a replace looked: the whole article, or one section. */
export interface SearchScope {
  path: string;
  line: number;
  endLine: number;
}

function where(scope: SearchScope | null): string {
  return scope ? ` within section "${scope.path}" (lines ${scope.line}-${scope.endLine})` : "";
}

export function withinFailed(message: string): string {
  return `within: ${message}`;
}

export function notUnique(scope: SearchScope | null, matchLines: number[]): string {
  return `old_string matches ${matchLines.length} times${where(scope)} (${describeLines(matchLines)}); it must match exactly once. Add the heading or a neighbouring line to old_string so it is unique, set within to a section path, or set occurrence ("all", "first", "last" or N).`;
}

export function occurrenceOutOfRange(
  occurrence: number,
  scope: SearchScope | null,
  matchLines: number[],
): string {
  return `occurrence ${occurrence} asked for, but old_string matches only ${matchLines.length} ${plural(matchLines.length, "time")}${where(scope)} (${describeLines(matchLines)}).`;
}

export function newStringAroundOldString(line: number): string {
  return `new_string already stands at line ${line}, around old_string: this edit looks already applied. Drop it from the batch.`;
}

export function newStringInsteadOfOldString(scope: SearchScope | null, line: number): string {
  return `old_string is not in the article${where(scope)}, but new_string is, at line ${line}: this edit looks already applied. Drop it from the batch.`;
}

/** What a replace whose old_string is missing found instead. */
export interface NotFoundReport {
  scope: SearchScope | null;
  /** Line of old_string outside the `within` section, when it occurs there. */
  elsewhereLine: number | null;
  nearMiss: { line: number; count: number; differences: Difference[]; exact: string } | null;
  /** One line of old_string found (0-based `wantedLine`), and the article's lines around it. */
  partial: { wantedLine: number; line: number; startLine: number; endLine: number; exact: string } | null;
  articleHead: string;
}

export function notFound(report: NotFoundReport): string {
  const parts = [`old_string not found${where(report.scope)}.`];
  if (report.elsewhereLine !== null) {
    parts.push(
      `It does occur outside that section, at line ${report.elsewhereLine}: fix or drop within if that is the place.`,
    );
  }
  const { nearMiss, partial } = report;
  if (nearMiss) {
    const others =
      nearMiss.count > 1 ? ` (${nearMiss.count} places match this loosely; this is the first)` : "";
    parts.push(
      `Closest near-miss at line ${nearMiss.line}${others}: it differs in ${nearMiss.differences.join(", ")}. The exact text there, to copy into old_string:`,
      quoteBlock("exact text", clip(nearMiss.exact, MAX_EXACT_TEXT_CHARS)),
    );
  } else if (partial) {
    parts.push(
      `No near-miss for the whole text, but line ${partial.wantedLine + 1} of old_string is at line ${partial.line} of the article; the text around it differs. Lines ${partial.startLine}-${partial.endLine} of the article, exactly:`,
      quoteBlock("exact text", clip(partial.exact, MAX_EXACT_TEXT_CHARS)),
    );
  } else {
    parts.push(
      "No near-miss either: nothing in the article resembles it. Read the article again before editing.",
    );
  }
  parts.push(ARTICLE_HEAD_INTRO, quoteBlock("article start", report.articleHead));
  return parts.join("\n");
}

const ARTICLE_HEAD_INTRO = `The article starts with (first ${ARTICLE_HEAD_CHARS} characters):`;

/**
 * The engine's messages name edit_article's fields, for a model; a person at the command line
 * (`impact edit`) typed flags. The same message in their words: edits counted from 1, OLD and
 * NEW for the texts, --within and --occurrence for the fields, and without the start of the
 * article (which they can open) unless `verbose`. Kept here, beside the messages it rewords.
 */
export function forPeople(message: string, options: { verbose: boolean }): string {
  let text = message;
  if (!options.verbose) {
    const head = text.indexOf(`\n${ARTICLE_HEAD_INTRO}`);
    if (head >= 0) text = text.slice(0, head);
  }
  return text
    .replace(/^Edit (\d+): /, (_whole, index: string) => `Edit ${Number(index) + 1}: `)
    .replace(
      /\bedit (\d+) of this batch/g,
      (_whole, index: string) => `edit ${Number(index) + 1} of this command`,
    )
    .replace(
      /set within to a section path, or set occurrence \("all", "first", "last" or N\)/g,
      "add --within SECTION, or --occurrence all|first|last|N (--match-all for all)",
    )
    .replace(/fix or drop within/g, "fix or drop --within")
    .replace(/^within: /, "--within: ")
    .replace(/\boccurrence (\d+) asked for/g, "--occurrence $1 asked for")
    .replace(/\(check occurrence "all"\)/g, "(check --match-all)")
    .replace(/\bold_string\b/g, "OLD")
    .replace(/\bnew_string\b/g, "NEW")
    .replace(/\bmode append or prepend\b/g, "--section SECTION --append or --prepend")
    .replace(/ from the batch\b/g, " from the command")
    .replace(
      "Read the article again before editing.",
      "Check the text in the file (--verbose shows its start).",
    );
}

// Section.

export function sectionAlreadyHasContent(path: string): string {
  return `section "${path}" already has exactly this content: the edit looks already applied. Drop it from the batch.`;
}

export function subsectionsReplaced(titles: string[]): string {
  const list = titles.map((title) => `"${title}"`).join(", ");
  return `replace covered the whole section, so its ${plural(titles.length, "subsection")} ${list} ${plural(titles.length, "was", "were")} replaced too; if you meant only the text under the heading, redo the edit as a replace of that text.`;
}

// Checklist.

export interface ChecklistItemSeen {
  line: number;
  checked: boolean;
  text: string;
}

function describeItems(items: ChecklistItemSeen[]): string {
  return items
    .slice(0, MAX_LISTED_MATCHES)
    .map((item) => `  line ${item.line}: [${item.checked ? "x" : " "}] ${item.text}`)
    .join("\n");
}

export function checklistItemNotFound(wanted: string, items: ChecklistItemSeen[]): string {
  return items.length === 0
    ? `no checklist item contains "${wanted}": the article has no checklist items (- [ ] …).`
    : `no checklist item contains "${wanted}". The checklist items are:\n${describeItems(items)}`;
}

export function checklistItemAmbiguous(wanted: string, matches: ChecklistItemSeen[]): string {
  return `${matches.length} checklist items contain "${wanted}"; give text found in only one of them:\n${describeItems(matches)}`;
}

export function checklistItemAlreadySet(item: ChecklistItemSeen, checked: boolean): string {
  return `the checklist item at line ${item.line} ("${item.text}") is already ${checked ? "checked" : "unchecked"}. Drop this edit from the batch.`;
}

// Success.

function formatApplied(applied: AppliedEdit): string[] {
  const range =
    applied.startLine === applied.endLine
      ? `line ${applied.startLine}`
      : `lines ${applied.startLine}-${applied.endLine}`;
  const out = ["", `Edit ${applied.index} (${applied.kind}): now ${range}`];
  if (applied.note) out.push(`Note: ${applied.note}`);
  const width = String(applied.endLine + CONTEXT_LINES).length;
  for (const entry of applied.context) {
    if (entry.kind === "gap") {
      out.push(`${" ".repeat(width + 2)}\u22EE ${entry.hidden} more edited lines`);
      continue;
    }
    const marker = entry.line >= applied.startLine && entry.line <= applied.endLine ? ">" : " ";
    out.push(`${marker}${String(entry.line).padStart(width)} | ${entry.text}`);
  }
  return out;
}

/**
 * The `edit_article` result the model reads after a successful batch: every applied edit
 * with its line range in the new text and the numbered lines around it (edited lines
 * marked with ">"), then the new hash.
 */
export function formatEditSuccess(path: string, outcome: EditSuccess): string {
  const count = outcome.applied.length;
  const out = [`Edited ${path}: ${count} ${plural(count, "edit")} applied.`];
  for (const applied of outcome.applied) out.push(...formatApplied(applied));
  out.push(
    "",
    `New hash: ${outcome.hash} (was ${outcome.hashBefore}); pass it as expected_hash with your next edit_article call.`,
  );
  return out.join("\n");
}

// Frontmatter.

export const emptyFrontmatterEdit =
  "frontmatter names no key. Give at least one top-level key to set, or to remove with null.";

export function frontmatterUnparsable(line: number, why: string): string {
  return `the frontmatter does not parse (line ${line}: ${why}), so its keys cannot be set. Fix it with a replace edit first.`;
}

export function frontmatterNotObject(shape: "list" | "value" | "flow mapping"): string {
  const what =
    shape === "flow mapping"
      ? "a flow mapping ({…} on one line)"
      : shape === "list"
        ? "a list"
        : "a single value";
  return `the frontmatter is ${what}, not key: value lines, so keys cannot be set in it. Rewrite it as one key: value per line with a replace edit first.`;
}

export function frontmatterAlreadySet(keys: string[]): string {
  return `the frontmatter already has ${keys.map((key) => JSON.stringify(key)).join(", ")} as asked: the edit looks already applied. Drop it from the batch.`;
}

export function articleTooLarge(size: number, max: number): string {
  return `the edit would make the article ${size.toLocaleString("en-US")} characters long, over the limit of ${max.toLocaleString("en-US")}; nothing was applied. Replace less text (check occurrence "all").`;
}

export function batchTooLarge(added: number, max: number): string {
  return `the batch would add ${added.toLocaleString("en-US")} characters to the article, over the limit of ${max.toLocaleString("en-US")} per batch; nothing was applied. Make smaller edits.`;
}

// Formats.

/** An edit kind the article's format does not have: sections, checklists or YAML frontmatter. */
export function unsupportedByFormat(
  kind: "section" | "within" | "checklist" | "frontmatter",
  format: { name: string; metadata: { kind: string; label?: string } },
): string {
  if (kind === "frontmatter") {
    const what =
      format.metadata.kind === "read-only"
        ? `its metadata is a ${format.metadata.label}, which edits do not write`
        : "it has no metadata block";
    return `frontmatter edits need YAML frontmatter, and this article is ${format.name}: ${what}. Nothing was changed; use a replace edit on the exact lines instead.`;
  }
  if (kind === "checklist")
    return `checklist edits need Markdown "- [ ]" items, and this article is ${format.name}. Nothing was changed; use a replace edit instead.`;
  const field = kind === "within" ? "within" : "section edits";
  return `${field} needs sections, and Impact reads none in ${format.name} articles. Nothing was changed; use a replace edit (without within) instead.`;
}
