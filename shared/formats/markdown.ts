import { scanFences } from "../markdown/fences.js";
import { LineIndex } from "../markdown/lines.js";
import { type Outline, outlineMarkdown } from "../markdown/outline.js";
import { mdxOpaqueLines } from "./mdx-blocks.js";
import type { ArticleFormat, ArticleLink } from "./types.js";

const INLINE_LINK =
  /(!?)\[(?:[^\]\n]|\\\])*\]\(\s*(<[^>\n]*>|[^\s)]+)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)/g;
const REFERENCE_DEFINITION = /^[ ]{0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)/gm;
const INLINE_CODE = /`+[^`\n]*`+/g;
/** mkdocstrings: `::: package.module.name` on a line of its own renders that object's API docs. */
const MKDOCSTRINGS = /^[ \t]{0,3}:::[ \t]+([A-Za-z_][\w.:-]*)[ \t]*\r?$/gm;

/** Blanks the [start, end) ranges (sorted by start)  of `text` out, keeping offsets and line breaks. */
export function blankOut(text: string, ranges: readonly [number, number][]): string {
  if (ranges.length === 0) return text;
  const parts: string[] = [];
  let cursor = 0;
  for (const [start, end] of ranges) {
    if (end <= cursor) continue;
    const from = Math.max(start, cursor);
    parts.push(text.slice(cursor, from), text.slice(from, end).replace(/[^\n]/g, " "));
    cursor = end;
  }
  parts.push(text.slice(cursor));
  return parts.join("");
}

/** The link and image targets of a Markdown article outside code fences and inline code, with their lines. */
function markdownLinks(content: string, opaque: (content: string) => [number, number][]): ArticleLink[] {
  if (!content.includes("](") && !content.includes("]:")) return [];
  // Blank out code (keeping offsets and newlines) so that examples in code are not links.
  const text = blankOut(content, opaque(content)).replace(INLINE_CODE, (code) => " ".repeat(code.length));
  const lines = new LineIndex(content);
  const found: ArticleLink[] = [];
  for (const match of text.matchAll(INLINE_LINK)) {
    found.push({ target: unwrap(match[2]!), line: lines.lineAt(match.index), image: match[1] === "!" });
  }
  for (const match of text.matchAll(REFERENCE_DEFINITION)) {
    found.push({ target: unwrap(match[1]!), line: lines.lineAt(match.index), image: false });
  }
  return found;
}

function unwrap(target: string): string {
  return target.startsWith("<") && target.endsWith(">") ? target.slice(1, -1) : target;
}

/** GitHub-style heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(sections: readonly { title: string }[]): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const section of sections) {
    const base = section.title
      .toLowerCase()
      .replace(/<[^>]*>/g, "")
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

function mkdocstringsReferences(content: string, opaque: [number, number][]): string[] {
  if (!content.includes(":::")) return [];
  const text = blankOut(content, opaque);
  return [...text.matchAll(MKDOCSTRINGS)].map((match) => match[1]!);
}

function fenceUnclosed(content: string) {
  if (!content.includes("```") && !content.includes("~~~")) return null;
  const line = scanFences(content).unclosedLine;
  return line === null
    ? null
    : {
        line,
        message: `the edit leaves the code fence opened at line ${line} unclosed; every \`\`\` or ~~~ fence needs its closing line`,
      };
}

const fenceBlocks = (content: string) => scanFences(content).blocks;

/**
 * A format of the Markdown family: YAML frontmatter, checklists, fences that must close, and
 * mkdocstrings `:::` references. Its links, anchors and references come from its own outline
 * and opaque ranges, the only parts in which Markdown and MDX differ.
 */
function markdownFamily(
  format: Pick<ArticleFormat, "name" | "extensions" | "opaque"> & { outline: (content: string) => Outline },
): ArticleFormat {
  const { outline, opaque } = format;
  return {
    ...format,
    metadata: { kind: "yaml" },
    checklists: true,
    unclosedBlock: fenceUnclosed,
    links: (content) => markdownLinks(content, opaque),
    anchors: (content) => headingAnchors(outline(content).sections),
    references: (content) => mkdocstringsReferences(content, opaque(content)),
    referenceMarkers: [":::"],
  };
}

/** CommonMark with GFM tables and YAML frontmatter: today's scanner. */
export const markdownFormat = markdownFamily({
  name: "Markdown",
  extensions: [".md", ".markdown"],
  outline: (content) => outlineMarkdown(content),
  opaque: fenceBlocks,
});

/** Offset ranges of MDX's opaque lines (ESM, JSX blocks, expressions) and its fences. */
function mdxOpaque(content: string): [number, number][] {
  const lines = new LineIndex(content);
  const ranges: [number, number][] = fenceBlocks(content);
  for (const [first, last] of mdxOpaqueLines(content))
    ranges.push([lines.lineStart(first), lines.lineEnd(last)]);
  return ranges.sort((a, b) => a[0] - b[0]);
}

function mdxOutline(content: string) {
  const blocks = mdxOpaqueLines(content);
  if (blocks.length === 0) return outlineMarkdown(content);
  const opaque = new Uint8Array(blocks[blocks.length - 1]![1] + 1);
  for (const [first, last] of blocks) opaque.fill(1, first, last + 1);
  return outlineMarkdown(content, (line) => opaque[line] === 1);
}

/**
 * MDX: Markdown plus ESM (`import`/`export`), JSX blocks and `{…}` expressions, which are
 * opaque. YAML frontmatter, when there is one, stays the first thing in the file.
 */
export const mdxFormat = markdownFamily({
  name: "MDX",
  extensions: [".mdx"],
  outline: mdxOutline,
  opaque: mdxOpaque,
});
