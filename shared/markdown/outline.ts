import { contentHash } from "../hash.js";
import { closesFence, type Fence, measureIndent, openFence } from "./fences.js";
import { parseFrontmatter } from "./frontmatter.js";
import { LineIndex } from "./lines.js";

/** One heading and the lines it governs (`outline_article`). */
interface OutlineSection {
  /** The heading text as written (closing `#`s and surrounding spaces removed). */
  title: string;
  /**
   * Titles from the top-level ancestor down, joined by "::". A path that occurs again gets
   * " (2)", " (3)", … on its last title, in document order: "Usage::Options (2)".
   */
  path: string;
  level: number;
  /** 1-based line of the heading (the first text line for a setext heading). */
  line: number;
  /** Last line of the section, subsections included (the line before the next heading of the same or higher level). */
  endLine: number;
  /** First line after the heading (setext: after the underline). */
  bodyStartLine: number;
}

export interface Outline {
  sections: OutlineSection[];
  lineCount: number;
  /** YAML frontmatter (Markdown, MDX), which frontmatter edits may change. */
  frontmatter?: { startLine: number; endLine: number };
  /** Metadata that is not YAML (a reST field list, AsciiDoc header attributes): read, never written. */
  metadata?: { startLine: number; endLine: number; label: string };
}

export type FindSectionResult =
  | { ok: true; section: OutlineSection }
  | { ok: false; code: "section_not_found" | "section_ambiguous"; message: string };

/** A heading as a format's scanner finds it, before the tree is built. */
export interface Heading {
  title: string;
  level: number;
  line: number;
  bodyStartLine: number;
}

const ATX = /^(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const THEMATIC_BREAK = /^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const SETEXT_UNDERLINE = /^(?:=+|-+)[ \t]*$/;
const LIST_ITEM = /^(?:[-+*]|(\d{1,9})[.)])(?:([ \t]+)(\S)?|$)/;
/** A one-line link reference definition: `[label]: destination "title"`. */
const DEFINITION =
  /^\[(?:[^\]\\]|\\.)+\]:[ \t]*(?:<[^>\n]*>|\S+)(?:[ \t]+(?:"[^"]*"|'[^']*'|\([^)]*\)))?[ \t]*$/;
const TABLE_DELIMITER = /^\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const HTML_BLOCK_NAMES =
  "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul";
/** CommonMark HTML block kinds 1–7: the start test and, for 1–5, the text that ends the block. */
const HTML_BLOCKS: { start: RegExp; end: RegExp | null; interruptsParagraph: boolean }[] = [
  {
    start: /^<(?:script|pre|style|textarea)(?:[ \t>]|$)/i,
    end: /<\/(?:script|pre|style|textarea)>/i,
    interruptsParagraph: true,
  },
  { start: /^<!--/, end: /-->/, interruptsParagraph: true },
  { start: /^<\?/, end: /\?>/, interruptsParagraph: true },
  { start: /^<![A-Za-z]/, end: />/, interruptsParagraph: true },
  { start: /^<!\[CDATA\[/, end: /\]\]>/, interruptsParagraph: true },
  {
    start: new RegExp(`^</?(?:${HTML_BLOCK_NAMES})(?:[ \\t]|/?>|$)`, "i"),
    end: null,
    interruptsParagraph: true,
  },
  {
    start:
      /^(?:<[A-Za-z][A-Za-z0-9-]*(?:[ \t]+[A-Za-z_:][A-Za-z0-9_.:-]*(?:[ \t]*=[ \t]*(?:[^"'=<>`\s]+|'[^']*'|"[^"]*"))?)*[ \t]*\/?>|<\/[A-Za-z][A-Za-z0-9-]*[ \t]*>)[ \t]*$/,
    end: null,
    interruptsParagraph: false,
  },
];

type Block =
  | { kind: "none" }
  | { kind: "paragraph"; startLine: number; lines: string[]; definitionsOnly: boolean }
  | { kind: "table" }
  | { kind: "code" }
  | { kind: "fence"; fence: Fence }
  | { kind: "html"; end: RegExp | null };

/** A list item or block quote at the top level; only what decides where it ends is kept. */
type Container =
  | {
      kind: "list";
      width: number;
      sawBlank: boolean;
      paragraph: boolean;
      fence: Fence | null;
      empty: boolean;
    }
  | { kind: "quote"; paragraph: boolean; fence: Fence | null };

/** Drops `columns` columns of indentation (a partly used tab counts as used). */
function stripColumns(line: string, columns: number): string {
  let used = 0;
  let offset = 0;
  while (offset < line.length && used < columns) {
    const code = line.charCodeAt(offset);
    if (code === 32) used++;
    else if (code === 9) used += 4 - (used % 4);
    else break;
    offset++;
  }
  return line.slice(offset);
}

/** True when `line` (at the block level it is read at) starts a block that interrupts a paragraph. */
function interruptsParagraph(line: string): boolean {
  const { columns, offset } = measureIndent(line);
  if (columns > 3) return false;
  const text = line.slice(offset);
  const first = text[0];
  if (first === undefined) return true;
  if (first === "#") return ATX.test(text);
  if (first === ">") return true;
  if (first === "`" || first === "~") return openFence(text) !== null;
  if (THEMATIC_BREAK.test(text)) return true;
  if (first === "<") return HTML_BLOCKS.some((block) => block.interruptsParagraph && block.start.test(text));
  const item = LIST_ITEM.exec(text);
  // Only a non-empty item, and an ordered one starting at 1, interrupts a paragraph.
  return item !== null && item[3] !== undefined && (item[1] === undefined || Number(item[1]) === 1);
}

/** Follows fences and paragraphs inside a container, from the container's own content lines. */
function followContainer(container: Container, text: string): void {
  if (container.fence) {
    if (closesFence(container.fence, text)) container.fence = null;
    return;
  }
  const { columns, offset } = measureIndent(text);
  const rest = text.slice(offset);
  if (rest.length === 0) {
    container.paragraph = false;
    return;
  }
  const fence = columns <= 3 ? openFence(rest) : null;
  if (fence) {
    container.fence = fence;
    container.paragraph = false;
    return;
  }
  const nested = columns <= 3 && (rest[0] === ">" || LIST_ITEM.test(rest));
  if (nested) {
    // The nested container's own text decides whether a paragraph is open.
    const inner = rest[0] === ">" ? rest.slice(1) : rest.replace(LIST_ITEM, "$3");
    container.paragraph = inner.trim().length > 0 && !interruptsParagraph(inner.trimStart());
    return;
  }
  if (container.paragraph && columns >= 4) return;
  container.paragraph = columns >= 4 ? false : !(ATX.test(rest) || THEMATIC_BREAK.test(rest));
}

function listWidth(columns: number, text: string): { width: number; rest: string } | null {
  const match = LIST_ITEM.exec(text);
  if (!match) return null;
  const markerLength = match[0].length - (match[2]?.length ?? 0) - (match[3] ? 1 : 0);
  const spacing = match[2] ? measureIndent(match[2]).columns : 0;
  // An empty item, or one whose text starts with indented code, sits one column after the marker.
  const padding = match[3] === undefined || spacing > 4 ? 1 : spacing;
  const rest = match[3] === undefined ? "" : text.slice(match[0].length - 1);
  return {
    width: columns + markerLength + padding,
    rest: spacing > 4 ? `${" ".repeat(spacing - 1)}${rest}` : rest,
  };
}

/** Cells of a GFM table row: unescaped pipes split it, outer pipes do not count. */
function tableCells(row: string): number {
  const trimmed = row
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "");
  return trimmed.split(/(?<!\\)\|/).length;
}

function atxTitle(text: string): { level: number; title: string } | null {
  const match = ATX.exec(text);
  if (!match) return null;
  let title = (match[2] ?? "").trim();
  if (/^#+$/.test(title)) title = "";
  return { level: match[1]!.length, title };
}

/** What the scanner knows between lines: the open block, the open container, the headings so far. */
interface Scan {
  headings: Heading[];
  block: Block;
  container: Container | null;
}

/**
 * Finds the top-level headings of a Markdown (or MDX) article. A CommonMark block scanner
 * (fences, HTML blocks, indented code, list items, block quotes, GFM tables, frontmatter),
 * checked against mdast-util-from-markdown in the outline tests; it reads the file once,
 * line by line, so a megabyte takes milliseconds, and it never throws. Each line goes
 * through the phases in order until one takes it: a fence or HTML block that swallows it,
 * the open container, a blank line, the open leaf block, and last a new block.
 */
function scanHeadings(lines: LineIndex, firstLine: number, opaque?: (line: number) => boolean): Heading[] {
  const scan: Scan = { headings: [], block: { kind: "none" }, container: null };
  const lineCount = lines.lineCount;
  for (let number = firstLine; number <= lineCount; number++) {
    if (opaque?.(number)) {
      // An opaque block (MDX: ESM, JSX, expressions) ends whatever was open, as a block does.
      scan.block = { kind: "none" };
      scan.container = null;
      continue;
    }
    const line = lines.readText(number);
    if (insideRawBlock(scan, line)) continue;
    const { columns, offset } = measureIndent(line);
    const text = line.slice(offset);
    if (scan.container && continuesContainer(scan, scan.container, line, text, columns)) continue;
    if (text.length === 0) {
      scan.block = { kind: "none" };
      continue;
    }
    if (continuesLeafBlock(scan, line, text, columns, number)) continue;
    scan.block = { kind: "none" };
    startBlock(scan, text, columns, number);
  }
  return scan.headings;
}

/** A fenced code or HTML block takes every line up to (and including) the one that ends it. */
function insideRawBlock(scan: Scan, line: string): boolean {
  const { block } = scan;
  if (block.kind === "fence") {
    if (closesFence(block.fence, line)) scan.block = { kind: "none" };
    return true;
  }
  if (block.kind === "html") {
    if (block.end === null ? line.trim().length === 0 : block.end.test(line)) scan.block = { kind: "none" };
    return true;
  }
  return false;
}

/**
 * Whether the open list item or block quote takes the line (as its content, a sibling item,
 * or a lazy paragraph line). When it does not, the container is closed and the line is
 * read at the top level.
 */
function continuesContainer(
  scan: Scan,
  container: Container,
  line: string,
  text: string,
  columns: number,
): boolean {
  const blank = text.length === 0;
  if (container.kind === "list") {
    if (blank && container.empty) {
      // An item that starts empty ends at its first blank line.
      scan.container = null;
      scan.block = { kind: "none" };
      return true;
    }
    if (blank) {
      container.sawBlank = true;
      if (!container.fence) container.paragraph = false;
      return true;
    }
    if (columns >= container.width) {
      container.sawBlank = false;
      container.empty = false;
      followContainer(container, stripColumns(line, container.width));
      return true;
    }
    // A sibling item may be empty even right after paragraph text; only a new list may not.
    const sibling = columns <= 3 && !THEMATIC_BREAK.test(text) ? listWidth(columns, text) : null;
    if (sibling) {
      scan.container = openListItem(sibling);
      return true;
    }
    if (!container.fence && container.paragraph && !container.sawBlank && !interruptsParagraph(line))
      return true;
  } else {
    if (columns <= 3 && text[0] === ">") {
      followContainer(container, text.slice(1).replace(/^[ \t]/, ""));
      return true;
    }
    // micromark starts a list here even with an empty item: the quote's paragraph is not the one interrupted.
    const listStart = columns <= 3 && LIST_ITEM.test(text);
    if (!blank && !container.fence && container.paragraph && !listStart && !interruptsParagraph(line))
      return true;
  }
  scan.container = null;
  scan.block = { kind: "none" };
  return false;
}

/**
 * Whether the open indented code, paragraph or table takes the (non-blank) line. A
 * paragraph may end here as a setext heading.
 */
function continuesLeafBlock(
  scan: Scan,
  line: string,
  text: string,
  columns: number,
  number: number,
): boolean {
  const { block } = scan;
  if (block.kind === "code") return columns >= 4;
  if (block.kind === "table") return !interruptsParagraph(line);
  if (block.kind !== "paragraph") return false;
  if (columns <= 3 && SETEXT_UNDERLINE.test(text) && block.definitionsOnly) {
    // Link reference definitions are no heading text: "---" is a rule, "===" starts a paragraph.
    scan.block =
      text[0] === "="
        ? { kind: "paragraph", startLine: number, lines: [text], definitionsOnly: false }
        : { kind: "none" };
    return true;
  }
  if (columns <= 3 && SETEXT_UNDERLINE.test(text)) {
    scan.headings.push({
      title: block.lines.map((part) => part.trim()).join(" "),
      level: text[0] === "=" ? 1 : 2,
      line: block.startLine,
      bodyStartLine: number + 1,
    });
    scan.block = { kind: "none" };
    return true;
  }
  if (
    text.includes("|") &&
    TABLE_DELIMITER.test(text) &&
    tableCells(text) === tableCells(block.lines[block.lines.length - 1]!)
  ) {
    scan.block = { kind: "table" };
    return true;
  }
  if (interruptsParagraph(line)) return false;
  block.lines.push(text);
  if (block.definitionsOnly && !DEFINITION.test(text)) block.definitionsOnly = false;
  return true;
}

/** A line no open block took: it starts a heading, code, fence, HTML block, rule, quote, list item or paragraph. */
function startBlock(scan: Scan, text: string, columns: number, number: number): void {
  if (columns >= 4) {
    scan.block = { kind: "code" };
    return;
  }
  const first = text[0];
  if (first === "#") {
    const heading = atxTitle(text);
    if (heading) {
      scan.headings.push({ ...heading, line: number, bodyStartLine: number + 1 });
      return;
    }
  }
  if (first === "`" || first === "~") {
    const fence = openFence(text);
    if (fence) {
      scan.block = { kind: "fence", fence };
      return;
    }
  }
  if (first === "<") {
    const html = HTML_BLOCKS.find((candidate) => candidate.start.test(text));
    if (html) {
      if (!(html.end?.test(text) ?? false)) scan.block = { kind: "html", end: html.end };
      return;
    }
  }
  if (THEMATIC_BREAK.test(text)) return;
  if (first === ">") {
    const quote: Container = { kind: "quote", paragraph: false, fence: null };
    followContainer(quote, text.slice(1).replace(/^[ \t]/, ""));
    scan.container = quote;
    return;
  }
  const item = listWidth(columns, text);
  if (item) {
    scan.container = openListItem(item);
    return;
  }
  scan.block = {
    kind: "paragraph",
    startLine: number,
    lines: [text],
    definitionsOnly: DEFINITION.test(text),
  };
}

/** A list item's container, its first line already followed. */
function openListItem(item: { width: number; rest: string }): Container {
  const container: Container = {
    kind: "list",
    width: item.width,
    sawBlank: false,
    paragraph: false,
    fence: null,
    empty: item.rest.trim().length === 0,
  };
  followContainer(container, item.rest);
  return container;
}

/**
 * The heading tree of a Markdown article with line ranges (frontmatter excluded). `opaque`
 * names lines no heading, container or block is read in (MDX's ESM, JSX and expressions).
 */
export function outlineMarkdown(content: string, opaque?: (line: number) => boolean): Outline {
  const lines = new LineIndex(content);
  const lineCount = lines.lineCount;
  const outline: Outline = { sections: [], lineCount };
  const frontmatter = parseFrontmatter(content);
  let firstLine = 1;
  if (frontmatter?.closed && frontmatter.endLine <= lineCount) {
    outline.frontmatter = { startLine: frontmatter.startLine, endLine: frontmatter.endLine };
    firstLine = frontmatter.endLine + 1;
  }
  outline.sections = sectionTree(scanHeadings(lines, firstLine, opaque), lineCount);
  return outline;
}

/**
 * Sections from headings in document order: paths (repeats numbered), and line ranges
 * that run to the line before the next heading of the same or a higher level. Every
 * format's outline is built here.
 */
export function sectionTree(headings: readonly Heading[], lineCount: number): OutlineSection[] {
  const sections: OutlineSection[] = [];
  const stack: OutlineSection[] = [];
  const seen = new Map<string, number>();
  /** Ends the open sections of `level` or deeper at the line before `line`. */
  const close = (level: number, line: number) => {
    while (stack.length > 0 && stack[stack.length - 1]!.level >= level) {
      const open = stack.pop()!;
      open.endLine = Math.max(line - 1, open.bodyStartLine - 1);
    }
  };
  for (let index = 0; index < headings.length; index++) {
    const heading = headings[index]!;
    close(heading.level, heading.line);
    const parent = stack[stack.length - 1];
    const base = parent ? `${parent.path}::${heading.title}` : heading.title;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    const section: OutlineSection = {
      title: heading.title,
      path: count === 1 ? base : `${base} (${count})`,
      level: heading.level,
      line: heading.line,
      endLine: lineCount,
      bodyStartLine: heading.bodyStartLine,
    };
    sections.push(section);
    stack.push(section);
  }
  close(0, lineCount + 1);
  return sections;
}

/** Heading text without inline Markdown, for lenient matching: "`run` *now*" → "run now". */
function plainTitle(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*_~]/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

function describeSections(sections: OutlineSection[]): string {
  return sections.map((section) => `  ${section.path} (h${section.level}, line ${section.line})`).join("\n");
}

const MAX_LISTED_SECTIONS = 200;

/**
 * Finds one section by heading text ("Options"), heading line ("## Options") or path
 * ("Usage::Options", or its tail "Options (2)"). An exact match wins over a lenient one
 * (case and inline Markdown ignored). The message is meant for the model.
 */
export function findSection(outline: Outline, query: string): FindSectionResult {
  let wanted = query.trim();
  let level: number | undefined;
  const hashes = /^(#{1,6})\s+/.exec(wanted);
  if (hashes) {
    level = hashes[1]!.length;
    wanted = wanted
      .slice(hashes[0].length)
      .replace(/\s+#+\s*$/, "")
      .trim();
  }
  const candidates = outline.sections.filter((section) => level === undefined || section.level === level);
  const tail = (section: OutlineSection) => section.path.slice(section.path.lastIndexOf("::") + 2);
  const passes: ((section: OutlineSection) => boolean)[] = [
    (section) => section.path === wanted,
    (section) => wanted.includes("::") && section.path.endsWith(`::${wanted}`),
    (section) => section.title === wanted || tail(section) === wanted,
    (section) =>
      plainTitle(section.title) === plainTitle(wanted) ||
      plainTitle(section.path) === plainTitle(wanted) ||
      plainTitle(section.path).endsWith(`::${plainTitle(wanted)}`),
  ];
  for (const pass of passes) {
    const matches = candidates.filter(pass);
    if (matches.length === 1) return { ok: true, section: matches[0]! };
    if (matches.length > 1) {
      return {
        ok: false,
        code: "section_ambiguous",
        message: `section "${query}" matches ${matches.length} sections; use one of these paths:\n${describeSections(matches)}`,
      };
    }
  }
  if (outline.sections.length === 0) {
    return {
      ok: false,
      code: "section_not_found",
      message: `section "${query}" not found: the article has no headings; use a replace edit instead.`,
    };
  }
  const listed = outline.sections.slice(0, MAX_LISTED_SECTIONS);
  const more =
    outline.sections.length > listed.length
      ? `\n  … and ${outline.sections.length - listed.length} more`
      : "";
  return {
    ok: false,
    code: "section_not_found",
    message: `section "${query}" not found. Available sections (path, level, line):\n${describeSections(listed)}${more}`,
  };
}

/**
 * The `outline_article` tool result: a header line, then one line per section. `outline`
 * is the article format's (shared/formats); without it the text is read as Markdown.
 */
export function formatOutline(
  path: string,
  content: string,
  outline: Outline = outlineMarkdown(content),
): string {
  const header = `${path} · ${outline.lineCount} lines · hash ${contentHash(content)}`;
  const lines = [header];
  if (outline.frontmatter) {
    lines.push(`frontmatter: lines ${outline.frontmatter.startLine}-${outline.frontmatter.endLine}`);
  }
  if (outline.metadata) {
    lines.push(
      `metadata (${outline.metadata.label}, read-only): lines ${outline.metadata.startLine}-${outline.metadata.endLine}`,
    );
  }
  if (outline.sections.length === 0) lines.push("(no headings)");
  for (const section of outline.sections) {
    const indent = "  ".repeat(section.level - 1);
    lines.push(`${indent}${section.path}  (h${section.level}, lines ${section.line}-${section.endLine})`);
  }
  return lines.join("\n");
}
