import type { ChangedFile } from "../../../shared/changeset.js";
import { includesText } from "./article-text.js";
import { perChangeSet } from "./per-file.js";
import type { ArticleSignalInput } from "./signal.js";
import { isManifest } from "./versions.js";
import { REASON_SCORES } from "./weights.js";

/** A web address as code, templates and configs write it, up to a quote, bracket or space. */
const LINK = /https?:\/\/[^\s"'<>()[\]`{}|\\^]+/g;
/** Removed addresses looked for per change, at most (each is a substring search over the docs). */
const MAX_LINKS = 30;
/** Shorter than this, an address is a bare host (`https://github.com`) that many pages name for other reasons. */
const MIN_LINK_LENGTH = 20;

/**
 * Addresses on the removed lines of changed files that no added line of the change names
 * again: a project moved its site, docs host, chat or funding page, or dropped a link, in a
 * template, a package manifest or a help text. Read once per plan, for the lookups and the
 * signals (an address is removed by one file and may be added back by another).
 */
export const removedLinks = perChangeSet(linksRemoved);

function linksRemoved(files: readonly ChangedFile[]): { link: string; file: string }[] {
  const removed = new Map<string, string>();
  const added = new Set<string>();
  for (const file of files) {
    if (file.binary) continue;
    for (const hunk of file.hunks) {
      for (const line of hunk.lines) {
        if (line[0] !== "-" && line[0] !== "+") continue;
        for (const match of line.slice(1).matchAll(LINK)) {
          const link = match[0].replace(/[.,;:!?*_#/]+$/, "");
          if (line[0] === "+") added.add(link);
          else if (link.length >= MIN_LINK_LENGTH && !removed.has(link)) removed.set(link, file.path);
        }
      }
    }
  }
  return [...removed]
    .filter(([link]) => !added.has(link))
    .slice(0, MAX_LINKS)
    .map(([link, file]) => ({ link, file }));
}

/**
 * reference (link): the article quotes an address that a changed file no longer names
 * (REASON_SCORES.link). Stale when a package manifest dropped it (a moved site or
 * repository); from other files relevance only: on the truth bench's older half such
 * reasons flagged 30 articles on their own, none of them one the maintainers changed.
 */
export function linkSignals(input: ArticleSignalInput): void {
  const links = removedLinks(input.evidence);
  if (links.length === 0) return;
  for (const article of input.articles) {
    for (const { link, file } of links) {
      if (!includesText(article.content, link)) continue;
      input.sink.add({
        article: article.path,
        kind: "reference",
        source: file,
        detail: `quotes ${link}, which ${file} no longer names`,
        score: REASON_SCORES.link,
        // A package's own addresses (its site, its repository) moved: the page quoting the old
        // one is wrong. Elsewhere a file dropping an address says little about it (a template
        // or a contributing guide rewritten, a docstring's example host): relevance only.
        ...(isManifest(file) ? { stale: { terms: [link] } } : {}),
      });
    }
  }
}
