import type { ChangedFile } from "../../../shared/changeset.js";
import { articleFormat, extensionOf, isDocumentationExtension } from "../../../shared/formats/index.js";
import { includesText, textOf } from "./article-text.js";
import { perFile } from "./per-file.js";
import type { ArticleSignalInput } from "./signal.js";
import { writes } from "./stale.js";
import { REASON_SCORES } from "./weights.js";

/**
 * reference, relevance only (never stale): an article about a changed file that names
 * nothing the change touched, for the model to read with `--include related`.
 * - namesake: the article is named after the file (`src/click/testing.py` →
 *   `docs/testing.md`, `schema.json` → `reference/schema.md`, `errors.ts` → `8-errors.md`:
 *   numeric prefixes, `-`/`_` and a plural `s` aside); a document outside the docs
 *   (`CONTRIBUTING.md`) → the article of its name. Structural names (`index`, `mod`,
 *   `__init__`, `README`) stand for their folder.
 * - raised: a heading or API entry (`.. autoexception::`, `:::`) of the article names an
 *   error or class an added code line raises or constructs (`throw new ReadError(`): the
 *   page describing when it is raised may be incomplete.
 * Added past the stale marks, to articles without one: no stale article's score moves, so
 * the bar and every flag stay as they were. An article a mapping or `attention` entry ties to
 * the file already gets no namesake: it would say the same twice.
 */

/** Stems that say what a file does in its folder, not what it is about. */
const STRUCTURAL = new Set([
  "index",
  "main",
  "mod",
  "lib",
  "init",
  "__init__",
  "__main__",
  "setup",
  "readme",
  "docs",
  "doc",
  "documentation",
]);
/** A file name names the article only when at most this many articles share it. */
const MAX_NAMESAKES = 3;

/** The comparable stem of a file name: lower case, no extension, numeric prefix, `_`/`-` or plural `s`. */
export function stemOf(path: string, min = 4): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.indexOf(".", 1);
  let stem = (dot < 0 ? name : name.slice(0, dot)).toLowerCase();
  if (STRUCTURAL.has(stem)) {
    // `errors/index.md` is named by its folder.
    const folder = path.slice(0, path.lastIndexOf("/"));
    return folder === "" ? "" : stemOf(folder, min);
  }
  stem = stem.replace(/^\d+[-_. ]*/, "").replace(/[-_]/g, "");
  if (stem.length > 4 && stem.endsWith("s")) stem = stem.slice(0, -1);
  return stem.length >= min ? stem : "";
}

/** A changed file that can name an article: not binary, no tooling under a dot folder (`.vitepress/config.ts`) unless documentation. */
function canName(file: ChangedFile): boolean {
  if (file.binary) return false;
  return isDocumentationExtension(extensionOf(file.path)) || !/(?:^|\/)\./.test(file.path);
}

/** The words the rule looks for in article text (the plan reads only articles holding one). */
export function namesakeLookups(evidence: readonly ChangedFile[]): string[] {
  return [...raisedNames(evidence.filter(canName)).keys()];
}

/** An error or class an added code line raises or constructs: `raise X`, `throw new X`, `new XError(`. */
const RAISES = /\b(?:raise|throw)\s+(?:new\s+)?([A-Z]\w{3,})|\bnew\s+([A-Z]\w*(?:Error|Exception))\(/g;

/** What one file's added code lines raise or construct (RAISES), each name once. */
function fileRaised(file: ChangedFile): { name: string; file: string }[] {
  if (isDocumentationExtension(extensionOf(file.path))) return [];
  const names = new Set<string>();
  for (const hunk of file.hunks)
    for (const line of hunk.lines) {
      if (line[0] !== "+") continue;
      for (const match of line.matchAll(RAISES)) names.add(match[1] ?? match[2]!);
    }
  return [...names].map((name) => ({ name, file: file.path }));
}

/** Read once per changed file (for the lookups, then for the signals). */
const raisedIn = perFile(fileRaised);

/** The names the change's added code lines raise, each with the first file raising it. */
function raisedNames(files: readonly ChangedFile[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const { name, file } of raisedIn(files)) if (!names.has(name)) names.set(name, file);
  return names;
}

/** API documentation entries: Sphinx's autodoc and domain directives, mkdocstrings' `:::`. */
const API_ENTRY = /^\s*(?:\.\. (?:auto)?(?:class|function|method|exception)::|:::)\s*(\S+)/;

/** Heading titles and API entries of the article (what it documents, as against what it mentions). */
function documentedLines(path: string, text: string): string[] {
  const lines: string[] = [];
  const outline = articleFormat(path).outline?.(text);
  for (const section of outline?.sections ?? []) lines.push(section.title);
  for (const line of text.split(/\r?\n/)) {
    const entry = API_ENTRY.exec(line);
    if (entry) lines.push(entry[1]!);
  }
  return lines;
}

export function namesakeSignals(
  input: ArticleSignalInput & {
    /** Articles with stale-statement evidence: relevance is not added to them. */
    isStale: (path: string) => boolean;
    /** Whether a mapping or `attention` entry ties the article to the file already (a namesake would say it twice). */
    tied?: (article: string, file: string) => boolean;
    /** The package's own names: a file named after the package (`src/mdbook.rs`) names every page. */
    packageNames?: readonly string[];
  },
): void {
  const { evidence, articles, sink } = input;
  const add = (article: string, source: string, detail: string) => {
    if (input.isStale(article) || input.tied?.(article, source)) return;
    sink.add({ article, kind: "reference", source, detail, score: REASON_SCORES.namesake });
  };
  // namesake: by paths alone.
  const byStem = new Map<string, string[]>();
  for (const article of articles) {
    const stem = stemOf(article.path);
    if (stem === "") continue;
    const list = byStem.get(stem);
    if (list) list.push(article.path);
    else byStem.set(stem, [article.path]);
  }
  const files = evidence.filter(canName);
  const own = new Set((input.packageNames ?? []).map((name) => stemOf(name)));
  for (const file of files) {
    const stem = stemOf(file.path);
    const named = stem === "" || own.has(stem) ? undefined : byStem.get(stem);
    if (named && named.length <= MAX_NAMESAKES)
      for (const article of named) add(article, file.path, `named after the changed file ${file.path}`);
  }
  const raised = raisedNames(files);
  if (raised.size === 0) return;
  for (const article of articles) {
    if (
      input.isStale(article.path) ||
      ![...raised.keys()].some((name) => includesText(article.content, name))
    )
      continue;
    const documented = documentedLines(article.path, textOf(article.content));
    for (const [name, file] of raised)
      if (documented.some((line) => writes(line, name))) {
        add(article.path, file, `documents ${name}, which a changed line of ${file} now raises`);
        break;
      }
  }
}
