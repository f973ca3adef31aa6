import { inertMarkdown, oneLine, printableBlock } from "./escape.js";

/**
 * Small Markdown building blocks shared by every renderer (comment, report, plan table,
 * summaries). Text from others passes through shared/render/escape.ts on the way in.
 */

/**
 * An inline code span that shows `text` exactly, on one line: the fence is longer than any
 * backtick run inside, and line breaks, control and invisible characters cannot end the
 * paragraph or hide text. Mentions, links and HTML are inert inside code.
 */
export function inlineCode(text: string): string {
  const clean = oneLine(text);
  if (clean === "") return "` `";
  const longest = Math.max(0, ...Array.from(clean.matchAll(/`+/g), (match) => match[0].length));
  const marks = "`".repeat(longest + 1);
  const pad = longest > 0 || clean.startsWith(" ") || clean.endsWith(" ") ? " " : "";
  return `${marks}${pad}${clean}${pad}${marks}`;
}

/**
 * Like `inlineCode`, for a GFM table cell. A pipe cannot be escaped inside a code span in
 * a table when a backslash comes before it, so text with a pipe is shown as inert Markdown
 * inside a `<code>` element instead, where the pipe can be an entity.
 */
export function codeCell(text: string): string {
  return text.includes("|") ? `<code>${inertMarkdown(text)}</code>` : inlineCode(text);
}

/**
 * A fenced code block that `text` cannot close: the fence is longer than any backtick run
 * inside (at least three), and control characters are shown as control pictures.
 */
export function fence(text: string, language = ""): string {
  const body = printableBlock(text);
  const marks = fenceMarks(body);
  return `${marks}${language}\n${body.endsWith("\n") ? body : `${body}\n`}${marks}`;
}

/** The backticks of a fence that no backtick run inside `text` can close (at least three). */
export function fenceMarks(text: string): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (match) => match[0].length));
  return "`".repeat(longest + 1);
}

/** The first 12 hex digits of a full commit sha; anything else (`diff:…`, a ref) as it is. */
export function shortSha(sha: string): string {
  return /^[0-9a-f]{40}$/.test(sha) ? sha.slice(0, 12) : sha;
}

/**
 * `count` and the noun in the right number: `plural(1, "edit")` is "1 edit",
 * `plural(3, "edit")` "3 edits", `plural(2, "match", "matches")` "2 matches".
 */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/** An edit's place for people: "line 4", or "lines 4–9" (an en dash, as in the reports). */
export function lineSpan(startLine: number, endLine: number): string {
  return startLine === endLine ? `line ${startLine}` : `lines ${startLine}–${endLine}`;
}
