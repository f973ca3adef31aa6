import { stat } from "node:fs/promises";
import type { SimpleGit } from "simple-git";
import type { ChangedFile, ChangeSet } from "../../shared/changeset.js";
import { GitError, UsageError } from "../../shared/errors.js";
import { contentHash } from "../../shared/hash.js";
import { parseUnifiedDiff } from "./diff-parse.js";
import { EMPTY_TREE, gitAt, isShallow, readBlobs, resolveCommit } from "./git.js";
import { inProcessExtractor, type SymbolExtractor, type SymbolJob } from "./symbol-extractor.js";
import { isProse, languageOf } from "./symbols.js";

export interface ChangeSetOptions {
  repo: string;
  base?: string;
  head?: string;
  /** A unified diff to use instead of asking git. */
  diffText?: string;
  /** Where symbols are extracted (default: in-process). */
  extractor?: SymbolExtractor;
}

/**
 * Reads the change as data (DESIGN.md section 1): `base..head` from git (defaults `HEAD~1`
 * and `HEAD`, so a merge commit is compared with its first parent), or the given diff text.
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
  const common = ["--no-ext-diff", "--no-textconv", "--no-relative", "--find-renames"];
  // The raw listing runs alongside the patch: it names each side's blob by sha, and
  // `git cat-file` finds a blob by sha about three times faster than by `rev:path`.
  const [diff, raw] = await Promise.all([
    git.raw([
      "diff",
      "--no-color",
      ...common,
      "--submodule=short",
      "--src-prefix=a/",
      "--dst-prefix=b/",
      base,
      head,
    ]),
    git.raw(["diff", "--raw", "-z", "--no-abbrev", ...common, base, head]),
  ]);
  const files = parseUnifiedDiff(diff);
  return {
    base,
    head,
    files,
    symbols: await symbolsOf(options.extractor, files, root, base, head, blobShas(raw)),
  };
}

const NULL_SHA = /^0+$/;

/**
 * `git diff --raw -z` as a map from each file's path after the change to the blob shas of
 * its two sides (undefined for a side that does not exist, or a work-tree side).
 */
function blobShas(raw: string): Map<string, { before?: string; after?: string }> {
  const shas = new Map<string, { before?: string; after?: string }>();
  const fields = raw.split("\0");
  let index = 0;
  while (index < fields.length) {
    const header = fields[index]!;
    if (!header.startsWith(":")) {
      index += 1;
      continue;
    }
    // ":<old mode> <new mode> <old sha> <new sha> <status>", then one path, or two for
    // renames and copies (old, new).
    const [, , before, after, status = ""] = header.split(" ");
    const twoPaths = status.startsWith("R") || status.startsWith("C");
    const path = fields[index + (twoPaths ? 2 : 1)];
    index += twoPaths ? 3 : 2;
    if (path === undefined || before === undefined || after === undefined) continue;
    shas.set(path, {
      before: NULL_SHA.test(before) ? undefined : before,
      after: NULL_SHA.test(after) ? undefined : after,
    });
  }
  return shas;
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
      `unknown revision "${headName}" for --head (check the name, or fetch it: git fetch origin ${headName})`,
    );
  }
  if (baseRevision !== undefined) {
    if (base) return { base, head };
    if (await isShallow(git)) throw new GitError(`--base ${baseRevision} is not available: ${SHALLOW_HINT}`);
    throw new GitError(
      `unknown revision "${baseRevision}" for --base (check the name, or fetch it: git fetch origin ${baseRevision})`,
    );
  }
  if (base) return { base, head };
  if (await isShallow(git)) throw new GitError(`the parent of ${headName} is not available: ${SHALLOW_HINT}`);
  // The first commit of a repository: compare with the empty tree.
  return { base: EMPTY_TREE, head };
}

async function symbolsOf(
  extractor: SymbolExtractor = inProcessExtractor,
  files: ChangedFile[],
  root?: string,
  base?: string,
  head?: string,
  shas = new Map<string, { before?: string; after?: string }>(),
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
