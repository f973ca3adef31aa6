import { LineIndex } from "../markdown/lines.js";
import { type LineScan, lineScanReaders } from "./line-scan.js";
import type { ArticleFormat, ArticleLink } from "./types.js";

/** A line of one repeated 7-bit punctuation character: an underline, overline or transition. */
const ADORNMENT = /^([!-/:-@[-`{-~])\1*$/;
const BULLET = /^[-+*\u2022\u2023\u2043](?: |$)/;
const FIELD = /^:(?![: ])(?:[^:\\]|\\.|:(?![ `]|$))*(?<! ):(?: |$)/;
const OPTION =
  /^(?:(?:--?|\+|\/)[A-Za-z0-9][\w-]*(?:[ =][^\s,]+)?)(?:, (?:--?|\+|\/)[A-Za-z0-9][\w-]*(?:[ =][^\s,]+)?)*(?: {2,}|$)/;
/** Constructs read as one text block up to the next blank line: doctest, line block, grid table. */
const TEXT_BLOCK = /^(?:>>>(?: |$)|\|(?: |$)|\+-[-+]*\+$|\+=[=+]*\+$)/;
const SIMPLE_TABLE_TOP = /^=+(?: +=+)+$/;
const SIMPLE_TABLE_BORDER = /^=+[ =]*$/;
const EXPLICIT = /^(?:\.\.(?: |$)|__(?: |$))/;
/** Directives whose body is code or raw text, never reStructuredText. */
const LITERAL_DIRECTIVE =
  /^\.\.[ ]+(?:[\w-]+:)?(?:code-block|code|sourcecode|literalinclude|highlight|parsed-literal|raw|math|doctest|testcode|testoutput|testsetup|testcleanup|ipython|jupyter-execute|prompt|graphviz|mermaid|uml|productionlist)::/;
/** `..` not followed by a directive, target, footnote, citation or substitution: a comment. */
const COMMENT = /^\.\.(?: +(?!\[|_|\|)(?![^:]*::)|[ ]*$)/;
const TARGET = /^[ \t]*\.\.[ ]+_(`[^`]+`|[^:\\]+(?:\\.[^:\\]*)*):/gm;
const REF_ROLE = /:(?:std:)?ref:`(?:[^`<]*<([^`>]+)>|([^`]+))`/g;
const DOC_ROLE = /:(?:std:)?doc:`(?:[^`<]*<([^`>]+)>|([^`]+))`/g;
const API_DIRECTIVE =
  /^[ \t]*\.\.[ ]+(?:[a-z]+:)?(?:auto)?(?:function|class|method|attribute|property|module|exception|data|decorator|decoratormethod|classmethod|staticmethod|type)::[ \t]+([^\s(]+)/gm;
const API_ROLE =
  /:(?:py:|js:|c:|cpp:)?(?:func|class|meth|attr|exc|data|obj|mod|const|type):`(?:[^`<]*<([^`>]+)>|([^`]+))`/g;

/** Columns a title takes, as docutils counts them: wide East Asian characters 2, combining marks 0. */
function columnWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    if (/\p{M}/u.test(char)) continue;
    const code = char.codePointAt(0)!;
    const wide =
      (code >= 0x1100 && code <= 0x115f) ||
      (code >= 0x2e80 && code <= 0xa4cf) ||
      (code >= 0xac00 && code <= 0xd7a3) ||
      (code >= 0xf900 && code <= 0xfaff) ||
      (code >= 0xfe30 && code <= 0xfe4f) ||
      (code >= 0xff00 && code <= 0xff60) ||
      (code >= 0xffe0 && code <= 0xffe6) ||
      code >= 0x20000;
    width += wide ? 2 : 1;
  }
  return width;
}

/**
 * Reads a reStructuredText document as docutils does, for its sections: a title is one
 * unindented text line under an adornment (a line of one punctuation character at least as
 * long as the title, or any when it is 4 or longer), optionally with the same line over it;
 * levels follow the order in which the styles first appear (overline + underline is a style
 * of its own), and a title that skips a level is no section. Indented lines (literal
 * blocks, directive bodies, comments, list item bodies, block quotes) never hold a title.
 * Checked against docutils in the format tests.
 */
function scanRst(content: string): LineScan {
  const index = new LineIndex(content);
  const count = index.lineCount;
  // docutils expands tabs and strips trailing whitespace before it reads a line.
  const lines: string[] = new Array(count + 2);
  for (let number = 1; number <= count; number++) {
    const text = index.readText(number);
    lines[number] = (text.includes("\t") ? expandTabs(text) : text).trimEnd();
  }
  lines[count + 1] = "";
  const blank = (number: number) => number > count || lines[number]!.length === 0;
  const indented = (number: number) =>
    number <= count && (lines[number]![0] === " " || lines[number]![0] === "\t");
  const adornment = (number: number) => number <= count && ADORNMENT.test(lines[number]!);

  const scan: LineScan = { lineCount: count, headings: [], opaque: [] };
  const styles: string[] = [];
  let level = 0;
  const section = (style: string, title: string, line: number, bodyStartLine: number) => {
    const known = styles.indexOf(style);
    let mine: number;
    if (known === -1) {
      // A new style is only a level below the deepest one reached; elsewhere it is inconsistent.
      if (styles.length !== level) return;
      styles.push(style);
      mine = styles.length;
    } else {
      mine = known + 1;
      if (mine > level + 1) return;
    }
    level = mine;
    scan.headings.push({ title, level: mine, line, bodyStartLine });
  };

  /** The line after the indented (and blank) lines that follow `from`, which belong to its construct. */
  const skipIndented = (from: number): number => {
    let number = from;
    for (;;) {
      if (indented(number)) number++;
      else if (blank(number) && number <= count) {
        let next = number;
        while (next <= count && blank(next)) next++;
        if (!indented(next)) return number;
        number = next;
      } else return number;
    }
  };
  const lastNonBlank = (from: number, to: number) => {
    let last = to;
    while (last > from && blank(last)) last--;
    return last;
  };

  let number = 1;
  while (number <= count && blank(number)) number++;
  if (number <= count && FIELD.test(lines[number]!)) {
    let end = number;
    while (end + 1 <= count && (FIELD.test(lines[end + 1]!) || indented(end + 1))) end++;
    scan.metadata = { startLine: number, endLine: end };
    number = end + 1;
  }
  /** Whether an indented block after `number - 1` is a literal block (the paragraph ended with `::`). */
  let literalNext = false;
  while (number <= count) {
    const line = lines[number]!;
    if (line.length === 0) {
      number++;
      continue;
    }
    if (indented(number)) {
      const end = skipIndented(number);
      if (literalNext) scan.opaque.push([number, lastNonBlank(number, end - 1)]);
      literalNext = false;
      number = end;
      continue;
    }
    literalNext = false;
    if (ADORNMENT.test(line)) {
      number = overlined(number);
      continue;
    }
    if (EXPLICIT.test(line)) {
      const end = skipIndented(number + 1);
      if (LITERAL_DIRECTIVE.test(line) || COMMENT.test(line))
        scan.opaque.push([number, lastNonBlank(number, end - 1)]);
      number = end;
      continue;
    }
    if (BULLET.test(line) || FIELD.test(line) || OPTION.test(line)) {
      number = skipIndented(number + 1);
      continue;
    }
    if (SIMPLE_TABLE_TOP.test(line)) {
      number = simpleTableEnd(number) + 1;
      continue;
    }
    if (TEXT_BLOCK.test(line)) {
      while (number <= count && !blank(number)) number++;
      continue;
    }
    // A text line: a title when an unindented adornment follows, else a paragraph.
    const under = lines[number + 1] ?? "";
    if (
      number + 1 <= count &&
      ADORNMENT.test(under) &&
      (columnWidth(line) <= under.length || under.length >= 4)
    ) {
      section(`u${under[0]}`, line.trim(), number, number + 2);
      number += 2;
      continue;
    }
    let end = number;
    while (end + 1 <= count && !blank(end + 1) && !indented(end + 1)) end++;
    literalNext = lines[end]!.endsWith("::");
    number = end + 1;
  }
  return scan;

  /** An adornment line at the start of a block: a transition, or an overline over a title. */
  function overlined(at: number): number {
    const over = lines[at]!;
    const short = over.length < 4;
    const paragraph = () => {
      let end = at;
      while (end + 1 <= count && !blank(end + 1) && !indented(end + 1)) end++;
      return end + 1;
    };
    if (blank(at + 1)) return at + 1;
    if (adornment(at + 1)) return short ? paragraph() : at + 2;
    if (at + 2 > count) return short ? paragraph() : at + 2;
    const title = lines[at + 1]!;
    const under = lines[at + 2]!;
    if (!ADORNMENT.test(under) || under !== over) return short ? paragraph() : at + 3;
    if (columnWidth(title.trim()) > over.length && short) return paragraph();
    section(`o${over[0]}${under[0]}`, title.trim(), at, at + 3);
    return at + 3;
  }

  /** The last line of a simple table that starts at `top` (docutils' isolate_simple_table). */
  function simpleTableEnd(top: number): number {
    let found = 0;
    for (let line = top + 1; line <= count; line++) {
      if (!SIMPLE_TABLE_BORDER.test(lines[line]!)) continue;
      found++;
      if (found === 2 || line === count || blank(line + 1)) return line;
    }
    return top;
  }
}

function expandTabs(text: string): string {
  let result = "";
  for (const char of text) {
    if (char === "\t") result += " ".repeat(8 - (result.length % 8));
    else result += char;
  }
  return result;
}

const { outline: outlineRst, opaque: opaqueRanges, readable } = lineScanReaders(scanRst, "field list");

/** docutils' reference name normalisation: case and runs of whitespace do not count. */
function normalizeLabel(label: string): string {
  return label.replace(/^`|`$/g, "").replace(/\s+/g, " ").trim().toLowerCase();
}

/**
 * `:ref:` roles as `#label` links, and `:doc:` roles as links to the `.rst` page they name
 * (relative to the article; Sphinx's `/from-the-source-root` form is left out, the source
 * root being the site's, not the repository's).
 */
function rstLinks(content: string): ArticleLink[] {
  if (!content.includes(":ref:") && !content.includes(":doc:")) return [];
  const text = readable(content);
  const lines = new LineIndex(content);
  const found: ArticleLink[] = [...text.matchAll(REF_ROLE)].map((match) => ({
    target: `#${normalizeLabel(match[1] ?? match[2]!)}`,
    line: lines.lineAt(match.index),
    image: false,
  }));
  for (const match of text.matchAll(DOC_ROLE)) {
    const target = (match[1] ?? match[2]!).trim();
    if (target.startsWith("/") || target.includes("://")) continue;
    found.push({ target: `${target}.rst`, line: lines.lineAt(match.index), image: false });
  }
  return found;
}

function rstAnchors(content: string): Set<string> {
  if (!content.includes(".. _")) return new Set();
  return new Set([...content.matchAll(TARGET)].map((match) => normalizeLabel(match[1]!)));
}

/** The name an API role or directive documents: `~flask.Flask.run()` → `flask.Flask.run`. */
function apiName(raw: string): string {
  return raw
    .trim()
    .replace(/^[~.!]+/, "")
    .replace(/\(\)$/, "");
}

function rstReferences(content: string): string[] {
  const text = readable(content);
  const names: string[] = [];
  for (const match of text.matchAll(API_DIRECTIVE)) names.push(apiName(match[1]!));
  if (text.includes("`"))
    for (const match of text.matchAll(API_ROLE)) names.push(apiName(match[1] ?? match[2]!));
  return [...new Set(names)].filter((name) => name.length > 0);
}

function unclosedNothing() {
  return null;
}

/** reStructuredText (Sphinx, docutils). */
export const rstFormat: ArticleFormat = {
  name: "reStructuredText",
  extensions: [".rst", ".rest"],
  outline: outlineRst,
  opaque: opaqueRanges,
  metadata: { kind: "read-only", label: "field list" },
  checklists: false,
  unclosedBlock: unclosedNothing,
  links: rstLinks,
  anchors: rstAnchors,
  references: rstReferences,
  referenceMarkers: [":: ", ":`"],
};
