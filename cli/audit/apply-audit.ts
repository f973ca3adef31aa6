import { readFile, realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative } from "node:path";
import { applyPatch } from "diff";
import type { Audit } from "../../shared/audit.js";
import { UsageError } from "../../shared/errors.js";
import { contentHash } from "../../shared/hash.js";
import { writeFilesAtomic } from "../fs.js";

/** Some files cannot take their patch (changed since, or outside the repository); nothing was written. */
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

/**
 * Writes an audit's article patches to the working tree at `root` (`impact apply`).
 * All or nothing: every file is checked first (its current hash must be the audit's
 * `hashBefore`, and the patch must reproduce `hashAfter`); one bad file refuses the whole
 * apply with a UsageError naming every such file, and nothing is written. Then every file
 * goes to a temp file, and only when all were written are they renamed into place.
 */
export async function applyAudit(audit: Audit, root: string): Promise<ApplyAuditResult> {
  const realRoot = await realpath(root);
  const problems: string[] = [];
  const planned: { path: string; target: string; content: string }[] = [];
  const alreadyApplied: string[] = [];
  for (const article of audit.articles) {
    if (article.status !== "updated" || article.patch === "") continue;
    const path = article.path;
    const target = await safeTarget(realRoot, path);
    if (target === null) {
      problems.push(`${path}: not a path inside the repository`);
      continue;
    }
    const current = await readOrNull(target);
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
  await writeFilesAtomic(planned.map((file) => ({ path: file.target, content: file.content })));
  return { written: planned.map((file) => file.path), alreadyApplied };
}

/**
 * The absolute path for a repository-relative one from an untrusted audit, or null when
 * it leaves the repository (`..`, absolute, `.git/`, or a symlink pointing outside).
 */
async function safeTarget(realRoot: string, path: string): Promise<string | null> {
  if (path === "" || isAbsolute(path) || path.includes("\0") || path.includes("\\")) return null;
  const segments = path.split("/");
  if (
    segments.some((segment) => segment === ".." || segment === "." || segment === "") ||
    segments[0] === ".git"
  ) {
    return null;
  }
  const target = join(realRoot, path);
  // Follow symlinks of the deepest part of the path that exists.
  let existing = target;
  for (;;) {
    const real = await realpath(existing).catch(() => null);
    if (real !== null) {
      if (!isInside(realRoot, real)) return null;
      return existing === target ? real : target;
    }
    const parent = dirname(existing);
    if (parent === existing) return null;
    existing = parent;
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
