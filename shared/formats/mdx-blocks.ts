import { closesFence, type Fence, openFence } from "../markdown/fences.js";
import { findFrontmatterFences } from "../markdown/frontmatter.js";
import { LineIndex } from "../markdown/lines.js";

const ESM = /^(?:import|export)(?=[\s{*])/;
const ATX_START = /^#{1,6}(?:[ \t]|$)/;
const JSX_START = /^<(?:[A-Za-z_$]|>|\/)/;

/**
 * Lines of an MDX article that are not Markdown, as 1-based inclusive ranges: ESM
 * (`import`/`export` up to the next blank line), JSX blocks (from the opening tag to the
 * line that closes the element, children included) and `{…}` expressions, each where a
 * block may start (not inside a paragraph or a code fence). A JSX element that never
 * closes runs to the next blank line, where MDX itself would report an error.
 */
export function mdxOpaqueLines(content: string): [number, number][] {
  if (!content.includes("<") && !content.includes("{") && !/^(?:import|export)/m.test(content)) return [];
  const lines = new LineIndex(content);
  const lineCount = lines.lineCount;
  const ranges: [number, number][] = [];
  const frontmatter = findFrontmatterFences(content);
  let number = frontmatter?.closed ? lines.lineAt(frontmatter.end - 1) + 1 : 1;
  let blockStart = true;
  let fence: Fence | null = null;
  // Most lines are decided by their first character, read in place; a line is sliced only when it may matter.
  for (; number <= lineCount; number++) {
    const start = lines.lineStart(number);
    const end = lines.lineEnd(number);
    let at = start;
    let columns = 0;
    for (; at < end; at++) {
      const code = content.charCodeAt(at);
      if (code === 32) columns++;
      else if (code === 9) columns += 4 - (columns % 4);
      else break;
    }
    const first = at < end ? content[at]! : "\n";
    if (fence) {
      if (first === fence.marker && closesFence(fence, lines.lineText(number))) {
        fence = null;
        blockStart = true;
      }
      continue;
    }
    if (first === "\n" || first === "\r") {
      blockStart = true;
      continue;
    }
    if (columns > 3) {
      blockStart = false;
      continue;
    }
    if (first === "`" || first === "~") {
      // A fence may interrupt a paragraph.
      fence = openFence(lines.lineText(number).slice(at - start));
      if (fence) continue;
    }
    if (blockStart) {
      let last = 0;
      if (columns === 0 && (first === "i" || first === "e") && ESM.test(content.slice(at, at + 7)))
        last = untilBlank(lines, number);
      else if (first === "<" && JSX_START.test(content.slice(at, at + 2)))
        last = jsxEnd(content, lines, at, number);
      else if (first === "{") last = expressionEnd(content, lines, at, number);
      if (last > 0) {
        ranges.push([number, last]);
        number = last;
        blockStart = true;
        continue;
      }
    }
    blockStart = first === "#" && ATX_START.test(lines.lineText(number).slice(at - start));
  }
  return ranges;
}

/** The last line before the next blank line (or the file's last line). */
function untilBlank(lines: LineIndex, from: number): number {
  let last = from;
  while (last < lines.lineCount && lines.lineText(last + 1).trim().length > 0) last++;
  return last;
}

/** Skips a JS string or template starting at `at` (its quote); returns the offset after it. */
function skipString(content: string, at: number): number {
  const quote = content[at];
  let index = at + 1;
  while (index < content.length && content[index] !== quote) index += content[index] === "\\" ? 2 : 1;
  return index + 1;
}

/** Skips a balanced `{…}` starting at `at`; returns the offset after the closing brace, or -1. */
function skipBraces(content: string, at: number): number {
  let depth = 0;
  for (let index = at; index < content.length; index++) {
    const char = content[index];
    if (char === '"' || char === "'" || char === "`") {
      index = skipString(content, index) - 1;
    } else if (char === "{") depth++;
    else if (char === "}" && --depth === 0) return index + 1;
  }
  return -1;
}

function expressionEnd(content: string, lines: LineIndex, at: number, number: number): number {
  const end = skipBraces(content, at);
  return end === -1 ? untilBlank(lines, number) : lines.lineAt(end - 1);
}

/** The line where the JSX element opened at `at` closes (tags counted, attribute values skipped). */
function jsxEnd(content: string, lines: LineIndex, at: number, number: number): number {
  let depth = 0;
  let index = at;
  while (index < content.length) {
    const char = content[index];
    if (char === "{") {
      const end = skipBraces(content, index);
      if (end === -1) break;
      index = end;
      continue;
    }
    if (char !== "<") {
      index++;
      continue;
    }
    const closing = content[index + 1] === "/";
    let selfClosing = false;
    index++;
    // Inside the tag: strings and braces may hold ">".
    while (index < content.length && content[index] !== ">") {
      const inner = content[index];
      if (inner === '"' || inner === "'") index = skipString(content, index);
      else if (inner === "{") {
        const end = skipBraces(content, index);
        if (end === -1) return untilBlank(lines, number);
        index = end;
      } else {
        selfClosing = inner === "/";
        index++;
      }
    }
    if (index >= content.length) break;
    index++;
    if (closing) depth--;
    else if (!selfClosing) depth++;
    if (depth <= 0) return lines.lineAt(index - 1);
  }
  return untilBlank(lines, number);
}
