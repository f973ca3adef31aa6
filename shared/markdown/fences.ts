import { LineIndex } from "./lines.js";

/**
 * Code fences, the one definition: which line opens a fence and which closes it, used by
 * the outline's block scanner and by the edit checks' fast scan for unclosed fences.
 */
export interface Fence {
  marker: string;
  length: number;
}

const FENCE_OPEN = /^(`{3,}|~{3,})([\s\S]*)$/;

/** Columns of leading whitespace (tabs to the next multiple of 4) and the offset where text starts. */
export function measureIndent(line: string): { columns: number; offset: number } {
  let columns = 0;
  let offset = 0;
  while (offset < line.length) {
    const code = line.charCodeAt(offset);
    if (code === 32) columns++;
    else if (code === 9) columns += 4 - (columns % 4);
    else break;
    offset++;
  }
  return { columns, offset };
}

/**
 * The fence a line opens (the line starts at the marker: container prefixes and up to three
 * columns of indentation already removed), or null. A backtick fence's info string may not
 * hold a backtick.
 */
export function openFence(text: string): Fence | null {
  const match = FENCE_OPEN.exec(text);
  if (!match) return null;
  const marker = match[1]!;
  if (marker[0] === "`" && match[2]!.includes("`")) return null;
  return { marker: marker[0]!, length: marker.length };
}

/** Whether `line` closes `fence`: up to three columns of indentation, then only the marker, at least as long. */
export function closesFence(fence: Fence, line: string): boolean {
  const { columns, offset } = measureIndent(line);
  if (columns > 3) return false;
  const text = line.slice(offset).trimEnd();
  if (text.length < fence.length) return false;
  for (let i = 0; i < text.length; i++) if (text[i] !== fence.marker) return false;
  return true;
}

export interface FenceScan {
  /** 1-based line of a fence left open at the end of the file, or null. */
  unclosedLine: number | null;
  /** Offsets [start, end) of fenced blocks, fences included, in order. */
  blocks: [number, number][];
}

const FENCE_PREFIX = /^\uFEFF?[ \t]*(?:>[ \t]*)*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?$/;

/**
 * Finds fenced code blocks with indexOf jumps between "```" and "~~~" runs instead of
 * reading every line, so it costs little on a megabyte article. Fences inside block quotes
 * and list items count too.
 */
export function scanFences(content: string): FenceScan {
  const blocks: [number, number][] = [];
  let open: { fence: Fence; start: number } | null = null;
  let from = 0;
  // Each next position is searched again only once passed, so a marker that never occurs costs one scan.
  let backtick = -2;
  let tilde = -2;
  while (from < content.length) {
    if (backtick !== -1 && backtick < from) backtick = content.indexOf("```", from);
    if (tilde !== -1 && tilde < from) tilde = content.indexOf("~~~", from);
    const at = backtick === -1 ? tilde : tilde === -1 ? backtick : Math.min(backtick, tilde);
    if (at === -1) break;
    const lineStart = content.lastIndexOf("\n", at - 1) + 1;
    let lineEnd = content.indexOf("\n", at);
    if (lineEnd === -1) lineEnd = content.length;
    from = lineEnd + 1;
    if (!FENCE_PREFIX.test(content.slice(lineStart, at))) continue;
    const text = content.slice(at, lineEnd).replace(/\r$/, "");
    if (open) {
      if (closesFence(open.fence, text)) {
        blocks.push([open.start, lineEnd]);
        open = null;
      }
    } else {
      const fence = openFence(text);
      if (fence) open = { fence, start: lineStart };
    }
  }
  if (!open) return { unclosedLine: null, blocks };
  blocks.push([open.start, content.length]);
  return { unclosedLine: new LineIndex(content.slice(0, open.start + 1)).lineCount, blocks };
}
