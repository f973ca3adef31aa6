import { lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { GitError } from "../../shared/errors.js";
import { type GitObject, objectReader } from "./object-reader.js";
import { runGit } from "./run.js";

/** A full object id: SHA-1 (40 hex digits) or SHA-256 (64). */
const OBJECT_SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The sha of the blob at `path` in `revision`, or undefined: asked of the repository's
 * object reader (no process of its own). A name holding a line break cannot go through its
 * one-name-per-line protocol, so it is asked of `git rev-parse`, where the name travels as
 * its own argument and no character in it can change what is asked.
 */
export async function blobSha(git: Git, revision: string, path: string): Promise<string | undefined> {
  const name = `${revision}:${path}`;
  try {
    if (/[\r\n]/.test(name)) {
      const sha = (await git.raw(["rev-parse", "--verify", "--quiet", name])).trim();
      return OBJECT_SHA.test(sha) ? sha : undefined;
    }
    const [object] = await objectReader(git.dir).read([name]);
    return object?.type === "blob" && OBJECT_SHA.test(object.sha) ? object.sha : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Path → blob sha of every file in `revision` (`git ls-tree -r -z`: NUL-separated, so
 * paths come back exactly, whatever characters they hold).
 */
export async function treeBlobShas(git: Git, revision: string): Promise<Map<string, string>> {
  const output = await git.raw(["ls-tree", "-r", "-z", "--full-tree", revision]);
  const shas = new Map<string, string>();
  for (const entry of output.split("\0")) {
    const tab = entry.indexOf("\t");
    if (tab < 0) continue;
    const [, type, sha] = entry.slice(0, tab).split(" ");
    if (type === "blob" && sha) shas.set(entry.slice(tab + 1), sha);
  }
  return shas;
}

/** The tree of an empty commit: the base of a repository's first commit. */
export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/** git in one repository: each call runs one git process and resolves with its standard output. */
export interface Git {
  /** The directory git runs in. */
  dir: string;
  /**
   * The output of `git <args>` as text, with `input` (when given) on its standard input; a
   * GitError naming git's first line of complaint when it fails.
   */
  raw(args: string[], input?: string): Promise<string>;
  /** `git rev-parse <args>`, trimmed. */
  revparse(args: string[]): Promise<string>;
}

/**
 * git for one repository (through runGit): a client library would cost more to load than the
 * few calls a plan makes take to run.
 */
export function gitAt(dir: string): Git {
  const raw = async (args: string[], input?: string) => (await runGit(dir, args, { input })).text;
  return { dir, raw, revparse: async (args) => (await raw(["rev-parse", ...args])).trim() };
}

/** Roots found so far, by directory: a command asks for the same one several times. */
const roots = new Map<string, Promise<string>>();

/** The repository root containing `dir`, or a GitError saying what to do. */
export async function repositoryRoot(dir: string): Promise<string> {
  let root = roots.get(dir);
  if (!root) {
    const found = rootOnDisk(dir);
    root = found === undefined ? gitAt(dir).revparse(["--show-toplevel"]) : Promise.resolve(found);
    roots.set(dir, root);
    // Only answers are kept: a directory that becomes a repository later is asked again.
    root.catch(() => roots.delete(dir));
  }
  try {
    return await root;
  } catch (error) {
    throw new GitError(
      `not a git repository: ${dir} (run impact inside a git checkout, or pass --repo DIR)`,
      {
        cause: error,
      },
    );
  }
}

/** Environment variables that change where git looks for the repository, or what it allows. */
const DISCOVERY_ENV = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_COMMON_DIR",
  "GIT_CEILING_DIRECTORIES",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
];

/** Repository config that moves the work tree, makes the repository bare, or pulls in other files. */
const STEERING_CONFIG = /^\s*(worktree\w*|bare\s*=\s*(true|yes|on|1)\b|\[\s*include)/im;

/**
 * The work tree's root as `git rev-parse --show-toplevel` prints it, found on disk without
 * starting git (about 20 ms of CPU per command), in the plain case only: the nearest `.git`
 * above the real path of `dir` is a directory holding HEAD, owned by this user (git refuses
 * others' repositories), on the same file system as every folder walked through (git stops at
 * a mount), whose config sets neither `core.worktree` nor `core.bare` (nor includes other
 * files), with no environment variable steering git. Anything else (a linked worktree or submodule, whose `.git` is a
 * file; a path inside `.git`; Windows) is undefined: git is asked.
 */
export function rootOnDisk(dir: string): string | undefined {
  if (process.getuid === undefined || DISCOVERY_ENV.some((name) => process.env[name] !== undefined))
    return undefined;
  let current: string;
  try {
    current = realpathSync.native(dir);
  } catch {
    return undefined;
  }
  if (current.split(sep).includes(".git")) return undefined;
  const device = statSync(current, { throwIfNoEntry: false })?.dev;
  for (;;) {
    const gitDir = join(current, ".git");
    const info = lstatSync(gitDir, { throwIfNoEntry: false });
    if (info !== undefined) {
      if (!info.isDirectory() || info.uid !== process.getuid()) return undefined;
      if (!lstatSync(join(gitDir, "HEAD"), { throwIfNoEntry: false })?.isFile()) return undefined;
      let config: string;
      try {
        config = readFileSync(join(gitDir, "config"), "utf8");
      } catch {
        return undefined;
      }
      return STEERING_CONFIG.test(config) ? undefined : current;
    }
    const parent = dirname(current);
    if (parent === current || statSync(parent, { throwIfNoEntry: false })?.dev !== device) return undefined;
    current = parent;
  }
}

/** The full sha of a commit, or undefined when the revision does not resolve. */
export async function resolveCommit(git: Git, revision: string): Promise<string | undefined> {
  try {
    return (await git.raw(["rev-parse", "--verify", "--quiet", `${revision}^{commit}`])).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The full shas of several commits, asked of the repository's object reader (one `git
 * cat-file --batch` shared with the command's other object reads) instead of one
 * `rev-parse` each: undefined for a revision that does not resolve to a commit. The
 * protocol is one name per line, so a revision holding a line break is never asked (it
 * names no commit anyway).
 */
export async function resolveCommits(git: Git, revisions: string[]): Promise<(string | undefined)[]> {
  const asked = revisions.filter((revision) => !/[\r\n]/.test(revision));
  let objects: (GitObject | undefined)[] = [];
  if (asked.length > 0) {
    try {
      objects = await objectReader(git.dir).read(asked.map((revision) => `${revision}^{commit}`));
    } catch {
      objects = [];
    }
  }
  const answers = new Map<string, string | undefined>();
  asked.forEach((revision, index) => {
    const object = objects[index];
    answers.set(revision, object?.type === "commit" && OBJECT_SHA.test(object.sha) ? object.sha : undefined);
  });
  return revisions.map((revision) => answers.get(revision));
}

/**
 * The repository's files, sorted, repository-relative: the only listing of them (articles,
 * list_files, search_repo). By default the working tree's: tracked and untracked files,
 * git-ignored ones and ones deleted from the working tree left out; outside a git work tree
 * (a run on a plain directory with --diff) every file but `.git`'s. `ignoredMatching` adds
 * the git-ignored files it accepts. With `revision`, the files of that commit.
 */
export async function listRepositoryFiles(
  root: string,
  options: Parameters<typeof listRepositoryEntries>[1] = {},
): Promise<string[]> {
  return (await listRepositoryEntries(root, options)).map((entry) => entry.path);
}

/** A listed file, with the sha of the blob its bytes are, when git vouches for that. */
export interface ListedFile {
  path: string;
  /**
   * With a revision, the file's blob. In the working tree, the index's blob when git found
   * the file unmodified (not for untracked, modified, assume-unchanged or symlinked files).
   */
  sha?: string;
}

/**
 * The working tree's files as one `git ls-files` lists them: the index's entries and the
 * untracked files, each tagged (see listRepositoryEntries). Started once, it answers both the
 * listing of the files and which of them git tracks (trackedUnder).
 */
export async function listWorktree(root: string): Promise<string> {
  // -v tags each entry, so one call tells the index ("H", "S"…; lowercase when marked
  // assume-unchanged) and untracked ("?") entries from ones deleted from the working tree
  // ("R"), which are left out, and ones modified there ("C"). -s adds each index entry's
  // mode and blob sha: the sha of the file's bytes when git found it unmodified.
  return (
    await runGit(root, [
      "ls-files",
      "-z",
      "-v",
      "-s",
      "--cached",
      "--deleted",
      "--modified",
      "--others",
      "--exclude-standard",
    ])
  ).text;
}

/**
 * The paths under `folder` (repository-relative, `/`-separated) that git tracks, from a
 * listWorktree listing: every index entry, deleted from the working tree or not; an untracked
 * file ("?") is none. The same paths as `git ls-files --cached -- folder`.
 */
export function trackedUnder(listing: string, folder: string): string[] {
  const prefix = `${folder}/`;
  const tracked = new Set<string>();
  for (const entry of splitNul(listing)) {
    if (entry[0] === "?") continue;
    const path = entry.slice(entry.indexOf("\t") + 1);
    if (path.startsWith(prefix)) tracked.add(path);
  }
  return [...tracked];
}

/**
 * listRepositoryFiles, each file with the sha of its bytes when git knows it (same git calls).
 * `worktree` is a listWorktree listing of `root` already started, read instead of a new one.
 */
export async function listRepositoryEntries(
  root: string,
  options: {
    revision?: string | undefined;
    ignoredMatching?: ((path: string) => boolean) | undefined;
    worktree?: Promise<string> | undefined;
  } = {},
): Promise<ListedFile[]> {
  const git = async (...args: string[]) => (await runGit(root, args)).text;
  if (options.revision !== undefined) {
    let tree: string;
    try {
      tree = await git("ls-tree", "-r", "-z", options.revision);
    } catch (error) {
      throw new GitError(`cannot list the files of ${options.revision}`, { cause: error });
    }
    const entries = new Map<string, ListedFile>();
    for (const entry of splitNul(tree)) {
      // "<mode> <type> <sha>\t<path>"
      const tab = entry.indexOf("\t");
      const [, type, sha] = entry.slice(0, tab).split(" ");
      const path = entry.slice(tab + 1);
      entries.set(path, type === "blob" && sha ? { path, sha } : { path });
    }
    return sortedEntries(entries);
  }
  let listed: string;
  try {
    listed = await (options.worktree ?? listWorktree(root));
  } catch {
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile() || entry.isSymbolicLink())
      .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join("/"))
      .filter((path) => !path.split("/").includes(".git"))
      .sort()
      .map((path) => ({ path }));
  }
  const present = new Map<string, ListedFile>();
  const deleted = new Set<string>();
  const modified = new Set<string>();
  for (const entry of splitNul(listed)) {
    const tag = entry[0]!;
    // Index entries read "<tag> <mode> <sha> <stage>\t<path>"; untracked ones "? <path>".
    const tab = tag === "?" ? -1 : entry.indexOf("\t");
    const path = tab < 0 ? entry.slice(2) : entry.slice(tab + 1);
    if (tag === "R" || tag === "r") deleted.add(path);
    else if (tag === "C" || tag === "c") modified.add(path);
    else if (!present.has(path)) {
      // Only a regular file whose index entry git checks against the disk: "H 100644 <sha> 0"
      // (or mode 100755), read in place rather than split (20,000 entries on a large docs tree).
      const shaEnd = tab - 2;
      const trusted =
        tag === "H" &&
        tab > 11 &&
        entry.startsWith(" 0", shaEnd) &&
        (entry.startsWith(" 100644 ", 1) || entry.startsWith(" 100755 ", 1));
      const sha = trusted ? entry.slice(9, shaEnd) : "";
      present.set(path, OBJECT_SHA.test(sha) ? { path, sha } : { path });
    }
  }
  // Ignored files the config lets the tools read (`readIgnored`), and only those.
  const matching = options.ignoredMatching;
  if (matching) {
    const ignored = await git("ls-files", "-z", "--others", "--ignored", "--exclude-standard");
    for (const path of splitNul(ignored))
      if (matching(path) && !present.has(path)) present.set(path, { path });
  }
  for (const path of deleted) present.delete(path);
  for (const path of modified) {
    const entry = present.get(path);
    if (entry) present.set(path, { path });
  }
  return sortedEntries(present);
}

function sortedEntries(entries: Map<string, ListedFile>): ListedFile[] {
  return [...entries.keys()].sort().map((path) => entries.get(path)!);
}

/**
 * The files of the index (tracked), or an empty set outside a git work tree: a file with
 * more than one hard link is read only when it is one of these.
 */
export async function listTrackedFiles(root: string): Promise<Set<string>> {
  try {
    return new Set(splitNul((await runGit(root, ["ls-files", "-z", "--cached"])).text));
  } catch {
    return new Set();
  }
}

function splitNul(output: string): string[] {
  return output.split("\0").filter((entry) => entry !== "");
}

/**
 * Whether the clone is shallow (older history missing). In the plain case (rootOnDisk) the
 * file system answers, as git itself does: a shallow clone has a non-empty `.git/shallow`.
 */
export async function isShallow(git: Git): Promise<boolean> {
  const root = rootOnDisk(git.dir);
  if (root !== undefined) {
    const size = statSync(join(root, ".git", "shallow"), { throwIfNoEntry: false })?.size;
    if (size === undefined) return false;
    if (size > 0) return true;
  }
  try {
    return (await git.raw(["rev-parse", "--is-shallow-repository"])).trim() === "true";
  } catch {
    return false;
  }
}

/** A commit of a range with the values of one trailer key (`Docs-Impact: none` → `["none"]`). */
export interface CommitTrailers {
  sha: string;
  subject: string;
  values: string[];
}

/**
 * The commits of `base..head`, newest first, each with the values of trailer `key`, parsed by
 * git itself (`%(trailers)`: only the message's trailer block counts, keys match whatever
 * their case, folded values are unfolded).
 */
export async function commitTrailers(
  git: Git,
  base: string,
  head: string,
  key: string,
): Promise<CommitTrailers[]> {
  const output = await git.raw([
    "log",
    `--format=%H%x1f%s%x1f%(trailers:key=${key},valueonly,unfold,separator=%x1d)%x00`,
    // The first commit's base is the empty tree: every commit up to the head is in the range.
    base === EMPTY_TREE ? head : `${base}..${head}`,
    "--",
  ]);
  return output
    .split("\0")
    .map((record) => record.replace(/^\n/, ""))
    .filter((record) => record !== "")
    .map((record) => {
      const [sha = "", subject = "", values = ""] = record.split("\x1f");
      return {
        sha,
        subject,
        values: values
          .split("\x1d")
          .map((value) => value.trim())
          .filter(Boolean),
      };
    });
}

/**
 * Reads many blobs, by their object names (hex shas), through one `git cat-file --batch`
 * process. A sha that does not exist maps to undefined; binary content is returned as
 * latin1-free UTF-8 text. Never `rev:path`: the batch protocol is one name per line, so a
 * path holding a newline would ask for other objects and shift every answer after it.
 */
export function readBlobs(repoRoot: string, specs: string[]): Promise<Map<string, string | undefined>> {
  const bad = specs.find((spec) => !OBJECT_SHA.test(spec));
  if (bad !== undefined)
    return Promise.reject(new Error(`bug: readBlobs takes object shas, got ${JSON.stringify(bad)}`));
  return batchRead(repoRoot, specs);
}

/**
 * Reads files of `revision` by fixed path, through one `git cat-file --batch` (instead of an
 * `ls-tree` for the shas, then a read): path → text, undefined when absent or not a blob.
 * Only for paths Impact itself names (the root's manifests), never ones read from a
 * repository or a user: a line break would shift every answer after it, so one is refused.
 */
export function readFilesAt(
  repoRoot: string,
  revision: string,
  paths: string[],
): Promise<Map<string, string | undefined>> {
  const bad = [revision, ...paths].find((name) => /[\r\n]/.test(name));
  if (bad !== undefined)
    return Promise.reject(new Error(`bug: readFilesAt takes one-line names, got ${JSON.stringify(bad)}`));
  return batchRead(
    repoRoot,
    paths.map((path) => `${revision}:${path}`),
  ).then((blobs) => new Map(paths.map((path) => [path, blobs.get(`${revision}:${path}`)])));
}

async function batchRead(repoRoot: string, specs: string[]): Promise<Map<string, string | undefined>> {
  const result = new Map<string, string | undefined>();
  if (specs.length === 0) return result;
  const objects = await objectReader(repoRoot).read(specs);
  specs.forEach((spec, index) => {
    const object = objects[index];
    result.set(spec, object?.type === "blob" ? object.content.toString("utf8") : undefined);
  });
  return result;
}
