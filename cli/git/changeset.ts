import { stat } from "node:fs/promises";
import type { SimpleGit } from "simple-git";
import type { ChangedFile, ChangeSet } from "../../shared/changeset.js";
import { GitError, UsageError } from "../../shared/errors.js";
import { contentHash } from "../../shared/hash.js";
import { parseUnifiedDiff } from "./diff-parse.js";
import { EMPTY_TREE, gitAt, isShallow, readBlobs, resolveCommit } from "./git.js";
import { extractSymbols, isProse, languageOf, loadTypeScript } from "./symbols.js";

export interface ChangeSetOptions {
  repo: string;
  base?: string;
  head?: string;
  /** A unified diff to use instead of asking git. */
  diffText?: string;
}

/**
 * Reads the change as data (DESIGN.md section 1): `base..head` from git (defaults `HEAD~1`
 * and `HEAD`, so a merge commit is compared with its first parent), or the given diff text.
 */
export async function loadChangeSet(options: ChangeSetOptions): Promise<ChangeSet> {
  await requireDirectory(options.repo);
  if (options.diffText !== undefined) return changeSetFromDiff(options, options.diffText);
  const git = gitAt(options.repo);
  const root = await requireRepository(git, options.repo);
  const { base, head } = await resolveRange(git, options.base, options.head);
  const diff = await git.raw([
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
    "--find-renames",
    "--submodule=short",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    base,
    head,
  ]);
  const files = parseUnifiedDiff(diff);
  return { base, head, files, symbols: await symbolsOf(files, root, base, head) };
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
      return { base, head, files, symbols: await symbolsOf(files, root, baseSha, headSha) };
    }
  }
  return { base, head, files, symbols: await symbolsOf(files) };
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
  const head = await resolveCommit(git, headName);
  if (!head) {
    if (headRevision === undefined)
      throw new GitError("the repository has no commits yet; commit something first");
    throw new GitError(
      `unknown revision "${headName}" for --head (check the name, or fetch it: git fetch origin ${headName})`,
    );
  }
  if (baseRevision !== undefined) {
    const base = await resolveCommit(git, baseRevision);
    if (base) return { base, head };
    if (await isShallow(git)) throw new GitError(`--base ${baseRevision} is not available: ${SHALLOW_HINT}`);
    throw new GitError(
      `unknown revision "${baseRevision}" for --base (check the name, or fetch it: git fetch origin ${baseRevision})`,
    );
  }
  const parent = await resolveCommit(git, `${head}~1`);
  if (parent) return { base: parent, head };
  if (await isShallow(git)) throw new GitError(`the parent of ${headName} is not available: ${SHALLOW_HINT}`);
  // The first commit of a repository: compare with the empty tree.
  return { base: EMPTY_TREE, head };
}

async function symbolsOf(files: ChangedFile[], root?: string, base?: string, head?: string) {
  const code = files.filter(
    (file) => !file.binary && file.status !== "submodule" && !isProse(file.path) && file.hunks.length > 0,
  );
  const typescript = code.some((file) => languageOf(file.path) === "typescript")
    ? await loadTypeScript()
    : undefined;
  let blobs = new Map<string, string | undefined>();
  const specOf = (file: ChangedFile, side: "base" | "head") =>
    side === "base" ? `${base}:${file.oldPath ?? file.path}` : `${head}:${file.path}`;
  const withLanguage = code.filter((file) => languageOf(file.path));
  if (root && base && head) {
    const specs: string[] = [];
    for (const file of withLanguage) {
      if (file.status !== "added" && base !== EMPTY_TREE) specs.push(specOf(file, "base"));
      if (file.status !== "deleted") specs.push(specOf(file, "head"));
    }
    blobs = await readBlobs(root, specs);
  }
  return code.flatMap((file) => {
    if (!(root && base && head && languageOf(file.path))) return extractSymbols({ file, typescript });
    return extractSymbols({
      file,
      typescript,
      before: file.status === "added" ? "" : (blobs.get(specOf(file, "base")) ?? ""),
      after: file.status === "deleted" ? "" : (blobs.get(specOf(file, "head")) ?? ""),
    });
  });
}
