import picomatch from "picomatch";
import type { ToolContext } from "./define.js";

/**
 * The files the tools may name: the repository's files (gitignored ones left out), the
 * overlay's and this article's drafts, minus `.git` and the deny list.
 */
export async function visibleFiles(context: ToolContext): Promise<string[]> {
  const files = new Set(await context.workspace.listFiles());
  for (const path of context.draft.paths) files.add(path);
  return [...files].filter((path) => context.sandbox.deniedReason(path) === null).sort();
}

/** Paths whose real path is checked at once. */
const RESOLVE_BATCH = 64;

/**
 * The visible files whose real path passes the sandbox too: a symlink that leads out of
 * the root, into `.git/` or to a denied file is left out, name and all.
 */
export async function sandboxedFiles(paths: string[], context: ToolContext): Promise<string[]> {
  const allowed: string[] = [];
  for (let start = 0; start < paths.length; start += RESOLVE_BATCH) {
    context.signal.throwIfAborted();
    const batch = paths.slice(start, start + RESOLVE_BATCH);
    const checks = await Promise.all(batch.map((path) => context.sandbox.resolve(path)));
    batch.forEach((path, index) => {
      if (checks[index]?.ok) allowed.push(path);
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
