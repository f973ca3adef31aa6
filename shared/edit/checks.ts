import { parseFrontmatter } from "../markdown/frontmatter.js";
import { LineIndex } from "../markdown/lines.js";

/**
 * Placeholders a model leaves when it means "keep the rest": "... rest unchanged",
 * "(unchanged)", "[rest of the section omitted]", "// ... existing content ...". They are
 * only refused when the article does not already contain the same words.
 */
const PLACEHOLDERS: RegExp[] = [
  /(?:\.\.\.|…)[ \t]*\(?[ \t]*(?:the[ \t]+)?(?:rest|remainder|remaining|other|existing|previous|same)\b[^\n]{0,40}?\b(?:unchanged|omitted|as before|the same|content|text|sections?|lines?|items?)\b/i,
  /\((?:unchanged|rest unchanged|content unchanged|omitted|same as before|as before|no changes?)\)/i,
  /\[(?:unchanged|rest unchanged|content unchanged|omitted|\.\.\.|…)[^\]\n]{0,40}\]/i,
  /\b(?:rest|remainder) of (?:the )?(?:file|article|section|document|content|text|list|table)\b[^\n]{0,20}?\b(?:unchanged|omitted|stays? the same|remains? the same|as before|here)\b/i,
  /(?:\/\/|#|<!--)[ \t]*(?:\.\.\.|…)[ \t]*(?:existing|unchanged|rest|previous)[^\n]{0,40}/i,
];

/** The placeholder text found in `text` that `article` does not already contain, if any. */
export function findPlaceholder(text: string, article: string): string | null {
  for (const pattern of PLACEHOLDERS) {
    const match = pattern.exec(text);
    if (match && !article.includes(match[0])) return match[0];
  }
  return null;
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
  let open: { marker: string; length: number; start: number } | null = null;
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
    const marker = content[at]!;
    let runEnd = at;
    while (content[runEnd] === marker) runEnd++;
    const length = runEnd - at;
    const rest = content.slice(runEnd, lineEnd).replace(/\r$/, "");
    if (open) {
      if (marker === open.marker && length >= open.length && rest.trim().length === 0) {
        blocks.push([open.start, lineEnd]);
        open = null;
      }
    } else if (!(marker === "`" && rest.includes("`"))) {
      open = { marker, length, start: lineStart };
    }
  }
  if (!open) return { unclosedLine: null, blocks };
  blocks.push([open.start, content.length]);
  return { unclosedLine: new LineIndex(content.slice(0, open.start + 1)).lineCount, blocks };
}

export interface StructureProblem {
  code: "broken_frontmatter" | "unclosed_code_fence";
  message: string;
}

/** Structure that was sound before the batch and is broken after it. */
export function structureProblem(before: string, after: string): StructureProblem | null {
  const frontmatterBefore = parseFrontmatter(before);
  if (frontmatterBefore && !frontmatterBefore.error) {
    const frontmatterAfter = parseFrontmatter(after);
    if (!frontmatterAfter) {
      return {
        code: "broken_frontmatter",
        message:
          "the edit removes the frontmatter's opening --- line; keep the frontmatter (lines 1-" +
          `${frontmatterBefore.endLine}) intact`,
      };
    }
    if (frontmatterAfter.error) {
      return {
        code: "broken_frontmatter",
        message: `the edit breaks the YAML frontmatter (line ${frontmatterAfter.error.line}: ${frontmatterAfter.error.message}); keep it valid YAML between the --- lines`,
      };
    }
  }
  if (before.includes("```") || before.includes("~~~") || after.includes("```") || after.includes("~~~")) {
    if (scanFences(before).unclosedLine === null) {
      const unclosed = scanFences(after).unclosedLine;
      if (unclosed !== null) {
        return {
          code: "unclosed_code_fence",
          message: `the edit leaves the code fence opened at line ${unclosed} unclosed; every \`\`\` or ~~~ fence needs its closing line`,
        };
      }
    }
  }
  return null;
}
