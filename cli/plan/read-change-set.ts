import { stat } from "node:fs/promises";
import type { ChangedFile, ChangeSet, SkippedFile } from "../../shared/changeset.js";
import { parseUnifiedDiff } from "../../shared/diff/parse.js";
import { GitError, UsageError } from "../../shared/errors.js";
import { contentHash } from "../../shared/hash.js";
import { DEFAULT_DIFF_LIMITS, MAX_SYMBOL_LINE_CHARS, resolveLimits } from "../../shared/limits.js";
import {
  blobSha,
  EMPTY_TREE,
  type Git,
  gitAt,
  isShallow,
  readBlobs,
  repositoryRoot,
  resolveCommits,
} from "../git/repository.js";
import { runGit } from "../git/run.js";
import type { Workdir } from "../workdir/workdir.js";
import {
  cacheKey,
  DECLARATION_CACHE,
  type DeclarationCache,
  loadDeclarationCache,
} from "./symbols/declaration-cache.js";
import { declaresNames, isProse } from "./symbols/extract-symbols.js";
import {
  inProcessExtractor,
  languagesOf,
  type SymbolExtractor,
  type SymbolJob,
} from "./symbols/extractor.js";

export interface ChangeSetOptions {
  repo: string;
  base?: string | undefined;
  head?: string | undefined;
  /** A unified diff to use instead of asking git. */
  diffText?: string | undefined;
  /** Where symbols are extracted (default: in-process). */
  extractor?: SymbolExtractor;
  /** Size caps (config `limits`); files past them are skipped, not read. */
  limits?: DiffLimits;
  /** Told the resolved base and head as soon as git has them, before the diff is read (work that needs only the revisions starts then). */
  onRange?: (range: { base: string; head: string }) => void;
  /** Where the declaration cache lives; absent: every file version is parsed. */
  workdir?: Workdir | undefined;
}

interface DiffLimits {
  diffBytes?: number | undefined;
  fileDiffBytes?: number | undefined;
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
  const rootPromise = repositoryRoot(options.repo);
  const rangePromise = resolveRange(git, options.base, options.head);
  rangePromise.catch(() => {});
  const root = await rootPromise;
  const { base, head } = await rangePromise;
  options.onRange?.({ base, head });
  // `--raw --no-abbrev` puts a listing before the patch that names each side's blob by its
  // full sha: `git cat-file` finds a blob by sha about three times faster than by `rev:path`.
  const { diffBytes: maxBytes, fileDiffBytes } = resolveLimits(DEFAULT_DIFF_LIMITS, options.limits ?? {});
  // Past maxBytes git is stopped and the text is marked truncated (a generated-code commit can
  // be gigabytes of diff).
  const read = await runGit(
    root,
    [
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
    ],
    { maxBytes },
  );
  const { shas, patch } = splitRawListing(read.text);
  const capped = capFileDiffs(read.truncated ? wholeFiles(patch) : patch, fileDiffBytes);
  const files = parseUnifiedDiff(capped.patch);
  const cache = await declarationCacheFor(options.workdir, files);
  // Only the languages of file versions no plan parsed before: a warm plan may start no parser.
  options.extractor?.prepare(languagesOf(files.filter((file) => !cachedBothSides(file, shas, cache))));
  const skipped = capped.skipped;
  if (read.truncated) {
    const seen = new Set(files.map((file) => file.path));
    for (const path of shas.keys()) if (!seen.has(path)) skipped.push({ path, reason: "diff_too_large" });
  }
  const symbols = await symbolsOf(
    options.extractor,
    withoutSkipped(files, skipped),
    root,
    base,
    head,
    shas,
    cache,
  );
  return { base, head, files, ...symbols, ...(skipped.length > 0 ? { skipped } : {}) };
}

/** A cut diff without its last, partial file. */
function wholeFiles(patch: string): string {
  const last = patch.lastIndexOf("\ndiff --git ");
  return last < 0 ? "" : patch.slice(0, last + 1);
}

/**
 * Keeps only the headers (path, status, modes) of each file whose part of the diff is over
 * `maxBytes`, and lists it as skipped: the plan still knows the file changed, but its
 * hunks are never held, parsed or handed to the model.
 */
function capFileDiffs(patch: string, maxBytes: number): { patch: string; skipped: SkippedFile[] } {
  const skipped: SkippedFile[] = [];
  if (patch.length <= maxBytes) return { patch, skipped };
  const parts: string[] = [];
  let start = 0;
  while (start < patch.length) {
    const next = patch.indexOf("\ndiff --git ", start);
    const end = next < 0 ? patch.length : next + 1;
    const section = patch.slice(start, end);
    if (Buffer.byteLength(section) > maxBytes && section.startsWith("diff --git ")) {
      const hunk = section.search(/^(@@ |GIT binary patch)/m);
      const header = hunk < 0 ? section.slice(0, 4096) : section.slice(0, hunk);
      const path = parseUnifiedDiff(header)[0]?.path;
      parts.push(header);
      if (path !== undefined) skipped.push({ path, reason: "file_too_large" });
    } else {
      parts.push(section);
    }
    start = end;
  }
  return { patch: parts.join(""), skipped };
}

function withoutSkipped(files: ChangedFile[], skipped: readonly SkippedFile[]): ChangedFile[] {
  if (skipped.length === 0) return files;
  const left = new Set(skipped.map((file) => file.path));
  return files.filter((file) => !left.has(file.path));
}

type BlobShas = Map<string, { before?: string | undefined; after?: string | undefined }>;

/**
 * The declarations of file versions parsed before, read only when the change has code to
 * parse: a doc-only change (the most common pull request) never reads the cache file.
 */
async function declarationCacheFor(
  workdir: Workdir | undefined,
  files: readonly ChangedFile[],
): Promise<DeclarationCache | undefined> {
  return workdir && languagesOf(files).some((language) => language !== undefined)
    ? loadDeclarationCache(await workdir.cache(DECLARATION_CACHE))
    : undefined;
}

/** Whether the declaration cache holds both sides of a changed file, by the shas of the raw listing. */
function cachedBothSides(file: ChangedFile, shas: BlobShas, cache: DeclarationCache | undefined): boolean {
  const known = shas.get(file.path);
  if (!known || !cache) return false;
  const side = (path: string, sha: string | undefined) => {
    const key = cacheKey(path, sha);
    return key !== undefined && cache.peek(key);
  };
  return (
    (file.status === "added" || side(file.oldPath ?? file.path, known.before)) &&
    (file.status === "deleted" || side(file.path, known.after))
  );
}

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
  const { diffBytes: maxBytes, fileDiffBytes } = resolveLimits(DEFAULT_DIFF_LIMITS, options.limits ?? {});
  if (Buffer.byteLength(diffText) > maxBytes) {
    throw new UsageError(
      `the diff is over limits.diffBytes (${maxBytes} bytes); pass a smaller diff or raise the limit in impact.config.json`,
      { code: "input" },
    );
  }
  const capped = capFileDiffs(diffText, fileDiffBytes);
  const skipped = capped.skipped.length > 0 ? { skipped: capped.skipped } : {};
  const files = parseUnifiedDiff(capped.patch);
  const readable = withoutSkipped(files, capped.skipped);
  const fallback = `diff:${contentHash(diffText)}`;
  // The labels are the revisions as given (a PR bot's shas may not even be fetched).
  const base = options.base ?? fallback;
  const head = options.head ?? fallback;
  if (options.base !== undefined && options.head !== undefined) {
    // When both revisions are at hand, the symbols come from whole files, as with git input.
    const git = gitAt(options.repo);
    const [baseSha, headSha] = await resolveCommits(git, [options.base, options.head]);
    if (baseSha && headSha) {
      const root = (await git.revparse(["--show-toplevel"])).trim();
      return {
        base,
        head,
        files,
        ...(await symbolsOf(
          options.extractor,
          readable,
          root,
          baseSha,
          headSha,
          new Map(),
          await declarationCacheFor(options.workdir, readable),
        )),
        ...skipped,
      };
    }
  }
  return { base, head, files, ...(await symbolsOf(options.extractor, readable)), ...skipped };
}

async function requireDirectory(dir: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`--repo ${dir}: no such directory`);
}

const SHALLOW_HINT =
  "this is a shallow clone without that history; fetch it (GitHub Actions: actions/checkout with fetch-depth: 0, or git fetch --unshallow)";

/** Resolves base and head to full shas, with one-line errors that say what to do. */
async function resolveRange(
  git: Git,
  baseRevision: string | undefined,
  headRevision: string | undefined,
): Promise<{ base: string; head: string }> {
  const headName = headRevision ?? "HEAD";
  // The head and the base (or the head's parent) resolve together, in one git process.
  const [head, base] = await resolveCommits(git, [headName, baseRevision ?? `${headName}~1`]);
  if (!head) {
    if (headRevision === undefined)
      throw new GitError("the repository has no commits yet; commit something first");
    throw new GitError(
      `unknown revision "${headName}" for --head (check the name, or fetch it: ${fetchHint(headName)})`,
    );
  }
  if (baseRevision !== undefined) {
    if (base) {
      const from = (await mergeBase(git, base, head)) ?? base;
      // The head is older than the base: their change, from the merge base, is empty.
      if (from === head && base !== head)
        throw new UsageError(
          `--base ${baseRevision} comes after --head ${headName} (a reversed range: the change between them is empty); swap them: --base ${headName} --head ${baseRevision}`,
          { code: "input" },
        );
      return { base: from, head };
    }
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
async function mergeBase(git: Git, base: string, head: string): Promise<string | undefined> {
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
  cache?: DeclarationCache,
): Promise<Pick<ChangeSet, "symbols" | "warnings">> {
  const code = files.filter(
    (file) =>
      !file.binary &&
      file.status !== "submodule" &&
      !isProse(file.path) &&
      file.hunks.length > 0 &&
      !isMinified(file),
  );
  let blobs = new Map<string, string | undefined>();
  const withDeclarations = code.filter((file) => declaresNames(file.path));
  // Blobs are read by sha: from the raw listing, else (quoted, unusual paths, or a --diff
  // input) looked up by revision and path through the object reader (blobSha).
  if (root && base && head) {
    const git = gitAt(root);
    // Asked all at once: the lookups share the repository's one object reader.
    await Promise.all(
      withDeclarations.map(async (file) => {
        const known = shas.get(file.path) ?? {};
        const [before, after] = await Promise.all([
          known.before ??
            (file.status !== "added" && base !== EMPTY_TREE
              ? blobSha(git, base, file.oldPath ?? file.path)
              : undefined),
          known.after ?? (file.status !== "deleted" ? blobSha(git, head, file.path) : undefined),
        ]);
        shas.set(file.path, { before, after });
      }),
    );
  }
  const specOf = (file: ChangedFile, side: "base" | "head") =>
    (side === "base" ? shas.get(file.path)?.before : shas.get(file.path)?.after) ?? "";
  if (root && base && head) {
    const specs: string[] = [];
    for (const file of withDeclarations) {
      if (file.status !== "added" && base !== EMPTY_TREE && specOf(file, "base"))
        specs.push(specOf(file, "base"));
      if (file.status !== "deleted" && specOf(file, "head")) specs.push(specOf(file, "head"));
    }
    blobs = await readBlobs(root, specs);
  }
  // A side is cached by its blob's sha only when the blob was read: a missing blob reads as "".
  const keyOf = (file: ChangedFile, side: "base" | "head") => {
    const spec = specOf(file, side);
    if ((side === "base" ? file.status === "added" : file.status === "deleted") || !blobs.has(spec)) return;
    return cacheKey(side === "base" ? (file.oldPath ?? file.path) : file.path, spec);
  };
  const keys = code.map((file) => ({ before: keyOf(file, "base"), after: keyOf(file, "head") }));
  const jobs = code.map((file, index): SymbolJob => {
    if (!(root && base && head && declaresNames(file.path))) return { file };
    const { before, after } = keys[index]!;
    const knownBefore = before === undefined ? undefined : cache?.get(before);
    const knownAfter = after === undefined ? undefined : cache?.get(after);
    return {
      file,
      before: file.status === "added" ? "" : (blobs.get(specOf(file, "base")) ?? ""),
      after: file.status === "deleted" ? "" : (blobs.get(specOf(file, "head")) ?? ""),
      known: knownBefore || knownAfter ? { before: knownBefore, after: knownAfter } : undefined,
    };
  });
  const results = await extractor.extract(jobs);
  if (cache) {
    results.forEach(({ parsed }, index) => {
      const { before, after } = keys[index]!;
      if (parsed.before && before !== undefined) cache.remember(before, parsed.before);
      if (parsed.after && after !== undefined) cache.remember(after, parsed.after);
    });
    await cache.save();
  }
  // A file too deeply nested to parse costs its declarations, with a warning, never the plan.
  const warnings = results.flatMap((result) => (result.warning ? [result.warning] : []));
  return {
    symbols: results.flatMap((result) => result.symbols),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/** A changed line over MAX_SYMBOL_LINE_CHARS: minified or generated code, whose symbols no article names. */
function isMinified(file: ChangedFile): boolean {
  return file.hunks.some((hunk) => hunk.lines.some((line) => line.length > MAX_SYMBOL_LINE_CHARS));
}
