import type { FileView } from "../workspace.js";
import type { ToolContext, ToolFailure } from "./define.js";
import { fail } from "./define.js";
import { resolveReadable } from "./files.js";

/**
 * Resolves a path through the sandbox and loads it as this article sees it (draft,
 * overlay, disk). Only a text file comes back; every other case is a failure that says
 * what to do, and never carries a refused file's content.
 */
export async function loadTextFile(
  asked: string,
  context: ToolContext,
): Promise<{ ok: true; path: string; content: string; hash: string } | ToolFailure> {
  const resolved = await resolveReadable(asked, context);
  if (!resolved.ok) return resolved;
  return loadCheckedTextFile(resolved.path, context);
}

/** `loadTextFile` for a path the sandbox has already passed. */
export async function loadCheckedTextFile(
  path: string,
  context: ToolContext,
): Promise<{ ok: true; path: string; content: string; hash: string } | ToolFailure> {
  // Loading counts against the run's read budget like a search does (a file may be 8 MB).
  const release = await context.workspace.readBudget.acquire(
    context.draft.diskBytesToLoad(path),
    context.signal,
  );
  let view: FileView;
  try {
    view = await context.draft.load(path);
  } finally {
    release();
  }
  const problem = describeUnreadable(path, view);
  if (problem) return problem;
  if (view.kind !== "text") throw new Error("unreachable");
  return { ok: true, path, content: view.content, hash: view.hash };
}

function describeUnreadable(path: string, view: FileView): ToolFailure | null {
  const shown = JSON.stringify(path);
  switch (view.kind) {
    case "text":
      return null;
    case "missing":
      return fail(
        "not_found",
        `${shown} does not exist. Use list_files with a glob (such as "${suggestGlob(path)}") to find the right path.`,
      );
    case "not_file":
      return fail(
        "not_a_file",
        `${shown} is a directory or special file, not a file. Use list_files with "${path === "." ? "*" : `${path}/*`}" to see what it holds.`,
      );
    case "binary":
      return fail("binary", `${shown} is a binary file (${view.bytes} bytes); only text files can be read.`);
    case "hard_link":
      return fail(
        "hard_link",
        `Refused: ${shown} has ${view.links} hard links and is not tracked by git, so it may be a file from outside the repository; it is not read.`,
      );
    case "too_large":
      return fail(
        "too_large",
        `${shown} is too large to load (${view.bytes} bytes). Use search_repo to find the lines you need.`,
      );
  }
}

function suggestGlob(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "*" : `${path.slice(0, slash)}/**`;
}

/** Splits text into lines, each keeping its own terminator ("\n", "\r\n"), so joining gives the text back. */
export function splitLinesKeepingEnds(content: string): string[] {
  return content.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Cuts text to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function cutToBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let cut = Buffer.from(text).subarray(0, maxBytes).toString("utf8");
  // A character split at the cut decodes as U+FFFD; drop it.
  if (cut.endsWith("\uFFFD")) cut = cut.slice(0, -1);
  return cut;
}
