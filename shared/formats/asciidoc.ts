import { LineIndex } from "../markdown/lines.js";
import type { Heading } from "../markdown/outline.js";
import { type LineScan, lineScanReaders } from "./line-scan.js";
import type { ArticleFormat, ArticleLink, UnclosedBlock } from "./types.js";

const SECTION = /^(={1,6}|#{1,6})[ \t]+(\S.*?)(?:[ \t]+\1)?[ \t]*$/;
/** Delimiter lines of AsciiDoc's delimited blocks (listing, literal, example, sidebar, pass, quote, comment, open, tables, Markdown-style fences). */
const DELIMITER = /^(?:-{4,}|\.{4,}|={4,}|\*{4,}|\+{4,}|_{4,}|\/{4,}|--|[|,:!]={3,}|`{3}[^`\s]*)[ \t]*$/;
const ATTRIBUTE_ENTRY = /^:!?[\w][\w-]*!?:(?:[ \t]|$)/;
const BLOCK_ATTRIBUTES = /^\[(?:|[\p{L}\p{N}_.#%{,"'[].*)\]$/u;
const BLOCK_TITLE = /^\.(?![.\s])/;
const PREPROCESSOR = /^(?:ifn?def|ifeval|endif|include)::\S*\[.*\]$/;
const COMMENT_LINE = /^\/\/(?!\/)/;
const SETEXT_LEVELS: Record<string, number> = { "=": 1, "-": 2, "~": 3, "^": 4, "+": 5 };
const XREF = /<<([^,>\s]+)(?:,[^>]*)?>>|xref:([^[\s]*)\[/g;
const EXPLICIT_ID =
  /\[\[([A-Za-z_:][\w:.-]*)(?:,[^\]]*)?\]\]|\[#([A-Za-z_:][\w:.-]*)[.%,\]]|anchor:([A-Za-z_:][\w:.-]*)\[/g;

/** An AsciiDoc scan: delimited blocks are its opaque ranges, delimiters included. */
interface AsciidocScan extends LineScan {
  /** The first line of a delimited block that never closes. */
  unclosed: number | null;
}

/**
 * Reads an AsciiDoc document as Asciidoctor does, for its sections: the document title
 * (`= Title`, level 1 here) and its header (attribute entries: the metadata), then
 * `==`… (or `##`…) titles and two-line titles underlined with `= - ~ ^ +` at the start
 * of a block. Delimited blocks are opaque up to the same delimiter line; a
 * `[discrete]` heading is no section. Checked against Asciidoctor.js in the format tests.
 */
function scanAsciidoc(content: string): AsciidocScan {
  const index = new LineIndex(content);
  const count = index.lineCount;
  const lines: string[] = new Array(count + 2);
  for (let number = 1; number <= count; number++) lines[number] = index.readText(number).trimEnd();
  lines[count + 1] = "";
  const scan: AsciidocScan = { lineCount: count, headings: [], opaque: [], unclosed: null };

  let number = 1;
  let firstAttribute = 0;
  let lastAttribute = 0;
  const attribute = (line: number) => {
    if (firstAttribute === 0) firstAttribute = line;
    lastAttribute = line;
  };
  // The header: comments and attribute entries, the document title, then lines up to a blank one.
  while (number <= count) {
    const line = lines[number]!;
    if (line.length === 0 || COMMENT_LINE.test(line)) number++;
    else if (ATTRIBUTE_ENTRY.test(line)) attribute(number++);
    else break;
  }
  const title = number <= count ? /^(?:=|#)[ \t]+(\S.*?)[ \t]*$/.exec(lines[number]!) : null;
  if (title) {
    const heading: Heading = { title: title[1]!, level: 1, line: number, bodyStartLine: number + 1 };
    scan.headings.push(heading);
    number++;
    while (number <= count && lines[number]!.length > 0) {
      if (ATTRIBUTE_ENTRY.test(lines[number]!)) attribute(number);
      number++;
    }
    // The header (author, revision, attributes) stays with the title: section edits go after it.
    heading.bodyStartLine = number;
  }
  if (firstAttribute > 0) scan.metadata = { startLine: firstAttribute, endLine: lastAttribute };
  let skipNameSection = false;
  for (let line = firstAttribute; line > 0 && line <= lastAttribute; line++)
    if (/^:doctype:[ \t]+manpage$/.test(lines[line]!)) skipNameSection = true;

  let blockStart = true;
  let discrete = false;
  while (number <= count) {
    const line = lines[number]!;
    if (line.length === 0) {
      blockStart = true;
      discrete = false;
      number++;
      continue;
    }
    if (COMMENT_LINE.test(line) || PREPROCESSOR.test(line)) {
      number++;
      continue;
    }
    if (DELIMITER.test(line)) {
      const closing = line.startsWith("```") ? "```" : line;
      let end = number + 1;
      while (end <= count && lines[end] !== closing) end++;
      if (end > count) {
        scan.unclosed ??= number;
        end = count;
      }
      scan.opaque.push([number, end]);
      number = end + 1;
      blockStart = true;
      discrete = false;
      continue;
    }
    // Block attributes and attribute entries belong to the block (or section) after them.
    if (ATTRIBUTE_ENTRY.test(line) && blockStart) {
      number++;
      continue;
    }
    if (BLOCK_ATTRIBUTES.test(line)) {
      if (/^\[(?:discrete|float)(?:[,#.%\]])/.test(line)) discrete = true;
      blockStart = true;
      number++;
      continue;
    }
    if (blockStart) {
      const single = SECTION.exec(line);
      if (single) {
        // A man page's first section (NAME) belongs to its header, as Asciidoctor reads it.
        const nameSection = skipNameSection && single[1]!.length === 2;
        skipNameSection = false;
        if (!discrete && !nameSection)
          scan.headings.push({
            title: single[2]!,
            level: single[1]!.length,
            line: number,
            bodyStartLine: number + 1,
          });
        discrete = false;
        number++;
        continue;
      }
      const under = lines[number + 1] ?? "";
      const setext = number + 1 <= count ? SETEXT_LEVELS[under[0] ?? ""] : undefined;
      if (
        setext !== undefined &&
        !line.startsWith(".") &&
        /[\p{L}\p{N}]/u.test(line) &&
        !BLOCK_TITLE.test(line) &&
        [...under].every((char) => char === under[0]) &&
        Math.abs(line.length - under.length) < 2
      ) {
        if (!discrete)
          scan.headings.push({ title: line.trim(), level: setext, line: number, bodyStartLine: number + 2 });
        discrete = false;
        number += 2;
        continue;
      }
      if (BLOCK_TITLE.test(line) || /^\[\[[^\]]+\]\]$/.test(line)) {
        number++;
        continue;
      }
    }
    blockStart = false;
    discrete = false;
    number++;
  }
  return scan;
}

const {
  outline: outlineAsciidoc,
  opaque: opaqueRanges,
  readable,
} = lineScanReaders(scanAsciidoc, "header attributes");

/** In-article cross references (`<<id>>`, `xref:#id[]`, `xref:id[]`) as `#id` links; xrefs to other files are left to the site's build. */
function asciidocLinks(content: string): ArticleLink[] {
  if (!content.includes("<<") && !content.includes("xref:")) return [];
  const text = readable(content);
  const lines = new LineIndex(content);
  const found: ArticleLink[] = [];
  for (const match of text.matchAll(XREF)) {
    const target = match[1] ?? match[2]!;
    if (target.includes(".adoc") || target.includes(":")) continue;
    found.push({ target: `#${target.replace(/^#/, "")}`, line: lines.lineAt(match.index), image: false });
  }
  return found;
}

/** Section ids as Asciidoctor generates them (`_` prefix and separator), and explicit ids. */
function asciidocAnchors(content: string): Set<string> {
  const anchors = new Set<string>();
  for (const section of scanAsciidoc(content).headings) {
    const id = section.title
      .toLowerCase()
      .replace(/<[^>]+>|&[a-z0-9#]+;/g, "")
      .replace(/[^\p{L}\p{N}\s.-]/gu, "")
      .replace(/[\s.-]+/g, "_")
      .replace(/_+$/, "");
    anchors.add(`_${id}`);
  }
  for (const match of content.matchAll(EXPLICIT_ID)) anchors.add(match[1] ?? match[2] ?? match[3]!);
  return anchors;
}

function asciidocUnclosed(content: string): UnclosedBlock | null {
  if (!/^(?:-{4}|\.{4}|={4}|\*{4}|\+{4}|_{4}|\/{4}|--|[|,:!]={3}|```)/m.test(content)) return null;
  const line = scanAsciidoc(content).unclosed;
  return line === null
    ? null
    : {
        line,
        message: `the edit leaves the delimited block opened at line ${line} unclosed; every block needs its closing delimiter line, the same as the opening one`,
      };
}

/** AsciiDoc (Asciidoctor, Antora). */
export const asciidocFormat: ArticleFormat = {
  name: "AsciiDoc",
  // Not `.asc`: far more of those are PGP signatures than articles.
  extensions: [".adoc", ".asciidoc"],
  outline: outlineAsciidoc,
  opaque: opaqueRanges,
  metadata: { kind: "read-only", label: "header attributes" },
  // `* [ ]` / `* [x]` items are AsciiDoc checklists too.
  checklists: true,
  unclosedBlock: asciidocUnclosed,
  links: asciidocLinks,
  anchors: asciidocAnchors,
  references: () => [],
  referenceMarkers: [],
};
