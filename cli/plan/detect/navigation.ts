import type { ChangedFile } from "../../../shared/changeset.js";
import type { SignalSink } from "./signal.js";
import { REASON_SCORES } from "./weights.js";

/** A single file name (`flags.md`) names the article only when at most this many articles have it. */
const MAX_NAMESAKES = 2;
/** Article extensions a link may drop (`/docs/reference/cli`) or swap for the built page's (`cli.html`). */
const ARTICLE_EXTENSION = /\.(?:md|mdx|markdown|rst|txt|adoc)$/i;
/** Path-like runs of a line: what a navigation entry, a link or a toctree line names an article by. */
const PATH_RUN = /[A-Za-z0-9_.~\-/]+/g;

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
  const bySuffix = suffixIndex(input.articlePaths);
  for (const file of files) {
    if (file.binary) continue;
    const named = new Set<string>();
    for (const hunk of file.hunks) {
      for (const line of hunk.lines) {
        if (line[0] !== "+" && line[0] !== "-") continue;
        for (const match of line.slice(1).matchAll(PATH_RUN)) {
          for (const article of articlesNamed(match[0], bySuffix)) named.add(article);
        }
      }
    }
    for (const article of named) {
      if (article === file.path || article === file.oldPath) continue;
      sink.add({
        article,
        kind: "reference",
        source: file.path,
        detail: `a changed line of ${file.path} names the article's path`,
        score: REASON_SCORES.navigation,
      });
    }
  }
}

/** Every trailing run of path segments of every article, with and without its extension. */
function suffixIndex(articlePaths: ReadonlySet<string>): Map<string, string[]> {
  const index = new Map<string, string[]>();
  const add = (key: string, path: string) => {
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

/** The articles one path-like run names: none, or the one(s) its trailing segments point at. */
function articlesNamed(run: string, bySuffix: ReadonlyMap<string, string[]>): string[] {
  let path = run
    .replace(/^(?:\.{1,2}\/)+/, "")
    .replace(/^[/~]+/, "")
    .replace(/[./-]+$/, "");
  if (path === "") return [];
  // A built page (`guide/install.html`) names its source.
  if (/\.html?$/i.test(path)) path = path.replace(/\.html?$/i, "");
  const found = bySuffix.get(path);
  if (!found) return [];
  if (!path.includes("/") && (!ARTICLE_EXTENSION.test(path) || found.length > MAX_NAMESAKES)) return [];
  return found;
}
