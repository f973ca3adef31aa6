import type { ArticleFormat } from "../../formats/types.js";
import { dominantEol, LineIndex, withEol } from "../../markdown/lines.js";
import { findSection, outlineMarkdown } from "../../markdown/outline.js";
import * as messages from "../messages.js";
import type { SectionEdit } from "../schema.js";
import {
  type Change,
  type EditProblem,
  placeholderProblem,
  reasonProblem,
  type StepResult,
} from "../step.js";

export function validateSection(edit: SectionEdit, article: string): EditProblem {
  const reason = reasonProblem(edit);
  if (reason) return reason;
  if (edit.mode !== "replace" && edit.content.trim().length === 0)
    return { code: "no_op", message: messages.emptyInsert(edit.mode) };
  return placeholderProblem(edit.content, article);
}

/** Replaces, appends to or prepends to the body of one section; the heading stays. */
export function sectionStep(content: string, edit: SectionEdit, format: ArticleFormat): StepResult {
  const outline = format.outline?.(content) ?? outlineMarkdown(content);
  const found = findSection(outline, edit.section);
  if (!found.ok)
    return { ok: false, code: found.code, message: found.message, citesLines: outline.sections.length > 0 };
  const section = found.section;
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
  if (content.slice(change.start, change.end) === change.text)
    return { ok: false, code: "already_applied", message: messages.sectionAlreadyHasContent(section.path) };
  const subsections = outline.sections.filter(
    (other) =>
      other.line > section.line && other.line <= section.endLine && other.level === section.level + 1,
  );
  if (edit.mode === "replace" && subsections.length > 0) {
    const titles = subsections.map((other) => other.title);
    return { ok: true, changes: [change], note: messages.subsectionsReplaced(titles) };
  }
  return { ok: true, changes: [change] };
}
