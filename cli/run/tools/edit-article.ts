import { applyEdits, formatEditSuccess } from "../../../shared/edit/engine.js";
import { editKind } from "../../../shared/edit/schema.js";
import { type EditArticleArgs, editArticleSpec } from "../../../shared/tools/edit-article.js";
import { loadCheckedTextFile } from "./common.js";
import { defineTool, fail, succeed, type ToolContext } from "./define.js";

export const editArticleTool = defineTool(editArticleSpec, async (args: EditArticleArgs, context) => {
  const resolved = await context.sandbox.resolve(args.path);
  if (!resolved.ok) return fail(resolved.code, resolved.message);
  if (resolved.path !== context.articlePath)
    return fail(
      "not_article",
      `edit_article can change only the article under work, ${JSON.stringify(context.articlePath)}; ${JSON.stringify(resolved.path)} is another file. Put the change into ${JSON.stringify(context.articlePath)}, or mention the other file in your final message.`,
    );
  const file = await loadCheckedTextFile(context.articlePath, context);
  if (!file.ok) return file;
  const outcome = applyEdits(file.content, args.edits, {
    maxArticleChars: context.limits.articleChars,
    maxGrowthChars: context.limits.editGrowthChars,
    ...(args.expected_hash === undefined ? {} : { expectedHash: args.expected_hash }),
  });
  if (!outcome.ok) return fail(outcome.error.code, outcome.error.message);
  await context.draft.set(outcome.content, context.articlePath);
  for (const applied of outcome.applied) {
    const edit = args.edits[applied.index];
    context.recordEdit({
      kind: edit ? editKind(edit) : applied.kind,
      reason: applied.reason,
      evidence: applied.evidence ?? edit?.evidence ?? [],
      startLine: applied.startLine,
      endLine: applied.endLine,
      toolCallId: context.toolCallId,
      path: context.articlePath,
    });
  }
  if (args.done) context.markDone();
  const notes = evidenceNotes(args, context);
  const doneNote = args.done ? "\nMarked done: the article is finished." : "";
  return succeed(`${formatEditSuccess(context.articlePath, outcome)}${notes}${doneNote}`);
});

/**
 * Evidence must point at the change. A location outside it is kept (the audit shows it)
 * but the model is told, so it can cite the right file.
 */
function evidenceNotes(args: EditArticleArgs, context: ToolContext): string {
  const notes: string[] = [];
  args.edits.forEach((edit, index) => {
    for (const location of edit.evidence ?? []) {
      const file = evidenceFile(location);
      if (!context.changedFiles.has(file))
        notes.push(
          `- Edit ${index}: evidence ${JSON.stringify(location)} names a file that is not part of this change.`,
        );
    }
  });
  if (notes.length === 0) return "";
  const changed = [...context.changedFiles].sort();
  const list = changed.length > 20 ? `${changed.slice(0, 20).join(", ")}, …` : changed.join(", ");
  return `\nNote: the edits were applied, but some evidence is outside the change:\n${notes.join("\n")}\nEvidence should name changed files (${list || "none"}), as "path:line".`;
}

/** The file part of a code location: "src/a.ts:42", "src/a.ts:10-20", "src/a.ts#L42", "./src/a.ts". */
export function evidenceFile(location: string): string {
  return location
    .trim()
    .replace(/#L\d+(-L?\d+)?$/, "")
    .replace(/(:\d+(-\d+)?)+$/, "")
    .replace(/^(\.\/)+/, "");
}
