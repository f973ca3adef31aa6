import { formatPatch, type StructuredPatch, structuredPatch } from "diff";

const CONTEXT_LINES = 3;

/**
 * A git-style unified diff for one file (`diff --git a/… b/…`), "" when nothing changed.
 * `before: null` is a new file, `after: null` a deleted one. The patch applies with
 * `git apply` to the base tree: CRLF and mixed line endings travel inside the lines, a
 * missing final newline gets its `\ No newline at end of file` marker, a BOM is just the
 * first character of line 1.
 */
export function createFilePatch(path: string, before: string | null, after: string | null): string {
  if (before === after) return "";
  if (before === null && after === null) return "";
  const patch: StructuredPatch = structuredPatch(
    `a/${path}`,
    `b/${path}`,
    before ?? "",
    after ?? "",
    undefined,
    undefined,
    { context: CONTEXT_LINES },
  );
  patch.isGit = true;
  if (before === null) {
    patch.isCreate = true;
    patch.newMode = "100644";
    patch.oldFileName = "/dev/null";
  } else if (after === null) {
    patch.isDelete = true;
    patch.oldMode = "100644";
    patch.newFileName = "/dev/null";
  }
  return formatPatch(patch);
}
