import type { ChangedFile, ChangedSymbol, ChangeSet } from "../../../shared/changeset.js";
import { isWordChar } from "../symbols/declarations.js";
import { languageOf } from "../symbols/languages/index.js";
import { inlineEnumeration } from "./inline-lists.js";

/**
 * What makes a signal stale-statement evidence: the names the article writes that the change
 * made false (an old name, value, flag, message), and the hunk that made them false. With
 * `list`, the names are the siblings of an added member, and the evidence holds only where at
 * least that many of them sit on the lines of a list (a table row, a bullet, a heading, a
 * reST option or field) or enumerated in one sentence (`--pcre2` or `--auto-hybrid-regex`): a
 * complete list the change made incomplete.
 */
export interface StaleMark {
  terms: readonly string[];
  hunk?: string | undefined;
  list?: number | undefined;
  /**
   * With `list`: the names must be what their list lines list (a heading's or definition
   * term's name, a table row's first cell, a bullet's lead), not words of an entry's text.
   */
  entries?: boolean | undefined;
  /** The article line it contradicts, once located (locateStale). */
  line?: number | undefined;
}

/** A file of an examples folder (`examples/typed-derive.rs`, `example/basic/main.go`). */
const EXAMPLE_PATH = /(?:^|\/)examples?\//;

/** Changes that alter what callers and readers see: the surface the docs describe. */
const SURFACE_CHANGES = new Set<ChangedSymbol["change"]>(["added", "removed", "renamed", "signature"]);

/**
 * The public surface a changed file's change altered: its non-private symbols added,
 * removed, renamed or with a new signature (a message's wording is not surface). A file
 * added, deleted or renamed alters it whole, and so does any change to a file whose
 * declarations are not read, for an attention tie. Undefined when the change is internal (a refactor, a bug fix,
 * a body or a doc comment).
 */
export function surfaceChange(
  file: ChangedFile,
  symbols: readonly ChangedSymbol[],
  /** An explicit tie (attention): a file whose declarations are not read counts as changed surface. */
  unreadIsSurface = false,
): { terms: string[]; hunk?: string | undefined } | undefined {
  // An example program is read whole by its page (its code, its output, its help text): what
  // it declares is its surface, private or not, doc comments included.
  const example = EXAMPLE_PATH.test(file.path);
  const changed = symbols.filter(
    (symbol) =>
      symbol.file === file.path &&
      (example || !symbol.private) &&
      symbol.kind !== "message" &&
      (SURFACE_CHANGES.has(symbol.change) || (example && symbol.change === "doc")),
  );
  if (changed.length === 0) {
    // A file whose declarations Impact cannot read (a config, a template, a data file): its
    // surface is unknown, so the author's explicit tie to it (attention) holds.
    if (unreadIsSurface && languageOf(file.path) === undefined && !file.binary)
      return { terms: [], ...hunkField(file, undefined) };
    if (file.status === "added" || file.status === "deleted" || file.status === "renamed")
      return { terms: [], ...hunkField(file, undefined) };
    return undefined;
  }
  // The names an article could still write: the old ones of what was removed or renamed, the others as they are.
  const terms = [
    ...new Set(
      changed.filter((symbol) => symbol.change !== "added").map((symbol) => symbol.oldName ?? symbol.name),
    ),
  ];
  return { terms, ...hunkField(file, changed[0]!.line) };
}

/** The hunk of `file` around `line` (the new side, else the old side), else its first, as `path @@ … @@`. */
export function hunkAt(file: ChangedFile, line: number | undefined): string | undefined {
  const hunk =
    (line === undefined
      ? undefined
      : (file.hunks.find(
          (each) => line >= each.newStart && line < each.newStart + Math.max(1, each.newLines),
        ) ??
        file.hunks.find(
          (each) => line >= each.oldStart && line < each.oldStart + Math.max(1, each.oldLines),
        ))) ?? file.hunks[0];
  return hunk ? `${file.path} ${hunk.header}` : undefined;
}

function hunkField(file: ChangedFile, line: number | undefined): { hunk?: string | undefined } {
  return { hunk: hunkAt(file, line) };
}

/** The changed files by path (old paths too), to find a symbol's hunk. */
export function filesByPath(changeSet: Pick<ChangeSet, "files">): Map<string, ChangedFile> {
  const map = new Map<string, ChangedFile>();
  for (const file of changeSet.files) {
    map.set(file.path, file);
    if (file.oldPath) map.set(file.oldPath, file);
  }
  return map;
}

/** A line that is an entry of a list: a bullet or number, a table row, a heading, a reST option, field or directive. */
const LIST_LINE = /^\s*(?:[-*+]\s|\d+[.)]\s|\||#{1,6}\s|\.\. [\w:-]+::|:[\w ]+:|[-=`]{3,}\s*$)/;

/**
 * Where a stale mark holds in an article: the 1-based line of the first name it writes (for
 * a list mark, the first list line writing a sibling), or `false` when a list mark's names
 * are not on enough list lines (the article mentions the siblings in passing).
 */
export function locateStale(lines: readonly string[], mark: StaleMark): number | false | undefined {
  if (mark.terms.length === 0) return mark.list === undefined ? undefined : false;
  if (mark.list !== undefined) {
    const { first, count } = listed(lines, mark.terms, mark.entries);
    if (count >= mark.list) return first;
    // Entries are what lists list: keys a sentence names are ones it is about, not all there are.
    if (mark.entries) return false;
    // A sentence enumerating them (`--pcre2` or `--auto-hybrid-regex`) is a list too.
    return inlineEnumeration(lines, mark.terms, mark.list) ?? false;
  }
  for (const [index, line] of lines.entries())
    if (mark.terms.some((term) => writes(line, term))) return index + 1;
  return undefined;
}

/**
 * A list mark whose names stand on this many of the article's list lines or more is a
 * reference of the parent's members (a heading or row per option), not a passing mention.
 */
export const LONG_LIST = 5;

/** How many of `terms` the article writes on its list lines, and the 1-based line of the first. */
export function listed(
  lines: readonly string[],
  terms: readonly string[],
  /** Count a term only as what its line lists (entryOf), not as a word of the entry's text. */
  entries = false,
): { first?: number; count: number } {
  let first: number | undefined;
  const onList = new Set<string>();
  lines.forEach((line, index) => {
    if (!isListLine(lines, index)) return;
    for (const term of terms) {
      if (!onList.has(term) && writes(entries ? entryOf(line) : line, term)) {
        onList.add(term);
        first ??= index + 1;
      }
    }
  });
  return first === undefined ? { count: onList.size } : { first, count: onList.size };
}

/** Whether line `index` is an entry of a list (LIST_LINE) or a definition term. */
export function isListLine(lines: readonly string[], index: number): boolean {
  return LIST_LINE.test(lines[index]!) || isDefinitionTerm(lines, index);
}

/** A line followed by an indented one (a reST or Markdown definition term, a `.. option::` body). */
function isDefinitionTerm(lines: readonly string[], index: number): boolean {
  const line = lines[index]!;
  const next = lines[index + 1];
  return line.trim() !== "" && !/^\s/.test(line) && next !== undefined && /^\s+\S/.test(next);
}

/**
 * What a list line lists, as against what its entry says: a heading's text, a table row's
 * first cell, a bullet's lead (its first code or bold span, else its text up to a colon),
 * a definition term or reST directive whole.
 */
function entryOf(line: string): string {
  const heading = /^\s*#{1,6}\s+(.*)$/.exec(line);
  if (heading) return heading[1]!;
  const row = /^\s*\|([^|]*)/.exec(line);
  if (row) return row[1]!;
  const bullet = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
  if (!bullet) return line;
  const text = bullet[1]!;
  const span = /^(?:`[^`]*`|\*\*[^*]*\*\*|__[^_]*__)/.exec(text);
  if (span) return span[0];
  const colon = text.indexOf(":");
  return colon < 0 ? text : text.slice(0, colon);
}

/** Whether `line` writes `term` as a whole name. */
export function writes(line: string, term: string): boolean {
  for (let at = line.indexOf(term); at >= 0; at = line.indexOf(term, at + 1)) {
    // A version is written after a `v` too (`tool-v0.3.2`).
    const before = isWordChar(line.charCodeAt(at - 1)) && !(line[at - 1] === "v" && /^\d/.test(term));
    if (!before && !isWordChar(line.charCodeAt(at + term.length))) return true;
  }
  return false;
}
