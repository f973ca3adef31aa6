import { stat } from "node:fs/promises";
import type { SimpleGit } from "simple-git";
import type { ChangedFile, ChangeSet } from "../../shared/changeset.js";
import { GitError, UsageError } from "../../shared/errors.js";
import { contentHash } from "../../shared/hash.js";
import { EMPTY_TREE, gitAt, isShallow, readBlobs, resolveCommit } from "../git.js";
import { parseUnifiedDiff } from "./diff-parse.js";
import { isProse, languageOf } from "./symbols/extract-symbols.js";
import { inProcessExtractor, type SymbolExtractor, type SymbolJob } from "./symbols/extractor.js";

export interface ChangeSetOptions {
  repo: string;
  base?: string;
  head?: string;
  /** A unified diff to use instead of asking git. */
  diffText?: string;
  /** Where symbols are extracted (default: in-process). */
  extractor?: SymbolExtractor;
}

/** How to fetch a missing revision: `origin/main` is branch main of remote origin. */
function fetchHint(revision: string): string {
  const remoteBranch = /^origin\/(.+)$/.exec(revision);
  return remoteBranch ? `git fetch origin ${remoteBranch[1]}` : `git fetch origin ${revision}`;
}

/**
 * Reads the change as data: from the merge base of `base` and `head`
 * to `head` from git (defaults `HEAD~1` and `HEAD`, so a merge commit is compared with its
 * first parent), or the given diff text.
 */
export async function loadChangeSet(options: ChangeSetOptions): Promise<ChangeSet> {
  await requireDirectory(options.repo);
  if (options.diffText !== undefined) return changeSetFromDiff(options, options.diffText);
  const git = gitAt(options.repo);
  // Both git calls start now; the repository check still decides which error is reported.
  const rootPromise = requireRepository(git, options.repo);
  const rangePromise = resolveRange(git, options.base, options.head);
  rangePromise.catch(() => {});
  const root = await rootPromise;
  const { base, head } = await rangePromise;
  // `--raw --no-abbrev` puts a listing before the patch that names each side's blob by its
  // full sha: `git cat-file` finds a blob by sha about three times faster than by `rev:path`.
  const output = await git.raw([
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
    "--find-renames",
    "--submodule=short",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--raw",
    "--no-abbrev",
    "--patch",
    base,
    head,
  ]);
  const { shas, patch } = splitRawListing(output);
  const files = parseUnifiedDiff(patch);
  return { base, head, files, symbols: await symbolsOf(options.extractor, files, root, base, head, shas) };
}

type BlobShas = Map<string, { before?: string; after?: string }>;

const NULL_SHA = /^0+$/;

/**
 * Splits `git diff --raw --patch` output into the patch (exactly what `git diff` alone
 * prints) and a map from each file's path after the change to the blob shas of its two
 * sides. Raw lines are `:<old mode> <new mode> <old sha> <new sha> <status>\t<path>`, with
 * old and new paths for renames and copies; quoted (unusual) paths are left out of the
 * map, and their blobs are read by revision and path instead.
 */
function splitRawListing(output: string): { shas: BlobShas; patch: string } {
  const shas: BlobShas = new Map();
  let at = 0;
  while (output.startsWith(":", at)) {
    const end = output.indexOf("\n", at);
    const line = output.slice(at, end < 0 ? output.length : end);
    at = end < 0 ? output.length : end + 1;
    const [header = "", ...paths] = line.split("\t");
    const [, , before = "", after = ""] = header.split(" ");
    const path = paths.at(-1);
    if (path === undefined || path.startsWith('"')) continue;
    shas.set(path, {
      before: NULL_SHA.test(before) ? undefined : before,
      after: NULL_SHA.test(after) ? undefined : after,
    });
  }
  // A blank line separates the listing from the patch.
  if (at > 0 && output[at] === "\n") at += 1;
  return { shas, patch: output.slice(at) };
}

async function changeSetFromDiff(options: ChangeSetOptions, diffText: string): Promise<ChangeSet> {
  const files = parseUnifiedDiff(diffText);
  const fallback = `diff:${contentHash(diffText)}`;
  // The labels are the revisions as given (a PR bot's shas may not even be fetched).
  const base = options.base ?? fallback;
  const head = options.head ?? fallback;
  if (options.base !== undefined && options.head !== undefined) {
    // When both revisions are at hand, the symbols come from whole files, as with git input.
    const git = gitAt(options.repo);
    const [baseSha, headSha] = await Promise.all([
      resolveCommit(git, options.base),
      resolveCommit(git, options.head),
    ]);
    if (baseSha && headSha) {
      const root = (await git.revparse(["--show-toplevel"])).trim();
      return {
        base,
        head,
        files,
        symbols: await symbolsOf(options.extractor, files, root, baseSha, headSha),
      };
    }
  }
  return { base, head, files, symbols: await symbolsOf(options.extractor, files) };
}

async function requireDirectory(dir: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`--repo ${dir}: no such directory`);
}

async function requireRepository(git: SimpleGit, dir: string): Promise<string> {
  try {
    return (await git.revparse(["--show-toplevel"])).trim();
  } catch (error) {
    throw new GitError(
      `not a git repository: ${dir} (run impact inside a git checkout, or pass --repo DIR)`,
      {
        cause: error,
      },
    );
  }
}

const SHALLOW_HINT =
  "this is a shallow clone without that history; fetch it (GitHub Actions: actions/checkout with fetch-depth: 0, or git fetch --unshallow)";

/** Resolves base and head to full shas, with one-line errors that say what to do. */
export async function resolveRange(
  git: SimpleGit,
  baseRevision: string | undefined,
  headRevision: string | undefined,
): Promise<{ base: string; head: string }> {
  const headName = headRevision ?? "HEAD";
  // The head and the base (or the head's parent) resolve at the same time.
  const [head, base] = await Promise.all([
    resolveCommit(git, headName),
    resolveCommit(git, baseRevision ?? `${headName}~1`),
  ]);
  if (!head) {
    if (headRevision === undefined)
      throw new GitError("the repository has no commits yet; commit something first");
    throw new GitError(
      `unknown revision "${headName}" for --head (check the name, or fetch it: ${fetchHint(headName)})`,
    );
  }
  if (baseRevision !== undefined) {
    if (base) return { base: (await mergeBase(git, base, head)) ?? base, head };
    if (await isShallow(git)) throw new GitError(`--base ${baseRevision} is not available: ${SHALLOW_HINT}`);
    throw new GitError(
      `unknown revision "${baseRevision}" for --base (check the name, or fetch it: ${fetchHint(baseRevision)})`,
    );
  }
  if (base) return { base, head };
  if (await isShallow(git)) throw new GitError(`the parent of ${headName} is not available: ${SHALLOW_HINT}`);
  // The first commit of a repository: compare with the empty tree.
  return { base: EMPTY_TREE, head };
}

/**
 * Where the head's branch left the base: what GitHub shows as a pull request's change, and
 * what `--base origin/main` means on a branch that main has since moved past (a plain
 * base..head diff would also list main's newer commits, reversed). Undefined when the two
 * share no history in this clone (unrelated, or a shallow clone that stops short); the
 * diff is then base..head as given.
 */
async function mergeBase(git: SimpleGit, base: string, head: string): Promise<string | undefined> {
  try {
    return (await git.raw(["merge-base", base, head])).trim() || undefined;
  } catch {
    return undefined;
  }
}

async function symbolsOf(
  extractor: SymbolExtractor = inProcessExtractor,
  files: ChangedFile[],
  root?: string,
  base?: string,
  head?: string,
  shas: BlobShas = new Map(),
) {
  const code = files.filter(
    (file) => !file.binary && file.status !== "submodule" && !isProse(file.path) && file.hunks.length > 0,
  );
  let blobs = new Map<string, string | undefined>();
  // By sha when the raw listing named the blob, else by revision and path.
  const specOf = (file: ChangedFile, side: "base" | "head") =>
    side === "base"
      ? (shas.get(file.path)?.before ?? `${base}:${file.oldPath ?? file.path}`)
      : (shas.get(file.path)?.after ?? `${head}:${file.path}`);
  const withLanguage = code.filter((file) => languageOf(file.path));
  if (root && base && head) {
    const specs: string[] = [];
    for (const file of withLanguage) {
      if (file.status !== "added" && base !== EMPTY_TREE) specs.push(specOf(file, "base"));
      if (file.status !== "deleted") specs.push(specOf(file, "head"));
    }
    blobs = await readBlobs(root, specs);
  }
  const jobs = code.map((file): SymbolJob => {
    if (!(root && base && head && languageOf(file.path))) return { file };
    return {
      file,
      before: file.status === "added" ? "" : (blobs.get(specOf(file, "base")) ?? ""),
      after: file.status === "deleted" ? "" : (blobs.get(specOf(file, "head")) ?? ""),
    };
  });
  return (await extractor.extract(jobs)).flat();
}
