import { closeSync, constants, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import picomatch from "picomatch";
import { DEFAULT_IGNORE_GLOBS, type ImpactConfig } from "../../shared/config.js";
import { pathInDocsRepository } from "../../shared/docs-repository.js";
import { extensionOf, isDocumentationExtension } from "../../shared/formats/index.js";
import { gitAt, type ListedFile, listRepositoryEntries, readBlobs, treeBlobShas } from "../git/repository.js";

/** Whether a repository-relative path is an article (docs globs minus ignore globs). */
export type ArticleSelector = (path: string) => boolean;

/**
 * docs globs minus ignore globs, as one predicate: the only definition of "is this an
 * article?", used by the plan, the tool host (create_article) and `impact apply` alike.
 * `dot: false`: a wildcard does not enter hidden files or folders (`docs/.vitepress/`,
 * `.github/`), which hold tooling, not articles; a glob that names the dot itself
 * (`docs/.guides/**`) still matches.
 */
export function articleSelector(config: Pick<ImpactConfig, "docs" | "ignore">): ArticleSelector {
  const isDoc = picomatch(config.docs, { dot: false });
  // `CHANGELOG.md`, `Changelog.md`, `changelog.md`: ignores are about names, whatever their case.
  const isIgnored =
    config.ignore.length > 0 ? picomatch(config.ignore, { dot: true, nocase: true }) : () => false;
  return (path) => isDoc(path) && !isIgnored(path);
}

/**
 * Why a path is not an article, in words for `impact plan --explain`: no docs glob matches
 * it, an ignore glob does (by default, records of the past), or git ignores it.
 */
export function whyNotArticle(config: Pick<ImpactConfig, "docs" | "ignore">, path: string): string {
  if (!picomatch(config.docs, { dot: false })(path))
    return `no docs glob matches it (docs: ${config.docs.join(", ")}); add one to docs in impact.config.json to make it an article`;
  const glob = config.ignore.find((pattern) => picomatch(pattern, { dot: true, nocase: true })(path));
  if (glob !== undefined)
    return DEFAULT_IGNORE_GLOBS.includes(glob)
      ? `it matches the default ignore glob "${glob}": records of the past (changelogs, release notes, history files, changesets, migration guides) are not fixed forward; set ignore in impact.config.json to list it`
      : `it matches the ignore glob "${glob}" of the config`;
  return "git ignores it (.gitignore), or it is not in the revision the plan reads";
}

/**
 * `isArticle` for a run whose articles are in a separate docs repository named `name`: only
 * its `name:PATH` paths can be articles, judged by PATH. Without a name, `isArticle` itself.
 */
export function docsRepositoryArticles(
  isArticle: ArticleSelector,
  name: string | undefined,
): ArticleSelector {
  if (name === undefined) return isArticle;
  return (path) => {
    const inside = pathInDocsRepository(name, path);
    return inside !== undefined && isArticle(inside);
  };
}

/**
 * The articles of the working tree: tracked and untracked files that match the docs globs,
 * minus the ignore globs and git-ignored files. With `revision`, the articles of that
 * commit instead (what `--head REV` and the backtest read). Sorted, repository-relative.
 */
export async function listArticles(
  repoRoot: string,
  config: ImpactConfig,
  options: { revision?: string | undefined; unmatchedDocsGlobs?: string[] | undefined } = {},
): Promise<string[]> {
  return (await listArticleEntries(repoRoot, config, options)).map((entry) => entry.path);
}

/** listArticles, each article with the sha of its blob when git knows it (see listRepositoryEntries). */
export async function listArticleEntries(
  repoRoot: string,
  config: ImpactConfig,
  options: {
    revision?: string | undefined;
    unmatchedDocsGlobs?: string[] | undefined;
    warnings?: string[];
    /** A listWorktree listing of `repoRoot` already started (without `revision`). */
    worktree?: Promise<string> | undefined;
  } = {},
): Promise<ListedFile[]> {
  const select = articleSelector(config);
  const files = await listRepositoryEntries(repoRoot, options);
  const unread =
    options.warnings &&
    unreadDocumentation(
      config.docs,
      files.map((file) => file.path),
    );
  if (unread) options.warnings!.push(unread);
  if (options.unmatchedDocsGlobs)
    options.unmatchedDocsGlobs.push(
      ...unmatchedGlobs(
        config.docs,
        files.map((file) => file.path),
      ),
    );
  return files.filter((file) => select(file.path));
}

/** Folders that hold documentation even before a glob says so. */
const DOCS_FOLDERS = new Set(["docs", "doc", "documentation"]);
/** Folders named in the warning, at most. */
const MAX_WARNED_FOLDERS = 3;

/**
 * One warning when a docs folder (the top folder of an article, or `docs/`, `doc/`,
 * `documentation/`) holds files of a documentation format Impact reads (.rst, .adoc, …)
 * that no `docs` glob matches, such as a Sphinx project's .rst pages under globs for
 * Markdown. Null when there are none.
 */
function unreadDocumentation(globs: readonly string[], files: readonly string[]): string | null {
  const isDoc = picomatch([...globs], { dot: false });
  const folders = new Set(DOCS_FOLDERS);
  for (const file of files) {
    const slash = file.indexOf("/");
    if (slash > 0 && isDoc(file)) folders.add(file.slice(0, slash));
  }
  const counts = new Map<string, number>();
  for (const file of files) {
    const slash = file.indexOf("/");
    if (slash <= 0 || !folders.has(file.slice(0, slash)) || file.includes("/.")) continue;
    const extension = extensionOf(file);
    if (!isDocumentationExtension(extension) || isDoc(file)) continue;
    const key = `${file.slice(0, slash)}/\0${extension}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (counts.size === 0) return null;
  const found = [...counts].sort((a, b) => b[1] - a[1]);
  const listed = found
    .slice(0, MAX_WARNED_FOLDERS)
    .map(([key, count]) => {
      const [folder, extension] = key.split("\0");
      return `${folder} holds ${count} ${extension} ${count === 1 ? "file" : "files"}`;
    })
    .join(", ");
  const [folder, extension] = found[0]![0].split("\0");
  return `${listed} that no docs glob matches, so they are not read as articles; add a glob such as "${folder}**/*${extension}" to docs in impact.config.json`;
}

/** The globs that match none of `files` (a typo such as `doc/**` where the folder is `docs/`). */
function unmatchedGlobs(globs: readonly string[], files: readonly string[]): string[] {
  return globs.filter((glob) => {
    const isMatch = picomatch(glob, { dot: false });
    return !files.some((file) => isMatch(file));
  });
}

/**
 * Reads articles: from the working tree (as bytes), or from a revision's blobs (as text). Paths that no longer
 * exist (deleted in the working tree but still in the index) are left out. `listed`: the
 * revision's listing the caller holds already (listArticleEntries), whose blob shas are read
 * instead of listing its tree again.
 */
export async function readArticles(
  repoRoot: string,
  paths: string[],
  options: { revision?: string | undefined; listed?: readonly ListedFile[] } = {},
): Promise<{ path: string; content: string | Uint8Array }[]> {
  const { revision } = options;
  if (revision !== undefined) {
    const shas = options.listed
      ? new Map(options.listed.flatMap((entry) => (entry.sha === undefined ? [] : [[entry.path, entry.sha]])))
      : await treeBlobShas(gitAt(repoRoot), revision);
    const blobs = await readBlobs(
      repoRoot,
      paths.flatMap((path) => shas.get(path) ?? []),
    );
    return paths.flatMap((path) => {
      const sha = shas.get(path);
      const content = sha === undefined ? undefined : blobs.get(sha);
      return content === undefined ? [] : [{ path, content }];
    });
  }
  // Synchronous reads: for thousands of small files one system call each beats a round
  // trip through the thread pool per step (open, stat, read, close).
  // Bytes, not text: the matcher scans UTF-8 as it is, which saves decoding 80 MB of docs.
  const articles: { path: string; content: Uint8Array }[] = [];
  const arena = { buffer: Buffer.allocUnsafe(ARENA_BYTES), used: 0 };
  for (const [index, path] of paths.entries()) {
    // Sync reads hold the event loop; let git's replies in now and then, so the change set
    // is worked out while the articles are read rather than after.
    if (index % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve));
    try {
      // O_NOFOLLOW: a symlinked "article" may point outside the repository; it is skipped.
      const fd = openSync(join(repoRoot, path), constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        articles.push({ path, content: readInto(arena, fd) });
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "EISDIR" && code !== "ENOTDIR" && code !== "ELOOP") throw error;
    }
  }
  return articles;
}

const ARENA_BYTES = 8 * 1024 * 1024;
/** Files read between two turns of the event loop (a few ms of reading). */
const YIELD_EVERY = 100;

/**
 * Reads a file into a shared arena and returns a view of it: no stat and no allocation per
 * file, which is most of the cost of reading 20,000 small articles. Files too large for the
 * room left in the arena start a new one; files larger than an arena get their own buffer.
 */
function readInto(arena: { buffer: Buffer; used: number }, fd: number): Uint8Array {
  const room = arena.buffer.length - arena.used;
  // One read: a regular file reads short only at its end, so a short read is the whole file.
  const filled = readSync(fd, arena.buffer, arena.used, room, null);
  if (filled < room) {
    const view = arena.buffer.subarray(arena.used, arena.used + filled);
    arena.used += filled;
    return view;
  }
  // The file did not fit: read it whole on its own if it is big, else retry in a fresh arena.
  const rest = readFileSync(fd);
  const whole = Buffer.concat([arena.buffer.subarray(arena.used, arena.used + filled), rest]);
  if (whole.length >= ARENA_BYTES / 4) return whole;
  arena.buffer = Buffer.allocUnsafe(ARENA_BYTES);
  arena.used = 0;
  whole.copy(arena.buffer);
  arena.used = whole.length;
  return arena.buffer.subarray(0, whole.length);
}
