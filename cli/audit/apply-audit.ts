import { readFile, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { applyPatch } from "diff";
import type { Audit } from "../../shared/audit.js";
import type { ImpactConfig } from "../../shared/config.js";
import { pathInDocsRepository } from "../../shared/docs-repository.js";
import { UsageError } from "../../shared/errors.js";
import { DirectoryChanged, sweepStaleTempFiles, writeFilesAtomic } from "../../shared/fs.js";
import { contentHash } from "../../shared/hash.js";
import { patchHeaderProblem } from "../../shared/patch.js";
import type { DocsRepository } from "../git/docs-repository.js";
import { type ArticleSelector, articleSelector, docsRepositoryArticles } from "../plan/articles.js";
import { type PathRefusal, type ResolvedPath, SandboxPolicy, writeRefusal } from "../run/sandbox.js";

/** Some files cannot take their patch (changed since, refused by the sandbox, not an article); nothing was written. */
export class StaleFiles extends UsageError {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`refusing to apply, nothing was written: ${problems.join("; ")}`, { code: "stale" });
    this.problems = problems;
  }
}

export interface ApplyAuditResult {
  /** Files written. */
  written: string[];
  /** Files that already had the audited content. */
  alreadyApplied: string[];
}

/** The parts of the config that decide which files an audit may write. */
export type ApplyAuditConfig = Pick<ImpactConfig, "docs" | "ignore" | "deny">;

/**
 * Writes an audit's article patches to the working tree at `root` (`impact apply`, `run --apply`).
 * The audit is untrusted input (often a CI artifact), so every path goes through the
 * sandbox policy of the tool host (syntax, `.git/` and the deny list
 * on the path as given and on its real path, which must stay inside the root) and must be
 * an article: under the config's docs globs and not ignored, as create_article requires.
 * All or nothing: every file is checked first (its current hash must be the audit's
 * `hashBefore`, and the patch must reproduce `hashAfter`); one bad file refuses the whole
 * apply with a UsageError naming every such file, and nothing is written. Then every file
 * goes to a temp file, and only when all were written are they renamed into place.
 *
 * Three steps: gather what the disk says about each path (sandbox, current bytes), decide
 * (`decideApply`, pure), write.
 */
export async function applyAudit(
  audit: Audit,
  root: string,
  config: ApplyAuditConfig,
  docsRepository?: DocsRepository,
): Promise<ApplyAuditResult> {
  const files = await gatherApplyFiles(audit, root, config, docsRepository);
  return writeApply(
    decideApply(files, docsRepositoryArticles(articleSelector(config), docsRepository?.name)),
  );
}

/**
 * Writes what `decideApply` decided, or refuses with its problems. Each file is written
 * through its directory as checked: a directory on the way replaced by a symlink (or
 * moved) since the check fails the apply (StaleFiles) before any file is renamed into place.
 */
export async function writeApply(decision: ApplyDecision): Promise<ApplyAuditResult> {
  if (decision.problems.length > 0) throw new StaleFiles(decision.problems);
  // Leftovers of an apply that was killed between writing its temp files and renaming them.
  await sweepStaleTempFiles(decision.writes.map((file) => dirname(file.target)));
  try {
    await writeFilesAtomic(
      decision.writes.map((file) => ({
        path: file.target,
        content: file.content,
        realDirectory: dirname(file.target),
      })),
    );
  } catch (error) {
    if (!(error instanceof DirectoryChanged)) throw error;
    const file = decision.writes.find((write) => dirname(write.target) === error.expected);
    throw new StaleFiles([
      `${file?.path ?? error.expected}: refused, a directory on its path was replaced (by a symlink, or moved) after it was checked`,
    ]);
  }
  return { written: decision.writes.map((file) => file.path), alreadyApplied: decision.alreadyApplied };
}

/** What is on disk where a file would be written. */
type CurrentFile =
  | { kind: "file"; bytes: Buffer }
  | { kind: "missing" }
  | { kind: "not_file" }
  | { kind: "parent_not_directory" };

/** One audited file with what the sandbox and the disk say about it. */
export interface ApplyFile {
  article: Audit["articles"][number];
  /** The path its patch's headers name: the path inside a docs repository (default: the article's path). */
  patchPath?: string | undefined;
  /** The sandbox's verdict on the path; when it passed, what is at its real path. */
  check: PathRefusal | { ok: true; resolved: ResolvedPath; current: CurrentFile };
}

/** The files an apply writes (at their real path), or every reason it refuses. */
export interface ApplyDecision {
  problems: string[];
  writes: { path: string; target: string; content: string }[];
  alreadyApplied: string[];
}

/** Reads what `decideApply` needs: the updated articles with a patch, their sandbox check and current bytes. */
export async function gatherApplyFiles(
  audit: Audit,
  root: string,
  config: Pick<ImpactConfig, "deny">,
  docsRepository?: DocsRepository,
): Promise<ApplyFile[]> {
  // An audit of a docs repository writes there only: its articles are `name:PATH`, and with
  // the docs globs matching only those, no path of the code repository passes.
  const sandbox = new SandboxPolicy({
    root,
    deny: config.deny,
    docsRepository,
  });
  const files: ApplyFile[] = [];
  for (const article of audit.articles) {
    if (article.status !== "updated" || article.patch === "") continue;
    const resolved = await sandbox.resolve(article.path);
    const inside = docsRepository && pathInDocsRepository(docsRepository.name, article.path);
    files.push({
      article,
      patchPath: inside,
      check: resolved.ok ? { ok: true, resolved, current: await readCurrent(resolved.realPath) } : resolved,
    });
  }
  return files;
}

/** Decides, without touching the disk, what an apply writes or why it refuses. */
export function decideApply(files: readonly ApplyFile[], isArticle: ArticleSelector): ApplyDecision {
  const decision: ApplyDecision = { problems: [], writes: [], alreadyApplied: [] };
  const seenTargets = new Set<string>();
  for (const { article, check, patchPath } of files) {
    const path = article.path;
    const refuse = (why: string) => decision.problems.push(`${path}: ${why}`);
    if (!check.ok) {
      refuse(refusalReason(check));
      continue;
    }
    const { resolved, current } = check;
    // The write lands at the real path, which a symlink (docs/pkg.md -> ../package.json)
    // or a symlinked directory (docs/code -> ../src) can put outside the docs.
    const refused = writeRefusal(resolved, isArticle);
    if (refused) {
      refuse(
        refused.viaSymlink
          ? `refused, it is a symlink (or under one) to ${resolved.realRelative}, which is not an article`
          : "refused, it is not an article (not under the docs globs, or ignored)",
      );
      continue;
    }
    // A docs repository's patch names the path inside it (`resolved.absolute` is there).
    const headerProblem = patchHeaderProblem(article.patch, patchPath ?? path);
    if (headerProblem) {
      refuse(`refused, ${headerProblem}`);
      continue;
    }
    // Where the write really lands: through a symlink inside the repository, its target.
    const target = resolved.realPath;
    if (seenTargets.has(target)) {
      refuse("refused, the audit names this file more than once");
      continue;
    }
    seenTargets.add(target);
    if (current.kind === "not_file") {
      refuse("it is not a regular file");
      continue;
    }
    if (current.kind === "parent_not_directory") {
      refuse("a directory on its path is a file");
      continue;
    }
    const currentHash = current.kind === "file" ? contentHash(current.bytes) : null;
    if (currentHash !== null && currentHash === article.hashAfter) {
      decision.alreadyApplied.push(path);
      continue;
    }
    if (currentHash !== article.hashBefore) {
      refuse(
        currentHash === null
          ? "it does not exist"
          : article.hashBefore === null
            ? "it exists already"
            : `it changed since the audit (hash ${currentHash}, expected ${article.hashBefore})`,
      );
      continue;
    }
    const after = applyPatch(current.kind === "file" ? current.bytes.toString("utf8") : "", article.patch);
    if (after === false || contentHash(after) !== article.hashAfter) {
      refuse(`its patch does not reproduce the audited content (hash ${article.hashAfter})`);
      continue;
    }
    decision.writes.push({ path, target, content: after });
  }
  return decision;
}

/** The sandbox's refusal in the words of a file list (its messages are written for the model). */
function refusalReason(refusal: PathRefusal): string {
  switch (refusal.code) {
    case "git_dir":
      return refusal.viaSymlink
        ? "refused, it is a symlink (or under one) into .git/"
        : "refused, it is inside .git/";
    case "denied":
      return refusal.viaSymlink
        ? `refused, it is a symlink (or under one) to a file matching the deny pattern "${refusal.pattern}"`
        : `refused, it matches the deny pattern "${refusal.pattern}"`;
    case "outside_root":
    case "symlink_loop":
      return "refused, it is a symlink (or under one) that does not lead to a file inside the repository";
    default:
      return "refused, it is not a path inside the repository";
  }
}

async function readCurrent(path: string): Promise<CurrentFile> {
  try {
    // stat first: reading a FIFO or a device would block or never end.
    if (!(await stat(path)).isFile()) return { kind: "not_file" };
    return { kind: "file", bytes: await readFile(path) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "missing" };
    if (code === "ENOTDIR") return { kind: "parent_not_directory" };
    throw error;
  }
}
