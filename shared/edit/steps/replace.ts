import type { ArticleFormat } from "../../formats/types.js";
import { dominantEol, LineIndex, withEol } from "../../markdown/lines.js";
import { findSection, outlineMarkdown } from "../../markdown/outline.js";
import * as messages from "../messages.js";
import { findNearMiss, findPartialMatch } from "../near-miss.js";
import type { ReplaceEdit } from "../schema.js";
import {
  type EditProblem,
  placeholderProblem,
  reasonProblem,
  type StepFailure,
  type StepResult,
} from "../step.js";

/** A short new_string (a word, a digit) turns up by chance; only a longer one is evidence. */
const MIN_ALREADY_APPLIED_CHARS = 6;

/** Offsets [from, to) a replace searches, and the section they belong to (null: the whole article). */
interface Region {
  from: number;
  to: number;
  scope: messages.SearchScope | null;
}

export function validateReplace(edit: ReplaceEdit, article: string): EditProblem {
  if (edit.old_string.length === 0) return { code: "empty_old_string", message: messages.emptyOldString };
  if (edit.old_string === edit.new_string) return { code: "no_op", message: messages.identicalStrings };
  return reasonProblem(edit) ?? placeholderProblem(edit.new_string, article);
}

/** Exact, literal replacement of old_string, by occurrence, optionally within one section. */
export function replaceStep(content: string, edit: ReplaceEdit, format: ArticleFormat): StepResult {
  let region: Region = { from: 0, to: content.length, scope: null };
  if (edit.within !== undefined) {
    const found = sectionRegion(content, edit.within, format);
    if (!found.ok) return found;
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
      return failure("not_unique", messages.notUnique(region.scope, linesOf(content, matches)));
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
      return failure(
        "occurrence_out_of_range",
        messages.occurrenceOutOfRange(occurrence, region.scope, linesOf(content, matches)),
      );
    } else starts = [matches[occurrence - 1]!];
  }
  const text = adaptLineEndings(edit.new_string, old, content);
  // new_string that wraps old_string ("foo" → "foo bar") and already stands there: a second run of the edit.
  const inner = text.indexOf(old);
  if (inner !== -1 && occurrence !== "all") {
    const start = starts[0]! - inner;
    if (start >= 0 && content.startsWith(text, start)) {
      return failure(
        "already_applied",
        messages.newStringAroundOldString(new LineIndex(content).lineAt(start)),
      );
    }
  }
  return { ok: true, changes: starts.map((start) => ({ start, end: start + old.length, text })) };
}

function failure(code: StepFailure["code"], message: string, citesLines = true): StepFailure {
  return { ok: false, code, message, citesLines };
}

function sectionRegion(
  content: string,
  query: string,
  format: ArticleFormat,
): { ok: true; region: Region } | StepFailure {
  const outline = format.outline?.(content) ?? outlineMarkdown(content);
  const found = findSection(outline, query);
  if (!found.ok)
    return failure(found.code, messages.withinFailed(found.message), outline.sections.length > 0);
  const lines = new LineIndex(content);
  const { path, line, endLine } = found.section;
  return {
    ok: true,
    region: { from: lines.lineStart(line), to: lines.lineEnd(endLine), scope: { path, line, endLine } },
  };
}

function indexWithin(content: string, needle: string, from: number, to: number): number {
  const at = content.indexOf(needle, from);
  return at !== -1 && at + needle.length <= to ? at : -1;
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

function linesOf(content: string, offsets: number[]): number[] {
  const lines = new LineIndex(content);
  return offsets.map((offset) => lines.lineAt(offset));
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

function notFound(content: string, edit: ReplaceEdit, region: Region): StepFailure {
  const lines = new LineIndex(content);
  if (edit.new_string.trim().length >= MIN_ALREADY_APPLIED_CHARS) {
    const present = indexWithin(content, edit.new_string, region.from, region.to);
    if (present !== -1) {
      return failure(
        "already_applied",
        messages.newStringInsteadOfOldString(region.scope, lines.lineAt(present)),
      );
    }
  }
  const elsewhere = region.scope ? content.indexOf(edit.old_string) : -1;
  const near = findNearMiss(content, region.from, region.to, edit.old_string);
  const partial = near ? null : findPartialMatch(content, region.from, region.to, edit.old_string);
  let partialReport: messages.NotFoundReport["partial"] = null;
  if (partial) {
    const wantedLines = edit.old_string.split("\n").length;
    const startLine = Math.max(1, lines.lineAt(partial.start) - partial.wantedLine);
    const endLine = Math.min(lines.lineCount, startLine + wantedLines - 1);
    partialReport = {
      wantedLine: partial.wantedLine,
      line: lines.lineAt(partial.start),
      startLine,
      endLine,
      exact: content.slice(lines.lineStart(startLine), lines.lineEnd(endLine)).replace(/\r?\n$/, ""),
    };
  }
  const message = messages.notFound({
    scope: region.scope,
    elsewhereLine: elsewhere === -1 ? null : lines.lineAt(elsewhere),
    nearMiss: near && {
      line: lines.lineAt(near.start),
      count: near.count,
      differences: near.differences,
      exact: content.slice(near.start, near.end),
    },
    partial: partialReport,
    articleHead: content.slice(0, messages.ARTICLE_HEAD_CHARS),
  });
  return failure("not_found", message, elsewhere !== -1 || near !== null || partial !== null);
}
