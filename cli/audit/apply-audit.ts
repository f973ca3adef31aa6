import { readFile, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { applyPatch } from "diff";
import picomatch from "picomatch";
import type { Audit } from "../../shared/audit.js";
import type { ImpactConfig } from "../../shared/config.js";
import { UsageError } from "../../shared/errors.js";
import { sweepStaleTempFiles, writeFilesAtomic } from "../../shared/fs.js";
import { contentHash } from "../../shared/hash.js";
import { patchHeaderProblem } from "../../shared/patch.js";
import { type PathRefusal, SandboxPolicy } from "../run/sandbox.js";

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
 */
export async function applyAudit(
  audit: Audit,
  root: string,
  config: ApplyAuditConfig,
): Promise<ApplyAuditResult> {
  const sandbox = new SandboxPolicy({ root, deny: config.deny });
  const isArticle = articlePredicate(config);
  const problems: string[] = [];
  const planned: { path: string; target: string; content: string }[] = [];
  const alreadyApplied: string[] = [];
  const seenTargets = new Set<string>();
  for (const article of audit.articles) {
    if (article.status !== "updated" || article.patch === "") continue;
    const path = article.path;
    const resolved = await sandbox.resolve(path);
    if (!resolved.ok) {
      problems.push(`${path}: ${refusalReason(resolved)}`);
      continue;
    }
    if (!isArticle(resolved.path)) {
      problems.push(`${path}: refused, it is not an article (not under the docs globs, or ignored)`);
      continue;
    }
    // The write lands at the real path, which a symlink (docs/pkg.md -> ../package.json)
    // or a symlinked directory (docs/code -> ../src) can put outside the docs.
    if (!isArticle(resolved.realRelative)) {
      problems.push(
        `${path}: refused, it is a symlink (or under one) to ${resolved.realRelative}, which is not an article`,
      );
      continue;
    }
    const headerProblem = patchHeaderProblem(article.patch, path);
    if (headerProblem) {
      problems.push(`${path}: refused, ${headerProblem}`);
      continue;
    }
    // Where the write really lands: through a symlink inside the repository, its target.
    const target = resolved.realPath;
    if (seenTargets.has(target)) {
      problems.push(`${path}: refused, the audit names this file more than once`);
      continue;
    }
    seenTargets.add(target);
    const current = await readOrNull(target);
    if (typeof current === "string") {
      problems.push(`${path}: ${current}`);
      continue;
    }
    const currentHash = current === null ? null : contentHash(current);
    if (currentHash !== null && currentHash === article.hashAfter) {
      alreadyApplied.push(path);
      continue;
    }
    if (currentHash !== article.hashBefore) {
      problems.push(
        `${path}: ${
          current === null
            ? "it does not exist"
            : article.hashBefore === null
              ? "it exists already"
              : `it changed since the audit (hash ${currentHash}, expected ${article.hashBefore})`
        }`,
      );
      continue;
    }
    const after = applyPatch(current?.toString("utf8") ?? "", article.patch);
    if (after === false || contentHash(after) !== article.hashAfter) {
      problems.push(`${path}: its patch does not reproduce the audited content (hash ${article.hashAfter})`);
      continue;
    }
    planned.push({ path, target, content: after });
  }
  if (problems.length > 0) throw new StaleFiles(problems);
  // Leftovers of an apply that was killed between writing its temp files and renaming them.
  await sweepStaleTempFiles([...seenTargets].map((target) => dirname(target)));
  await writeFilesAtomic(planned.map((file) => ({ path: file.target, content: file.content })));
  return { written: planned.map((file) => file.path), alreadyApplied };
}

/** docs globs minus ignore globs, with dot files allowed as the tool host allows them. */
function articlePredicate(config: ApplyAuditConfig): (path: string) => boolean {
  const docs = picomatch(config.docs, { dot: true });
  const ignored = config.ignore.length > 0 ? picomatch(config.ignore, { dot: true }) : () => false;
  return (path) => docs(path) && !ignored(path);
}

/** The sandbox's refusal in the words of a file list (its messages are written for the model). */
function refusalReason(refusal: PathRefusal): string {
  switch (refusal.code) {
    case "git_dir":
      return refusal.message.includes("is a symlink to")
        ? "refused, it is a symlink (or under one) into .git/"
        : "refused, it is inside .git/";
    case "denied": {
      const pattern = /deny pattern ("[^"]*")/.exec(refusal.message)?.[1] ?? "";
      return refusal.message.includes("is a symlink to")
        ? `refused, it is a symlink (or under one) to a file matching the deny pattern ${pattern}`
        : `refused, it matches the deny pattern ${pattern}`;
    }
    case "outside_root":
    case "symlink_loop":
      return "refused, it is a symlink (or under one) that does not lead to a file inside the repository";
    default:
      return "refused, it is not a path inside the repository";
  }
}

/** The file's bytes, null when it does not exist, or why it cannot be a file. */
async function readOrNull(path: string): Promise<Buffer | null | string> {
  try {
    // stat first: reading a FIFO or a device would block or never end.
    if (!(await stat(path)).isFile()) return "it is not a regular file";
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ENOTDIR") return "a directory on its path is a file";
    throw error;
  }
}
