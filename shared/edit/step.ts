import { findPlaceholder } from "./checks.js";
import * as messages from "./messages.js";
import type { EditErrorCode } from "./types.js";

/** One replacement of content[start, end) by `text`, in the content the step saw. */
export interface Change {
  start: number;
  end: number;
  text: string;
}

/** A step's rejection: its code, its text, and whether the text cites line numbers. */
export interface StepFailure {
  ok: false;
  code: EditErrorCode;
  message: string;
  /** The message names lines of the content the step saw (which earlier edits may have moved). */
  citesLines?: boolean;
}

/** What one edit does to the content it is given: changes to apply, or why not. */
export type StepResult = { ok: true; changes: Change[]; note?: string } | StepFailure;

/** A check of one edit on its own, before any edit of the batch runs. */
export type EditProblem = { code: EditErrorCode; message: string } | null;

/** Where an edit's changes ended up: offsets [start, end) in the batch's current content. */
export interface Range {
  index: number;
  start: number;
  end: number;
}

/**
 * Applies sorted, non-overlapping changes and moves the ranges of earlier edits along;
 * the span of this edit (`index`) is appended to `ranges`.
 */
export function applyChanges(content: string, changes: Change[], ranges: Range[], index: number): string {
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

/** Every edit needs a reason. */
export function reasonProblem(edit: { reason: string }): EditProblem {
  if (typeof edit.reason === "string" && edit.reason.trim().length > 0) return null;
  return { code: "missing_reason", message: messages.missingReason };
}

/** New text must not carry a "… rest unchanged" placeholder the article does not already have. */
export function placeholderProblem(text: string, article: string): EditProblem {
  const placeholder = text ? findPlaceholder(text, article) : null;
  return placeholder ? { code: "placeholder", message: messages.placeholderLeft(placeholder) } : null;
}
