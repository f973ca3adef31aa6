import { contentHash } from "../hash.js";
import { DEFAULT_ARTICLE_CHARS, DEFAULT_EDIT_GROWTH_CHARS } from "../limits.js";
import { dominantEol, LineIndex, withEol } from "../markdown/lines.js";
import { findSection, type OutlineSection, outlineMarkdown } from "../markdown/outline.js";
import { findPlaceholder, scanFences, structureProblem } from "./checks.js";
import { findNearMiss, findPartialMatch } from "./near-miss.js";
import { type ChecklistEdit, type Edit, editKind, type ReplaceEdit, type SectionEdit } from "./schema.js";
import type { AppliedEdit, ApplyEditsOptions, EditErrorCode, EditOutcome } from "./types.js";

/** One replacement of content[start, end) by `text`, in the content the step saw. */
interface Change {
  start: number;
  end: number;
  text: string;
}

type StepResult =
  | { ok: true; changes: Change[]; note?: string }
  | { ok: false; code: EditErrorCode; message: string };

interface Range {
  index: number;
  start: number;
  end: number;
}

const CONTEXT_LINES = 3;
/** An edited span longer than this shows its first and last lines only in the context. */
const MAX_CONTEXT_EDITED_LINES = 30;
const ARTICLE_HEAD_CHARS = 500;
const MAX_EXACT_TEXT_CHARS = 2000;
const MAX_LISTED_MATCHES = 50;
const MIN_ALREADY_APPLIED_CHARS = 6;
/** Marks the lines left out of a long context; formatEditSuccess numbers around it. */
export const CONTEXT_GAP_MARKER = "\u22EE";

/**
 * Applies a batch of edits to an article (`edit_article`, docs/edits.md). Pure: the
 * edits apply in order, each to the result of the previous; if any fails, the outcome is
 * that one error (naming the edit by its 0-based index) and nothing is applied.
 */
export function applyEdits(content: string, edits: Edit[], options: ApplyEditsOptions = {}): EditOutcome {
  const hashBefore = contentHash(content);
  if (options.expectedHash !== undefined && options.expectedHash !== hashBefore) {
    return fail(
      "hash_mismatch",
      null,
      `expected_hash ${options.expectedHash} does not match the article's current hash ${hashBefore}: the article changed since you read it. Read it again (or use hash ${hashBefore}) and redo the edits against its current text.`,
    );
  }
  for (const [index, edit] of edits.entries()) {
    const problem = validateEdit(edit, content);
    if (problem) return fail(problem.code, index, problem.message);
  }

  let current = content;
  const ranges: Range[] = [];
  const notes = new Map<number, string>();
  const maxArticle = options.maxArticleChars ?? DEFAULT_ARTICLE_CHARS;
  const maxGrowth = options.maxGrowthChars ?? DEFAULT_EDIT_GROWTH_CHARS;
  for (const [index, edit] of edits.entries()) {
    const step = runStep(current, edit);
    if (!step.ok) {
      const consumed = step.code === "not_found" ? consumedBy(content, edits, index) : null;
      if (consumed) return fail("consumed_by_earlier_edit", index, consumed);
      const note =
        index > 0 && /lines? \d/.test(step.message)
          ? `\n(Line numbers are those of the article after ${index === 1 ? "edit 0" : `edits 0-${index - 1}`} of this batch.)`
          : "";
      return fail(step.code, index, `${step.message}${note}`);
    }
    // Sized before the text is built: `occurrence: "all"` chains grow an article
    // exponentially, and one batch must not exhaust memory.
    const size = sizeAfter(current, step.changes);
    if (size > current.length && size > maxArticle) {
      return fail(
        "too_large",
        index,
        `the edit would make the article ${size.toLocaleString("en-US")} characters long, over the limit of ${maxArticle.toLocaleString("en-US")}; nothing was applied. Replace less text (check occurrence "all").`,
      );
    }
    if (size - content.length > maxGrowth) {
      return fail(
        "too_large",
        index,
        `the batch would add ${(size - content.length).toLocaleString("en-US")} characters to the article, over the limit of ${maxGrowth.toLocaleString("en-US")} per batch; nothing was applied. Make smaller edits.`,
      );
    }
    current = applyChanges(current, step.changes, ranges, index);
    if (step.note) notes.set(index, step.note);
  }

  const problem = structureProblem(content, current);
  if (problem) {
    // Replay to name the first edit after which the structure is broken.
    let replay = content;
    let culprit = { index: edits.length - 1, problem };
    for (const [index, edit] of edits.entries()) {
      const step = runStep(replay, edit);
      if (!step.ok) break;
      replay = applyChanges(replay, step.changes, [], index);
      const early = structureProblem(content, replay);
      if (early?.code === problem.code) {
        culprit = { index, problem: early };
        break;
      }
    }
    return fail(culprit.problem.code, culprit.index, culprit.problem.message);
  }

  const lines = new LineIndex(current);
  const applied = ranges.map((range): AppliedEdit => {
    const edit = edits[range.index]!;
    const startLine = lines.lineAt(range.start);
    const endLine = range.end > range.start ? lines.lineAt(range.end - 1) : startLine;
    const appliedEdit: AppliedEdit = {
      index: range.index,
      kind: editKind(edit),
      reason: edit.reason,
      startLine,
      endLine,
      context: contextLines(lines, startLine, endLine),
    };
    if (edit.evidence && edit.evidence.length > 0) appliedEdit.evidence = edit.evidence;
    const note = notes.get(range.index);
    if (note) appliedEdit.note = note;
    return appliedEdit;
  });
  return { ok: true, content: current, hashBefore, hash: contentHash(current), applied };
}

function fail(code: EditErrorCode, index: number | null, message: string): EditOutcome {
  return {
    ok: false,
    error: { code, index, message: index === null ? message : `Edit ${index}: ${message}` },
  };
}

function validateEdit(edit: Edit, article: string): { code: EditErrorCode; message: string } | null {
  const kind = editKind(edit);
  if (kind === "replace") {
    const replace = edit as ReplaceEdit;
    if (replace.old_string.length === 0) {
      return {
        code: "empty_old_string",
        message:
          "old_string is empty. Give the exact text to replace; to add text, include a neighbouring line in old_string and new_string, or use a section edit with mode append or prepend.",
      };
    }
    if (replace.old_string === replace.new_string) {
      return {
        code: "no_op",
        message:
          "old_string and new_string are identical, so the edit changes nothing. Drop it or write the new text.",
      };
    }
  }
  if (typeof edit.reason !== "string" || edit.reason.trim().length === 0) {
    return {
      code: "missing_reason",
      message:
        "reason is missing. Every edit needs one sentence saying which code change makes it necessary.",
    };
  }
  if (kind === "section") {
    const section = edit as SectionEdit;
    if (section.mode !== "replace" && section.content.trim().length === 0) {
      return {
        code: "no_op",
        message: `content is empty, so ${section.mode} adds nothing. Drop the edit or write the content.`,
      };
    }
  }
  if (kind === "checklist" && (edit as ChecklistEdit).checklist_item.trim().length === 0) {
    return {
      code: "checklist_item_not_found",
      message: "checklist_item is empty. Give text contained in exactly one checklist item.",
    };
  }
  const text =
    kind === "replace"
      ? (edit as ReplaceEdit).new_string
      : kind === "section"
        ? (edit as SectionEdit).content
        : "";
  const placeholder = text ? findPlaceholder(text, article) : null;
  if (placeholder) {
    return {
      code: "placeholder",
      message: `the new text contains the placeholder "${placeholder}". Edits replace text literally, so the placeholder would land in the article. Write out the full text instead, or make the edit smaller so it covers only what changes.`,
    };
  }
  return null;
}

function runStep(content: string, edit: Edit): StepResult {
  const kind = editKind(edit);
  if (kind === "replace") return replaceStep(content, edit as ReplaceEdit);
  if (kind === "section") return sectionStep(content, edit as SectionEdit);
  return checklistStep(content, edit as ChecklistEdit);
}

/** Applies sorted, non-overlapping changes and moves the ranges of earlier edits along. */
function sizeAfter(content: string, changes: Change[]): number {
  let size = content.length;
  for (const change of changes) size += change.text.length - (change.end - change.start);
  return size;
}

function applyChanges(content: string, changes: Change[], ranges: Range[], index: number): string {
  if (changes.length === 0) return content;
  let result = "";
  let cursor = 0;
  let delta = 0;
  for (const change of changes) {
    result += content.slice(cursor, change.start) + change.text;
    cursor = change.end;
    delta += change.text.length - (change.end - change.start);
  }
  result += content.slice(cursor);
  const spanStart = changes[0]!.start;
  const spanEnd = changes[changes.length - 1]!.end;
  const newSpanEnd = spanEnd + delta;
  for (const range of ranges) {
    if (range.end <= spanStart && range.start < spanStart) continue;
    if (range.start >= spanEnd) {
      range.start += delta;
      range.end += delta;
      continue;
    }
    range.start = Math.min(range.start, spanStart);
    range.end = range.end > spanEnd ? range.end + delta : newSpanEnd;
  }
  ranges.push({ index, start: spanStart, end: newSpanEnd });
  return result;
}

function indexWithin(content: string, needle: string, from: number, to: number): number {
  const at = content.indexOf(needle, from);
  return at !== -1 && at + needle.length <= to ? at : -1;
}

interface Region {
  from: number;
  to: number;
  /** " within section "X" (lines a-b)" for messages, "" for the whole article. */
  where: string;
}

function sectionRegion(content: string, query: string): { ok: true; region: Region } | StepResult {
  const found = findSection(outlineMarkdown(content), query);
  if (!found.ok) return { ok: false, code: found.code, message: `within: ${found.message}` };
  const lines = new LineIndex(content);
  const section = found.section;
  return {
    ok: true,
    region: {
      from: lines.lineStart(section.line),
      to: lines.lineEnd(section.endLine),
      where: ` within section "${section.path}" (lines ${section.line}-${section.endLine})`,
    },
  };
}

function replaceStep(content: string, edit: ReplaceEdit): StepResult {
  let region: Region = { from: 0, to: content.length, where: "" };
  if (edit.within !== undefined) {
    const found = sectionRegion(content, edit.within);
    if (!("region" in found)) return found;
    region = found.region;
  }
  const old = edit.old_string;
  const occurrence = edit.occurrence ?? "unique";
  const first = indexWithin(content, old, region.from, region.to);
  if (first === -1) return notFound(content, edit, region);

  let starts: number[];
  if (occurrence === "unique") {
    const second = indexWithin(content, old, first + 1, region.to);
    if (second !== -1) {
      const matches = allMatches(content, old, region, true);
      return {
        ok: false,
        code: "not_unique",
        message: `old_string matches ${matches.length} times${region.where} (${describeLines(content, matches)}); it must match exactly once. Add the heading or a neighbouring line to old_string so it is unique, set within to a section path, or set occurrence ("all", "first", "last" or N).`,
      };
    }
    starts = [first];
  } else if (occurrence === "first") {
    starts = [first];
  } else if (occurrence === "last") {
    starts = [content.lastIndexOf(old, region.to - old.length)];
  } else {
    const matches = allMatches(content, old, region, false);
    if (occurrence === "all") starts = matches;
    else if (occurrence > matches.length) {
      return {
        ok: false,
        code: "occurrence_out_of_range",
        message: `occurrence ${occurrence} asked for, but old_string matches only ${matches.length} time${matches.length === 1 ? "" : "s"}${region.where} (${describeLines(content, matches)}).`,
      };
    } else starts = [matches[occurrence - 1]!];
  }
  const text = adaptLineEndings(edit.new_string, old, content);
  // new_string that wraps old_string ("foo" → "foo bar") and already stands there: a second run of the edit.
  const inner = text.indexOf(old);
  if (inner !== -1 && occurrence !== "all") {
    const start = starts[0]! - inner;
    if (start >= 0 && content.startsWith(text, start)) {
      return {
        ok: false,
        code: "already_applied",
        message: `new_string already stands at line ${new LineIndex(content).lineAt(start)}, around old_string: this edit looks already applied. Drop it from the batch.`,
      };
    }
  }
  return { ok: true, changes: starts.map((start) => ({ start, end: start + old.length, text })) };
}

/**
 * A CRLF article stays CRLF: new text written with bare "\n" gets the line ending of the
 * text it replaces (or of the article, when that text holds no line break).
 */
function adaptLineEndings(text: string, replaced: string, content: string): string {
  if (!text.includes("\n") || text.includes("\r")) return text;
  const eol = replaced.includes("\r\n") ? "\r\n" : replaced.includes("\n") ? "\n" : dominantEol(content);
  return eol === "\n" ? text : withEol(text, eol);
}

function allMatches(content: string, needle: string, region: Region, overlapping: boolean): number[] {
  const matches: number[] = [];
  let at = indexWithin(content, needle, region.from, region.to);
  while (at !== -1) {
    matches.push(at);
    at = indexWithin(content, needle, at + (overlapping ? 1 : needle.length), region.to);
  }
  return matches;
}

function describeLines(content: string, offsets: number[]): string {
  const lines = new LineIndex(content);
  const numbers = offsets.slice(0, MAX_LISTED_MATCHES).map((offset) => lines.lineAt(offset));
  const more = offsets.length > numbers.length ? `, … ${offsets.length - numbers.length} more` : "";
  return `${numbers.length === 1 ? "line" : "lines"} ${numbers.join(", ")}${more}`;
}

function quoteBlock(label: string, text: string): string {
  return `----- ${label} -----\n${text}\n----- end -----`;
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}

function notFound(content: string, edit: ReplaceEdit, region: Region): StepResult {
  const lines = new LineIndex(content);
  // A short new_string (a word, a digit) turns up by chance; only a longer one is evidence.
  if (edit.new_string.trim().length >= MIN_ALREADY_APPLIED_CHARS) {
    const present = indexWithin(content, edit.new_string, region.from, region.to);
    if (present !== -1) {
      return {
        ok: false,
        code: "already_applied",
        message: `old_string is not in the article${region.where}, but new_string is, at line ${lines.lineAt(present)}: this edit looks already applied. Drop it from the batch.`,
      };
    }
  }
  const parts = [`old_string not found${region.where}.`];
  if (region.where) {
    const elsewhere = content.indexOf(edit.old_string);
    if (elsewhere !== -1) {
      parts.push(
        `It does occur outside that section, at line ${lines.lineAt(elsewhere)}: fix or drop within if that is the place.`,
      );
    }
  }
  const near = findNearMiss(content, region.from, region.to, edit.old_string);
  if (near) {
    const others = near.count > 1 ? ` (${near.count} places match this loosely; this is the first)` : "";
    parts.push(
      `Closest near-miss at line ${lines.lineAt(near.start)}${others}: it differs in ${near.differences.join(", ")}. The exact text there, to copy into old_string:`,
      quoteBlock("exact text", clip(content.slice(near.start, near.end), MAX_EXACT_TEXT_CHARS)),
    );
  } else {
    const partial = findPartialMatch(content, region.from, region.to, edit.old_string);
    if (partial) {
      const wantedLines = edit.old_string.split("\n").length;
      const startLine = Math.max(1, lines.lineAt(partial.start) - partial.wantedLine);
      const endLine = Math.min(lines.lineCount, startLine + wantedLines - 1);
      const text = content.slice(lines.lineStart(startLine), lines.lineEnd(endLine)).replace(/\r?\n$/, "");
      parts.push(
        `No near-miss for the whole text, but line ${partial.wantedLine + 1} of old_string is at line ${lines.lineAt(partial.start)} of the article; the text around it differs. Lines ${startLine}-${endLine} of the article, exactly:`,
        quoteBlock("exact text", clip(text, MAX_EXACT_TEXT_CHARS)),
      );
    } else {
      parts.push(
        "No near-miss either: nothing in the article resembles it. Read the article again before editing.",
      );
    }
  }
  parts.push(
    `The article starts with (first ${ARTICLE_HEAD_CHARS} characters):`,
    quoteBlock("article start", content.slice(0, ARTICLE_HEAD_CHARS)),
  );
  return { ok: false, code: "not_found", message: parts.join("\n") };
}

/** When edit `index` failed to find its text: the message if an earlier edit of the batch removed it. */
function consumedBy(original: string, edits: Edit[], index: number): string | null {
  const edit = edits[index];
  if (index === 0 || !edit || editKind(edit) !== "replace") return null;
  const old = (edit as ReplaceEdit).old_string;
  const was = original.indexOf(old);
  if (was === -1) return null;
  let replay = original;
  for (let earlier = 0; earlier < index; earlier++) {
    const step = runStep(replay, edits[earlier]!);
    if (!step.ok) return null;
    replay = applyChanges(replay, step.changes, [], earlier);
    if (!replay.includes(old)) {
      const line = new LineIndex(original).lineAt(was);
      return `old_string is no longer in the article: edit ${earlier} of this batch already changed that text (it was at line ${line} before the batch). Write this edit against the text as edit ${earlier} leaves it, or merge the two edits into one.`;
    }
  }
  return null;
}

function sectionStep(content: string, edit: SectionEdit): StepResult {
  const outline = outlineMarkdown(content);
  const found = findSection(outline, edit.section);
  if (!found.ok) return { ok: false, code: found.code, message: found.message };
  const section: OutlineSection = found.section;
  const lines = new LineIndex(content);
  const eol = dominantEol(content);
  let text = edit.content.length === 0 ? "" : withEol(edit.content, eol);
  if (text.length > 0 && !text.endsWith("\n")) text += eol;

  let firstBody = -1;
  let lastBody = -1;
  for (let line = section.bodyStartLine; line <= section.endLine; line++) {
    if (lines.lineText(line).trim().length > 0) {
      firstBody = line;
      break;
    }
  }
  for (let line = section.endLine; firstBody !== -1 && line >= firstBody; line--) {
    if (lines.lineText(line).trim().length > 0) {
      lastBody = line;
      break;
    }
  }
  // With no body text, everything goes after the heading and the blank lines under it.
  const afterBlankBody = lines.lineEnd(Math.max(section.endLine, section.bodyStartLine - 1));
  const missingFinalNewline = content.length > 0 && !content.endsWith("\n");
  const insertAt = (offset: number): Change => {
    if (offset === content.length && missingFinalNewline && text.length > 0) {
      // Keep the file without a final newline: the break goes before the new text.
      return { start: offset, end: offset, text: eol + text.slice(0, text.length - eol.length) };
    }
    return { start: offset, end: offset, text };
  };

  let change: Change;
  if (edit.mode === "prepend")
    change = insertAt(firstBody === -1 ? afterBlankBody : lines.lineStart(firstBody));
  else if (edit.mode === "append")
    change = insertAt(firstBody === -1 ? afterBlankBody : lines.lineEnd(lastBody));
  else if (firstBody === -1) change = insertAt(afterBlankBody);
  else {
    const start = lines.lineStart(firstBody);
    const end = lines.lineEnd(lastBody);
    const replacement =
      end === content.length && missingFinalNewline && text.endsWith(eol) ? text.slice(0, -eol.length) : text;
    change = { start, end, text: replacement };
  }
  if (content.slice(change.start, change.end) === change.text) {
    return {
      ok: false,
      code: "already_applied",
      message: `section "${section.path}" already has exactly this content: the edit looks already applied. Drop it from the batch.`,
    };
  }
  const subsections = outline.sections.filter(
    (other) =>
      other.line > section.line && other.line <= section.endLine && other.level === section.level + 1,
  );
  if (edit.mode === "replace" && subsections.length > 0) {
    const titles = subsections.map((other) => `"${other.title}"`).join(", ");
    return {
      ok: true,
      changes: [change],
      note: `replace covered the whole section, so its subsection${subsections.length === 1 ? "" : "s"} ${titles} ${subsections.length === 1 ? "was" : "were"} replaced too; if you meant only the text under the heading, redo the edit as a replace of that text.`,
    };
  }
  return { ok: true, changes: [change] };
}

interface ChecklistItem {
  /** Offset of the character inside the brackets. */
  box: number;
  checked: boolean;
  text: string;
}

const CHECKLIST_ITEM = /^[ \t]*(?:>[ \t]*)*(?:[-*+]|\d{1,9}[.)])[ \t]+\[([ xX])\](?=[ \t]|\r?$)(.*)$/gm;

function checklistItems(content: string): ChecklistItem[] {
  const fenced = scanFences(content).blocks;
  const items: ChecklistItem[] = [];
  for (const match of content.matchAll(CHECKLIST_ITEM)) {
    const start = match.index;
    if (fenced.some(([from, to]) => start >= from && start < to)) continue;
    items.push({
      box: start + match[0].indexOf("[") + 1,
      checked: match[1] !== " ",
      text: match[2]!.replace(/\r$/, "").trim(),
    });
  }
  return items;
}

function checklistStep(content: string, edit: ChecklistEdit): StepResult {
  const items = checklistItems(content);
  const wanted = edit.checklist_item.trim();
  let matches = items.filter((item) => item.text.includes(wanted));
  if (matches.length === 0) {
    const lower = wanted.toLowerCase();
    matches = items.filter((item) => item.text.toLowerCase().includes(lower));
  }
  const lines = new LineIndex(content);
  const describe = (list: ChecklistItem[]) =>
    list
      .slice(0, MAX_LISTED_MATCHES)
      .map((item) => `  line ${lines.lineAt(item.box)}: [${item.checked ? "x" : " "}] ${item.text}`)
      .join("\n");
  if (matches.length === 0) {
    return {
      ok: false,
      code: "checklist_item_not_found",
      message:
        items.length === 0
          ? `no checklist item contains "${wanted}": the article has no checklist items (- [ ] …).`
          : `no checklist item contains "${wanted}". The checklist items are:\n${describe(items)}`,
    };
  }
  if (matches.length > 1) {
    return {
      ok: false,
      code: "checklist_item_ambiguous",
      message: `${matches.length} checklist items contain "${wanted}"; give text found in only one of them:\n${describe(matches)}`,
    };
  }
  const item = matches[0]!;
  if (item.checked === edit.checked) {
    return {
      ok: false,
      code: "already_applied",
      message: `the checklist item at line ${lines.lineAt(item.box)} ("${item.text}") is already ${edit.checked ? "checked" : "unchecked"}. Drop this edit from the batch.`,
    };
  }
  return { ok: true, changes: [{ start: item.box, end: item.box + 1, text: edit.checked ? "x" : " " }] };
}

function contextLines(lines: LineIndex, startLine: number, endLine: number): string {
  const from = Math.max(1, startLine - CONTEXT_LINES);
  const to = Math.min(lines.lineCount, endLine + CONTEXT_LINES);
  const take = (a: number, b: number) => {
    const out: string[] = [];
    for (let line = a; line <= b; line++) out.push(lines.lineText(line));
    return out;
  };
  if (endLine - startLine + 1 <= MAX_CONTEXT_EDITED_LINES) return take(from, to).join("\n");
  const half = MAX_CONTEXT_EDITED_LINES / 2;
  const hidden = endLine - startLine + 1 - 2 * half;
  return [
    ...take(from, startLine + half - 1),
    `${CONTEXT_GAP_MARKER} ${hidden} more edited lines`,
    ...take(endLine - half + 1, to),
  ].join("\n");
}

/**
 * The `edit_article` result the model reads after a successful batch: every applied edit
 * with its line range in the new text and the numbered lines around it (edited lines
 * marked with ">"), then the new hash.
 */
export function formatEditSuccess(path: string, outcome: Extract<EditOutcome, { ok: true }>): string {
  const count = outcome.applied.length;
  const out = [`Edited ${path}: ${count} edit${count === 1 ? "" : "s"} applied.`];
  for (const applied of outcome.applied) {
    const range =
      applied.startLine === applied.endLine
        ? `line ${applied.startLine}`
        : `lines ${applied.startLine}-${applied.endLine}`;
    out.push("", `Edit ${applied.index} (${applied.kind}): now ${range}`);
    if (applied.note) out.push(`Note: ${applied.note}`);
    const contextLinesList = applied.context.split("\n");
    const gap = contextLinesList.findIndex((line) => line.startsWith(`${CONTEXT_GAP_MARKER} `));
    let number = Math.max(1, applied.startLine - CONTEXT_LINES);
    const width = String(applied.endLine + CONTEXT_LINES).length;
    for (const [position, text] of contextLinesList.entries()) {
      if (position === gap) {
        out.push(`${" ".repeat(width + 2)}${text}`);
        const hidden = Number(/\d+/.exec(text)?.[0] ?? 0);
        number += hidden;
        continue;
      }
      const marker = number >= applied.startLine && number <= applied.endLine ? ">" : " ";
      out.push(`${marker}${String(number).padStart(width)} | ${text}`);
      number++;
    }
  }
  out.push(
    "",
    `New hash: ${outcome.hash} (was ${outcome.hashBefore}); pass it as expected_hash with your next edit_article call.`,
  );
  return out.join("\n");
}
