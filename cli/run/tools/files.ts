import { lstatSync } from "node:fs";
import picomatch from "picomatch";
import type { ResolvedPath, SandboxPolicy } from "../sandbox.js";
import type { Workspace } from "../workspace.js";
import { fail, type ToolContext, type ToolFailure } from "./define.js";

/**
 * The files the tools may name, sorted: the repository's files (gitignored ones left out),
 * the overlay's and this article's drafts, minus `.git` and the deny list. The repository
 * part is filtered once per run; each call only merges in the few overlay and draft paths.
 */
export function visibleFiles(context: ToolContext): Promise<readonly string[]> {
  return visibleIn(context.sandbox, context.workspace, context.draft.paths);
}

/** visibleFiles for any entry point: a workspace, the sandbox, and the paths drafted besides the overlay. */
async function visibleIn(
  sandbox: SandboxPolicy,
  workspace: Workspace,
  drafted: readonly string[],
): Promise<readonly string[]> {
  const allowed = (path: string) => sandbox.deniedReason(path) === null;
  const repository = await workspace.repositoryFiles(JSON.stringify(sandbox.denyPatterns), allowed);
  const extra = [...new Set([...workspace.overlayPaths, ...drafted])]
    .filter((path) => !includesSorted(repository, path) && allowed(path))
    .sort();
  return extra.length === 0 ? repository : mergeSorted(repository, extra);
}

/** Binary search in a list sorted by code units (Array.prototype.sort's order). */
function includesSorted(sorted: readonly string[], path: string): boolean {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < path) low = middle + 1;
    else high = middle;
  }
  return sorted[low] === path;
}

/** Two sorted lists without common entries, merged into one. */
function mergeSorted(left: readonly string[], right: readonly string[]): string[] {
  const merged: string[] = [];
  let leftIndex = 0;
  let rightIndex = 0;
  while (leftIndex < left.length && rightIndex < right.length)
    merged.push(left[leftIndex]! < right[rightIndex]! ? left[leftIndex++]! : right[rightIndex++]!);
  while (leftIndex < left.length) merged.push(left[leftIndex++]!);
  while (rightIndex < right.length) merged.push(right[rightIndex++]!);
  return merged;
}

/**
 * Resolves a path through the sandbox for reading, and refuses a file the repository does
 * not list: git-ignored (`creds/service-account.json`), unless config `readIgnored` allows
 * it. The real path is what must be listed, so a tracked symlink to an ignored file is
 * refused too. Paths that are not regular files pass on (the caller says what they are).
 */
export function resolveReadable(asked: string, context: ToolContext): Promise<ResolvedPath | ToolFailure> {
  return resolveReadableIn(asked, context.sandbox, context.workspace, context.draft.paths);
}

/**
 * The read policy of every entry point (the agent's tools, `impact mcp`, `impact edit`):
 * the sandbox on the path as asked and on its real path, then the repository's listing, so
 * a git-ignored file (or a symlink to one) is refused unless config `readIgnored` allows it.
 */
export async function resolveReadableIn(
  asked: string,
  sandbox: SandboxPolicy,
  workspace: Workspace,
  drafted: readonly string[] = [],
): Promise<ResolvedPath | ToolFailure> {
  const resolved = await sandbox.resolve(asked);
  if (!resolved.ok) return fail(resolved.code, resolved.message);
  return readableRefusal(resolved, await visibleIn(sandbox, workspace, drafted)) ?? resolved;
}

/** `resolveReadable`'s listing check on a path the sandbox passed; `visible` as visibleFiles gives it. */
export function readableRefusal(resolved: ResolvedPath, visible: readonly string[]): ToolFailure | null {
  if (resolved.realRelative === "" || includesSorted(visible, resolved.realRelative)) return null;
  // A created file lives in the overlay or the draft only, under the path as asked.
  if (resolved.path === resolved.realRelative && includesSorted(visible, resolved.path)) return null;
  let regularFile: boolean;
  try {
    regularFile = lstatSync(resolved.realPath).isFile();
  } catch {
    regularFile = false;
  }
  if (!regularFile) return null;
  const shown = JSON.stringify(resolved.path);
  const via =
    resolved.path === resolved.realRelative ? "" : ` (a symlink to ${JSON.stringify(resolved.realRelative)})`;
  return fail(
    "ignored",
    `Refused: ${shown}${via} is ignored by git (.gitignore or .git/info/exclude), and ignored files are not read; they often hold local secrets. Use the repository's own files; a maintainer can allow such files with "readIgnored" in impact.config.json.`,
  );
}

/** Paths whose real path is checked at once. */
const RESOLVE_BATCH = 64;

/**
 * The visible files whose real path passes the sandbox too: a symlink that leads out of
 * the root, into `.git/` or to a denied file is left out, name and all.
 */
export async function sandboxedFiles(paths: string[], context: ToolContext): Promise<string[]> {
  const visible = await visibleFiles(context);
  const allowed: string[] = [];
  for (let start = 0; start < paths.length; start += RESOLVE_BATCH) {
    context.signal.throwIfAborted();
    const batch = paths.slice(start, start + RESOLVE_BATCH);
    const checks = await Promise.all(batch.map((path) => context.sandbox.resolve(path)));
    batch.forEach((path, index) => {
      const check = checks[index];
      if (check?.ok && readableRefusal(check, visible) === null) allowed.push(path);
    });
  }
  return allowed;
}

/** A glob the model wrote, checked like a path: repository-relative, no escapes. */
export function checkGlob(
  glob: string,
): { ok: true; match: (path: string) => boolean } | { ok: false; message: string } {
  const shown = JSON.stringify(glob);
  if (glob.includes("\0") || glob.includes("\\"))
    return {
      ok: false,
      message: `The glob ${shown} contains a NUL byte or a backslash; use forward slashes.`,
    };
  if (glob.startsWith("/") || glob.startsWith("~") || /^[a-zA-Z]:/.test(glob))
    return {
      ok: false,
      message: `The glob ${shown} is absolute; globs match repository-relative paths, such as "docs/**/*.md".`,
    };
  if (glob.split("/").some((segment) => segment === ".."))
    return {
      ok: false,
      message: `The glob ${shown} contains ".."; only files inside the repository can be listed.`,
    };
  const pattern = glob.replace(/^(\.\/)+/, "");
  const matcher = picomatch(pattern, { dot: true });
  // One argument only: picomatch's second parameter returns an object (truthy) when set,
  // which Array.filter would pass as the index.
  return { ok: true, match: (path: string) => matcher(path) };
}
