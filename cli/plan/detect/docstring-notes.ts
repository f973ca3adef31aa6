import type { ChangedFile } from "../../../shared/changeset.js";
import { includesText, textOf } from "./article-text.js";
import { perFile } from "./per-file.js";
import type { ArticleSignalInput } from "./signal.js";
import { hunkAt } from "./stale.js";
import { REASON_SCORES, shareFactor } from "./weights.js";

/**
 * reference (docstring note): a Python docstring's note on behaviour (`.. versionchanged::`,
 * `.. deprecated::`, `.. versionadded::`, `.. caution::`, `.. warning::`, `.. note::`) that
 * the change added or removed is the maintainer saying what behaves differently now; the
 * names the note cites as code (``flag_value``, ``default=True``, :meth:`call_on_close`)
 * are what changed. An article that writes one of them as code describes the old behaviour
 * (click's options page on `default=True` with a `flag_value`, advanced.rst on
 * `call_on_close` when `Context.exit` began closing callbacks). Only compound names count
 * (`flag_value`, `default=True`, `UNSET`): a single word (`default`, `callback`) is written
 * by pages about other things.
 */

/** The Sphinx directives whose text says how a documented behaviour changed. */
const NOTE = /^(\s*)\.\. (versionchanged|versionadded|deprecated|caution|warning|note)::(.*)$/;
/** A code span of a note: ``literal`` or :role:`~target`. */
const CODE_SPAN = /``([^`]+)``|:\w+:`~?([^`]+)`/g;
/** Python values cited everywhere, never what a note is about. */
const PLAIN_VALUES = new Set(["True", "False", "None"]);
/** A name that says more than a word: `flag_value`, `default=True`, `Context.exit`, `isBoolFlag`, `UNSET`. */
const COMPOUND = /[_=.]|[a-z][A-Z]|^[A-Z][A-Z0-9_]{2,}$/;
/** Names taken from one note, at most. */
const MAX_NAMES = 8;

export interface DocstringNote {
  file: string;
  directive: string;
  change: "added" | "removed";
  names: string[];
  hunk?: string | undefined;
}

/**
 * The notes the change added to or removed from the docstrings of its Python files, with the
 * names each cites. Each file is read once per plan.
 */
export const docstringNotes = perFile(fileNotes);

function fileNotes(file: ChangedFile): DocstringNote[] {
  if (file.binary || !/\.pyi?$/.test(file.path)) return [];
  const notes: DocstringNote[] = [];
  for (const hunk of file.hunks) {
    const { lines } = hunk;
    for (let index = 0; index < lines.length; index += 1) {
      const sign = lines[index]![0];
      if (sign !== "+" && sign !== "-") continue;
      const note = NOTE.exec(lines[index]!.slice(1));
      if (!note) continue;
      const indent = note[1]!.length;
      // The note's body: the lines after it on the same side, indented deeper (blank ones too).
      let body = note[3]!;
      for (let next = index + 1; next < lines.length && lines[next]![0] === sign; next += 1) {
        const text = lines[next]!.slice(1);
        if (text.trim() !== "" && text.search(/\S/) <= indent) break;
        body += `\n${text}`;
      }
      const names = citedNames(body);
      if (names.length === 0) continue;
      const line = sign === "+" ? hunk.newStart : hunk.oldStart;
      notes.push({
        file: file.path,
        directive: note[2]!,
        change: sign === "+" ? "added" : "removed",
        names,
        hunk: hunkAt(file, line),
      });
    }
  }
  return notes;
}

/** The compound names a note's text cites as code: a role's target by its last part, a literal whole. */
function citedNames(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(CODE_SPAN)) {
    let name = (match[1] ?? match[2]!).trim();
    if (match[2] !== undefined) name = name.replace(/\(\)$/, "").split(".").pop()!;
    name = name.replace(/\(\)$/, "");
    if (name.length < 3 || /\s/.test(name) || PLAIN_VALUES.has(name) || !COMPOUND.test(name)) continue;
    names.add(name);
    if (names.size >= MAX_NAMES) break;
  }
  return [...names];
}

/** What the rule looks for in article text: identifiers as terms, the rest (`default=True`) as substrings. */
export function docstringNoteLookups(evidence: readonly ChangedFile[]): {
  terms: string[];
  substrings: string[];
} {
  const names = [...new Set(docstringNotes(evidence).flatMap((note) => note.names))];
  const isTerm = (name: string) => /^[A-Za-z_][\w.]*$/.test(name);
  return { terms: names.filter(isTerm), substrings: names.filter((name) => !isTerm(name)) };
}

/** What writing `name` as code reads like: opening a code span or a role's target (`name`, ``name``, `~x.name`), `()` allowed. */
function asCode(name: string): RegExp {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`[\`~.]${escaped}(?:\\(\\))?\``);
}

/** The 1-based line of the first line writing one of `patterns`' names as code. */
function lineOf(lines: readonly string[], patterns: readonly RegExp[]): number | undefined {
  const index = lines.findIndex((line) => patterns.some((pattern) => pattern.test(line)));
  return index < 0 ? undefined : index + 1;
}

export function docstringNoteSignals(input: ArticleSignalInput): void {
  const { articles, sink } = input;
  const notes = docstringNotes(input.evidence);
  if (notes.length === 0) return;
  const wanted = [...new Set(notes.flatMap((note) => note.names))];
  // Each cited name's pattern once, not once per article and line.
  const patterns = new Map(wanted.map((name) => [name, asCode(name)]));
  const texts = new Map<string, string>();
  // Bytes are searched as they are: only an article holding a cited name is decoded.
  for (const article of articles)
    if (wanted.some((name) => includesText(article.content, name)))
      texts.set(article.path, textOf(article.content));
  for (const note of notes) {
    const hits: { path: string; names: string[]; line: number | undefined }[] = [];
    for (const [path, text] of texts) {
      const names = note.names.filter((name) => patterns.get(name)!.test(text));
      const written = names.map((name) => patterns.get(name)!);
      if (names.length > 0) hits.push({ path, names, line: lineOf(text.split(/\r?\n/), written) });
    }
    const factor = shareFactor(hits.length);
    for (const { path, names, line } of hits)
      sink.add({
        article: path,
        kind: "reference",
        source: note.file,
        detail: `writes ${names.slice(0, 3).join(", ")}, cited by a \`.. ${note.directive}::\` note the change ${note.change === "added" ? "added to" : "removed from"} a docstring`,
        score: REASON_SCORES.docstringNote * factor,
        stale: { terms: names, hunk: note.hunk, line },
      });
  }
}
