import { basename, extname, posix, relative, sep } from "node:path";
import picomatch from "picomatch";
import { DEFAULT_IGNORE_GLOBS, type Mapping } from "../../shared/config.js";
import { isDocumentationExtension } from "../../shared/formats/index.js";
import { plural } from "../../shared/render/markdown.js";
import { gitAt } from "../git/repository.js";
import { type HistoryCommit, mineHistory } from "./history.js";
import { escapeGlob } from "./mapping.js";
import { versionLayout } from "./versioned-docs.js";

/** One line of `impact init`'s proposal: what goes into the config, and what it rests on. */
interface Proposal {
  key: "docs" | "ignore" | "mappings" | "minScore" | "versions" | "docsRepo";
  value: string | number | Mapping;
  evidence: string;
}

/**
 * The config `impact init` proposes, with the evidence. `ignore` is always the default
 * ignores followed by the records they miss (it extends them, never replaces them).
 */
export interface ConfigProposal {
  config: {
    docs: string[];
    ignore: string[];
    mappings: Mapping[];
    minScore?: number | undefined;
    versions?: { current: string } | undefined;
    /** The separate docs repository the other keys describe, relative to the code repository. */
    docsRepo?: string;
  };
  proposals: Proposal[];
}

/** Folders whose name says they hold documentation. */
const DOC_FOLDERS = new Set(["docs", "doc", "documentation", "guide", "book", "manual", "site", "website"]);
/** Not documentation of the code: vendored, generated, test data, tool config. */
const NOT_DOCS =
  /(^|\/)(node_modules|vendor|third_party|dist|build|target|tests?|testdata|fixtures?|__snapshots__|examples?\/node_modules)\/|(^|\/)\.[^/]+\//;
/**
 * Records of the past and project paperwork: not fixed forward when the code changes.
 * Changelogs, release notes, history files, changesets, migration and upgrade guides, blog
 * posts, and the community files every repository carries.
 */
const RECORDS =
  /(^|\/)(change[-_]?log|changes|history|news|release[-_]?notes?|releases|authors|contributors|code[-_]of[-_]conduct|conduct|license|licence|security|support|funding|governance)(\.[a-z]+)?$|(^|\/)(migrat\w*|upgrad\w*)[^/]*$|(^|\/)(blog|changelog|changelogs|migration-guides|migrations|\.changeset)\//i;
/** A folder becomes a mapping only when this many of its files have a namesake article. */
const MIN_MAPPED_NAMES = 3;

/**
 * Proposes `docs`, `ignore` and `mappings` from a repository's files (at one revision) and
 * its history. Pure: the caller lists the files and mines the history.
 */
export function proposeConfig(input: {
  files: string[];
  history: HistoryCommit[];
  /** The code repository's files when `files` are a separate docs repository's (mappings' code side). */
  codeFiles?: string[];
}): ConfigProposal {
  const proposals: Proposal[] = [];
  const docFiles = input.files.filter(
    (path) => isDocumentationExtension(extname(path)) && !NOT_DOCS.test(path),
  );
  const records = docFiles.filter((path) => RECORDS.test(path));
  const articles = docFiles.filter((path) => !RECORDS.test(path));

  // docs: root articles, whole documentation folders, and nested READMEs.
  const docs: string[] = [];
  const covered = new Set<string>();
  const byFolder = new Map<string, string[]>();
  for (const path of articles) {
    const top = path.includes("/") ? path.slice(0, path.indexOf("/")) : "";
    byFolder.set(top, [...(byFolder.get(top) ?? []), path]);
  }
  const filesByTop = new Map<string, number>();
  for (const path of input.files) {
    const top = path.includes("/") ? path.slice(0, path.indexOf("/")) : "";
    filesByTop.set(top, (filesByTop.get(top) ?? 0) + 1);
  }
  const rootDocs = byFolder.get("") ?? [];
  for (const extension of extensionsOf(rootDocs)) {
    const glob = `*${escapeGlob(extension)}`;
    const matched = rootDocs.filter((path) => path.endsWith(extension));
    docs.push(glob);
    for (const path of matched) covered.add(path);
    proposals.push({
      key: "docs",
      value: glob,
      evidence: `${plural(matched.length, "article")} at the root: ${sample(matched)}`,
    });
  }
  for (const [folder, paths] of [...byFolder].sort(([left], [right]) => left.localeCompare(right))) {
    if (folder === "") continue;
    const share = paths.length / (filesByTop.get(folder) ?? paths.length);
    if (!(DOC_FOLDERS.has(folder.toLowerCase()) || (paths.length >= 2 && share >= 0.5))) continue;
    const glob = `${escapeGlob(folder)}/**/*${braces(extensionsOf(paths))}`;
    docs.push(glob);
    for (const path of paths) covered.add(path);
    const why = DOC_FOLDERS.has(folder.toLowerCase())
      ? "a documentation folder"
      : `${Math.round(share * 100)}% of its files are docs`;
    proposals.push({
      key: "docs",
      value: glob,
      evidence: `${plural(paths.length, "article")} (${why}): ${sample(paths)}`,
    });
  }
  const readmes = articles.filter(
    (path) => !covered.has(path) && /^readme\.(md|mdx|rst)$/i.test(basename(path)),
  );
  if (readmes.length > 0) {
    const glob = `**/${escapeGlob(basename(readmes[0]!))}`;
    const matched = readmes.filter((path) => basename(path) === basename(readmes[0]!));
    docs.push(glob);
    for (const path of matched) covered.add(path);
    proposals.push({
      key: "docs",
      value: glob,
      evidence: `${plural(matched.length, "package README")}: ${sample(matched)}`,
    });
  }

  // ignore: the records among the files the docs globs take in that the defaults miss.
  const isDoc = docs.length > 0 ? picomatch(docs) : () => false;
  const ignoredByDefault = picomatch(DEFAULT_IGNORE_GLOBS, { dot: true, nocase: true });
  const ignore: string[] = [...DEFAULT_IGNORE_GLOBS];
  for (const path of records.filter((record) => isDoc(record) && !ignoredByDefault(record))) {
    const glob = ignoreGlobFor(path);
    if (ignore.includes(glob)) continue;
    ignore.push(glob);
    proposals.push({
      key: "ignore",
      value: glob,
      evidence: `${path} is a record of the past or project paperwork, not fixed forward`,
    });
  }

  // mappings: a code folder whose files have namesake articles in one docs folder.
  const mapped = [...covered].filter((path) => !ignore.some((glob) => picomatch.isMatch(path, glob)));
  const mappings = namesakeMappings(input.codeFiles ?? input.files, mapped, input.history);
  for (const { mapping, names, together } of mappings) {
    proposals.push({
      key: "mappings",
      value: mapping,
      evidence: `${plural(names.length, "file")} with a namesake article (${sample(names)}); changed together in ${plural(together, "commit")}`,
    });
  }
  // versions: a versioned docs layout, said so the user knows which folder gets edited.
  const layout = versionLayout(articles, [], undefined);
  const current = layout?.current.length === 1 ? layout.current[0]! : undefined;
  if (layout && current !== undefined) {
    const older = [...new Set(layout.older.values())].sort();
    const kind =
      layout.source === "docusaurus"
        ? `Docusaurus versioned docs${input.files.includes("versions.json") ? " (versions.json)" : ""}`
        : "one docs folder per version";
    proposals.push({
      key: "versions",
      value: current,
      evidence: `${kind}: ${current} is current; ${sample(older)} ${older.length === 1 ? "is an older version" : "are older versions"}, read as context and never edited`,
    });
  }
  return {
    config: {
      docs,
      ignore,
      mappings: mappings.map((entry) => entry.mapping),
      versions: current === undefined ? undefined : { current },
    },
    proposals,
  };
}

function namesakeMappings(files: string[], articles: string[], history: HistoryCommit[]) {
  const articleByKey = new Map<string, string[]>();
  for (const article of articles) {
    const key = `${posix.dirname(article)}\0${extname(article)}`;
    articleByKey.set(key, [...(articleByKey.get(key) ?? []), article]);
  }
  const stemsByDocsFolder = new Map<string, Set<string>>();
  for (const [key, paths] of articleByKey) stemsByDocsFolder.set(key, new Set(paths.map(stemOf)));
  const code = files.filter((path) => !isDocumentationExtension(extname(path)) && !NOT_DOCS.test(path));
  const groups = new Map<string, { codeKey: string; docsKey: string; names: string[] }>();
  for (const path of code) {
    const codeKey = `${posix.dirname(path)}\0${extname(path)}`;
    const stem = stemOf(path);
    if (stem === "index" || stem === "readme") continue;
    for (const [docsKey, stems] of stemsByDocsFolder) {
      if (!stems.has(stem)) continue;
      const key = `${codeKey}\0${docsKey}`;
      const group = groups.get(key) ?? { codeKey, docsKey, names: [] };
      group.names.push(stem);
      groups.set(key, group);
    }
  }
  const result: { mapping: Mapping; names: string[]; together: number }[] = [];
  for (const { codeKey, docsKey, names } of groups.values()) {
    if (names.length < MIN_MAPPED_NAMES) continue;
    const [codeFolder = "", codeExtension = ""] = codeKey.split("\0");
    const [docsFolder = "", docsExtension = ""] = docsKey.split("\0");
    const mapping = {
      code: `${codeFolder === "." ? "" : `${escapeGlob(codeFolder)}/`}:name${escapeGlob(codeExtension)}`,
      docs: `${docsFolder === "." ? "" : `${escapeGlob(docsFolder)}/`}:name${escapeGlob(docsExtension)}`,
    };
    const nameSet = new Set(names);
    const together = history.filter((commit) =>
      commit.files.some((file) => {
        if (posix.dirname(file) !== codeFolder || !nameSet.has(stemOf(file))) return false;
        const article = `${docsFolder === "." ? "" : `${docsFolder}/`}${stemOf(file)}${docsExtension}`;
        return commit.files.includes(article);
      }),
    ).length;
    result.push({ mapping, names: names.sort(), together });
  }
  return result.sort(
    (left, right) =>
      right.names.length - left.names.length || left.mapping.code.localeCompare(right.mapping.code),
  );
}

function stemOf(path: string): string {
  return basename(path, extname(path));
}

function extensionsOf(paths: string[]): string[] {
  return [...new Set(paths.map((path) => extname(path).toLowerCase()))].sort();
}

function braces(extensions: string[]): string {
  return extensions.length === 1
    ? extensions[0]!
    : `.{${extensions.map((extension) => extension.slice(1)).join(",")}}`;
}

/** A record at the root is named as it is; deeper ones by a glob on their folder or name. */
function ignoreGlobFor(path: string): string {
  const folder = /(^|\/)(blog|changelog|changelogs|migration-guides|migrations|\.changeset)\//i.exec(path);
  if (folder) return `${escapeGlob(path.slice(0, folder.index + folder[0].length))}**`;
  return path.includes("/") ? `**/${escapeGlob(basename(path))}` : escapeGlob(path);
}

function sample(paths: string[]): string {
  const shown = paths.slice(0, 3).join(", ");
  return paths.length > 3 ? `${shown}, …` : shown;
}

/** The shell around proposeConfig: the files and history at `revision` (default HEAD). */
export async function proposeRepositoryConfig(
  repoRoot: string,
  revision = "HEAD",
): Promise<{ proposal: ConfigProposal; commits: number }> {
  const git = gitAt(repoRoot);
  const sha = (await git.raw(["rev-parse", "--verify", `${revision}^{commit}`])).trim();
  const [listing, history] = await Promise.all([
    git.raw(["ls-tree", "-r", "-z", "--name-only", sha]),
    mineHistory(repoRoot, sha),
  ]);
  const files = listing.split("\0").filter((path) => path !== "");
  return { proposal: proposeConfig({ files, history: history.commits }), commits: history.commits.length };
}

/**
 * proposeConfig for a code repository whose docs are a separate repository: `docs`,
 * `ignore` and `versions` from the docs repository's files at its HEAD, mappings from code
 * files with namesake articles there, and `docsRepo` pointing at it. No history: the two
 * repositories' commits are not coupled.
 */
export async function proposeDocsRepositoryConfig(
  codeRoot: string,
  docsRoot: string,
): Promise<{ proposal: ConfigProposal }> {
  const files = async (root: string) => {
    const git = gitAt(root);
    const sha = (await git.raw(["rev-parse", "--verify", "HEAD^{commit}"])).trim();
    return (await git.raw(["ls-tree", "-r", "-z", "--name-only", sha]))
      .split("\0")
      .filter((path) => path !== "");
  };
  const [codeFiles, docsFiles] = await Promise.all([files(codeRoot), files(docsRoot)]);
  const proposal = proposeConfig({ files: docsFiles, codeFiles, history: [] });
  const docsRepo = relative(codeRoot, docsRoot).split(sep).join("/");
  proposal.config.docsRepo = docsRepo;
  proposal.proposals.unshift({
    key: "docsRepo",
    value: docsRepo,
    evidence: `the docs are a repository of their own; the keys below are paths in it (${plural(docsFiles.length, "file")})`,
  });
  return { proposal };
}
