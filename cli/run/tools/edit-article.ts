import { applyEdits, formatEditSuccess } from "../../../shared/edit/engine.js";
import { editKind } from "../../../shared/edit/schema.js";
import { articleFormat } from "../../../shared/formats/index.js";
import { editArticleSpec } from "../../../shared/tools/edit-article.js";
import type { ToolArgs } from "../../../shared/tools/spec.js";
import { writeRefusal } from "../sandbox.js";
import { loadCheckedTextFile, splitLinesKeepingEnds } from "./common.js";
import { defineTool, fail, succeed, type ToolContext } from "./define.js";
import { resolveReadable } from "./files.js";

export const editArticleTool = defineTool(editArticleSpec, async (args, context) => {
  // The read policy first: a git-ignored file (or a symlink to one) is neither read nor quoted.
  const resolved = await resolveReadable(args.path, context);
  if (!resolved.ok) return resolved;
  if (resolved.path !== context.articlePath)
    return fail(
      "not_article",
      `edit_article can change only the article under work, ${JSON.stringify(context.articlePath)}; ${JSON.stringify(resolved.path)} is another file. Put the change into ${JSON.stringify(context.articlePath)}, or mention the other file in your final message.`,
    );
  // The write guard: the edit lands at the real path, which must be an article too.
  if (writeRefusal(resolved, context.isArticlePath)?.viaSymlink)
    return fail(
      "not_docs",
      `${JSON.stringify(resolved.path)} is a symlink (or under one) to ${JSON.stringify(resolved.realRelative)}, which is not under the docs globs, so it cannot be edited. Mention the change in your final message instead.`,
    );
  const file = await loadCheckedTextFile(context.articlePath, context);
  if (!file.ok) return file;
  const outcome = applyEdits(file.content, args.edits, {
    expectedHash: args.expected_hash,
    maxArticleChars: context.limits.articleChars,
    maxGrowthChars: context.limits.editGrowthChars,
    format: articleFormat(context.articlePath),
    guard: {
      articlePath: context.articlePath,
      // Listing the repository costs; only a batch that may add a link needs it.
      // (Markdown links and definitions, reST :doc: roles.)
      ...(JSON.stringify(args.edits).match(/\]\(|\]:|:doc:/)
        ? { pathExists: await repositoryPaths(context) }
        : {}),
      requiredSections: context.template.requiredSections,
      requiredFrontmatter: context.template.requiredFrontmatter,
    },
  });
  if (!outcome.ok) return fail(outcome.error.code, outcome.error.message);
  await context.draft.set(outcome.content, context.articlePath);
  const missing = await missingEvidence(args, context);
  for (const applied of outcome.applied) {
    const edit = args.edits[applied.index];
    const evidence = applied.evidence ?? edit?.evidence ?? [];
    context.recordEdit({
      kind: edit ? editKind(edit) : applied.kind,
      reason: applied.reason,
      evidence: evidence.filter((location) => !missing.has(location)),
      startLine: applied.startLine,
      endLine: applied.endLine,
      toolCallId: context.toolCallId,
      path: context.articlePath,
      request: edit,
    });
  }
  if (args.done) context.markDone();
  const notes = evidenceNotes(args, context, missing);
  const styleNote = context.styleCheck
    ? await context.styleCheck.check(context.articlePath, outcome.content, outcome.applied, context.signal)
    : "";
  const doneNote = args.done ? "\nMarked done: the article is finished." : "";
  return succeed(`${formatEditSuccess(context.articlePath, outcome)}${notes}${styleNote}${doneNote}`);
});

/**
 * Evidence must point at the change. A location outside it is kept (the audit shows it)
 * but the model is told, so it can cite the right file.
 */
function evidenceNotes(
  args: ToolArgs<typeof editArticleSpec>,
  context: ToolContext,
  missing: Map<string, string>,
): string {
  // Without a change (impact mcp, impact edit) only evidence missing at head is reported.
  const changedFiles = context.changedFiles;
  const dropped: string[] = [];
  const notes: string[] = [];
  args.edits.forEach((edit, index) => {
    for (const location of edit.evidence ?? []) {
      const why = missing.get(location);
      if (why) {
        dropped.push(
          `- Edit ${index}: evidence ${JSON.stringify(location)} ${why}; it was left out of the audit.`,
        );
        continue;
      }
      const file = evidenceFile(location);
      if (changedFiles && !changedFiles.has(file))
        notes.push(
          `- Edit ${index}: evidence ${JSON.stringify(location)} names a file that is not part of this change.`,
        );
    }
  });
  const droppedNote =
    dropped.length === 0
      ? ""
      : `\nNote: some evidence does not exist at head:\n${dropped.join("\n")}\nCite "path:line" locations that exist (read_file shows the lines).`;
  if (notes.length === 0 || !changedFiles) return droppedNote;
  const changed = [...changedFiles].sort();
  const list = changed.length > 20 ? `${changed.slice(0, 20).join(", ")}, …` : changed.join(", ");
  return `${droppedNote}\nNote: the edits were applied, but some evidence is outside the change:\n${notes.join("\n")}\nEvidence should name changed files (${list || "none"}), as "path:line".`;
}

/** The file part of a code location: "src/a.ts:42", "src/a.ts:10-20", "src/a.ts#L42", "./src/a.ts". */
export function evidenceFile(location: string): string {
  return location
    .trim()
    .replace(/#L\d+(-L?\d+)?$/, "")
    .replace(/(:\d+(-\d+)?)+$/, "")
    .replace(/^(\.\/)+/, "");
}

/** Whether a path is a file or folder of the repository at head (the overlay included). */
async function repositoryPaths(context: ToolContext): Promise<(path: string) => boolean> {
  const files = await context.workspace.listFiles();
  const known = new Set(files);
  for (const draftPath of context.draft.paths) known.add(draftPath);
  for (const file of files) {
    for (let slash = file.indexOf("/"); slash > 0; slash = file.indexOf("/", slash + 1)) {
      known.add(file.slice(0, slash));
    }
  }
  return (path) => known.has(path.replace(/\/+$/, ""));
}

/**
 * Evidence locations that do not exist at head, each with why: a file that is missing, or a
 * line past its end. They are reported to the model and left out of the audit.
 */
async function missingEvidence(
  args: ToolArgs<typeof editArticleSpec>,
  context: ToolContext,
): Promise<Map<string, string>> {
  const missing = new Map<string, string>();
  for (const location of new Set(args.edits.flatMap((edit) => edit.evidence ?? []))) {
    const file = evidenceFile(location);
    // Read as the read tools read: a denied or git-ignored file is no evidence, and its
    // line count is not revealed either.
    const resolved = await resolveReadable(file, context);
    if (!resolved.ok) {
      missing.set(location, `names ${JSON.stringify(file)}, which the tools may not read`);
      continue;
    }
    const view = await context.draft.load(resolved.path);
    if (view.kind === "missing" || view.kind === "not_file") {
      missing.set(location, `names ${JSON.stringify(file)}, which does not exist`);
      continue;
    }
    const line = evidenceLine(location);
    if (line !== undefined && view.kind === "text") {
      const lineCount = splitLinesKeepingEnds(view.content).length;
      if (line > lineCount) missing.set(location, `names line ${line}, but ${file} has ${lineCount} lines`);
    }
  }
  return missing;
}

/** The first line a code location names ("src/a.ts:42", "src/a.ts:10-20", "src/a.ts#L42"), if any. */
function evidenceLine(location: string): number | undefined {
  const match = /(?::(\d+)(?:-\d+)?|#L(\d+)(?:-L?\d+)?)$/.exec(location.trim());
  const line = match ? Number(match[1] ?? match[2]) : undefined;
  return line !== undefined && line > 0 ? line : undefined;
}
