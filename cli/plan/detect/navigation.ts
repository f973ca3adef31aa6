import type { ChangedFile } from "../../../shared/changeset.js";
import type { SignalSink } from "./signal.js";
import { hunkAt } from "./stale.js";
import { REASON_SCORES } from "./weights.js";

/** A single file name (`flags.md`) names the article only when at most this many articles have it. */
const MAX_NAMESAKES = 2;
/** Article extensions a link may drop (`/docs/reference/cli`) or swap for the built page's (`cli.html`). */
const ARTICLE_EXTENSION = /\.(?:md|mdx|markdown|rst|txt|adoc)$/i;
/** Path-like runs of a line: what a navigation entry, a link or a toctree line names an article by. */
const PATH_RUN = /[A-Za-z0-9_.~\-/]+/g;
/** A document losing this many lines or more for a pointer of at most MAX_POINTER_LINES moved its content. */
const MIN_EMPTIED_LINES = 5;
const MAX_POINTER_LINES = 2;

/**
 * reference (navigation): a changed line names an article by its path, as docs navigation
 * does (mkdocs.yml `nav`, SUMMARY.md, a sidebar, a toctree, a link from a script): an entry
 * added, removed or changed there is a page renamed, moved, retitled or dropped, and the
 * page itself usually changes with it. Paths match by their trailing segments
 * (`v3/examples/flags.md` names `docs/v3/examples/flags.md`), with or without the article's
 * extension; a bare file name counts only when at most MAX_NAMESAKES articles have it.
 */
export function navigationSignals(input: {
  /** Changed files whose lines may name articles: evidence and docs files that are not articles. */
  files: readonly ChangedFile[];
  articlePaths: ReadonlySet<string>;
  sink: SignalSink;
}): void {
  const { files, sink } = input;
  // Each file's runs as the keys they look up; the index then holds only those keys, not
  // every suffix of every article (most of the work on a large docs tree).
  const keysOf = files.map((file) => (file.binary ? [] : lookupKeys(file)));
  const pointersOf = files.map((file) => (file.binary ? [] : pointerKeys(file)));
  const bySuffix = suffixIndex(input.articlePaths, new Set(keysOf.flat()));
  files.forEach((file, position) => {
    const named = new Set<string>();
    for (const key of keysOf[position]!)
      for (const article of articlesNamed(key, bySuffix)) named.add(article);
    const pointedAt = new Set<string>();
    for (const key of pointersOf[position]!)
      for (const article of articlesNamed(key, bySuffix)) pointedAt.add(article);
    for (const article of named) {
      if (article === file.path || article === file.oldPath) continue;
      // A document emptied into a pointer at the article ("Please refer to [Shell
      // Completions](shell_completions.md)") moved what it said there: the article must hold it now.
      if (pointedAt.has(article)) {
        sink.add({
          article,
          kind: "reference",
          source: file.path,
          detail: `${file.path} now points here for what it said (emptied into a link to the article)`,
          score: REASON_SCORES.navigation,
          stale: { terms: [], hunk: hunkAt(file, undefined) },
        });
        continue;
      }
      sink.add({
        article,
        kind: "reference",
        source: file.path,
        detail: `a changed line of ${file.path} names the article's path`,
        score: REASON_SCORES.navigation,
      });
    }
  });
}

/** The lookup key (lookupKey) of every path-like run on a changed line of `file`, in order. */
function lookupKeys(file: ChangedFile): string[] {
  const keys: string[] = [];
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line[0] !== "+" && line[0] !== "-") continue;
      for (const match of line.slice(1).matchAll(PATH_RUN)) {
        const key = lookupKey(match[0]);
        if (key !== "") keys.push(key);
      }
    }
  }
  return keys;
}

/**
 * The lookup keys on the added lines of a document the change emptied into a pointer: at
 * least MIN_EMPTIED_LINES lines removed, at most MAX_POINTER_LINES written in their place.
 */
function pointerKeys(file: ChangedFile): string[] {
  if (file.status !== "modified" || !ARTICLE_EXTENSION.test(file.path)) return [];
  const lines = file.hunks.flatMap((hunk) => hunk.lines);
  const removed = lines.filter((line) => line[0] === "-" && line.trim() !== "-").length;
  const added = lines.filter((line) => line[0] === "+" && line.trim() !== "+");
  if (removed < MIN_EMPTIED_LINES || added.length > MAX_POINTER_LINES) return [];
  return added.flatMap((line) => [...line.slice(1).matchAll(PATH_RUN)].map((match) => lookupKey(match[0])));
}

/** Every trailing run of path segments of every article, with and without its extension, that is one of `wanted`. */
function suffixIndex(articlePaths: ReadonlySet<string>, wanted: ReadonlySet<string>): Map<string, string[]> {
  const index = new Map<string, string[]>();
  const add = (key: string, path: string) => {
    if (!wanted.has(key)) return;
    const list = index.get(key);
    if (!list) index.set(key, [path]);
    else if (!list.includes(path)) list.push(path);
  };
  for (const path of articlePaths) {
    const segments = path.split("/");
    for (let start = 0; start < segments.length; start += 1) {
      const suffix = segments.slice(start).join("/");
      add(suffix, path);
      const bare = suffix.replace(ARTICLE_EXTENSION, "");
      // An extensionless single word (`index`, `guide`) is prose, not a path.
      if (bare !== suffix && bare.includes("/")) add(bare, path);
    }
  }
  return index;
}

/** What a path-like run is looked up by: without leading `./`, `/` or `~` and trailing punctuation; a built page (`guide/install.html`) by its source's name. "" for none. */
function lookupKey(run: string): string {
  const path = run
    .replace(/^(?:\.{1,2}\/)+/, "")
    .replace(/^[/~]+/, "")
    .replace(/[./-]+$/, "");
  return /\.html?$/i.test(path) ? path.replace(/\.html?$/i, "") : path;
}

/** The articles one lookup key (lookupKey) names: none, or the one(s) its trailing segments point at. */
function articlesNamed(path: string, bySuffix: ReadonlyMap<string, string[]>): string[] {
  const found = bySuffix.get(path);
  if (!found) return [];
  if (!path.includes("/") && (!ARTICLE_EXTENSION.test(path) || found.length > MAX_NAMESAKES)) return [];
  return found;
}
