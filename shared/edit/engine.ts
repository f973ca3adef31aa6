import { markdownFormat } from "../formats/markdown.js";
import type { ArticleFormat } from "../formats/types.js";
import { contentHash } from "../hash.js";
import { DEFAULT_ARTICLE_CHARS, DEFAULT_EDIT_GROWTH_CHARS } from "../limits.js";
import { LineIndex } from "../markdown/lines.js";
import { structureProblem } from "./checks.js";
import { editContext } from "./context.js";
import { guardProblem } from "./guards.js";
import * as messages from "./messages.js";
import { type Edit, editKind, tagEdit } from "./schema.js";
import { applyChanges, type Change, type Range } from "./step.js";
import { runStep, validateEdit } from "./steps/index.js";
import type { AppliedEdit, ApplyEditsOptions, EditErrorCode, EditOutcome } from "./types.js";

export { formatEditSuccess } from "./messages.js";

/**
 * Applies a batch of edits to an article (`edit_article`, docs/edits.md). Pure: the
 * edits apply in order, each to the result of the previous; if any fails, the outcome is
 * that one error (naming the edit by its 0-based index) and nothing is applied.
 */
export function applyEdits(content: string, edits: Edit[], options: ApplyEditsOptions = {}): EditOutcome {
  const hashBefore = contentHash(content);
  const format = options.format ?? markdownFormat;
  if (options.expectedHash !== undefined && options.expectedHash !== hashBefore)
    return fail("hash_mismatch", null, messages.hashMismatch(options.expectedHash, hashBefore));
  for (const [index, edit] of edits.entries()) {
    const problem = validateEdit(edit, content, format);
    if (problem) return fail(problem.code, index, problem.message);
  }

  let current = content;
  const ranges: Range[] = [];
  const notes = new Map<number, string>();
  const maxArticle = options.maxArticleChars ?? DEFAULT_ARTICLE_CHARS;
  const maxGrowth = options.maxGrowthChars ?? DEFAULT_EDIT_GROWTH_CHARS;
  for (const [index, edit] of edits.entries()) {
    const step = runStep(current, edit, format);
    if (!step.ok) {
      const consumed = step.code === "not_found" ? consumedBy(content, edits, index, format) : null;
      if (consumed) return fail("consumed_by_earlier_edit", index, consumed);
      const note = index > 0 && step.citesLines ? messages.linesAfterEarlierEdits(index) : "";
      return fail(step.code, index, `${step.message}${note}`);
    }
    // Sized before the text is built: `occurrence: "all"` chains grow an article
    // exponentially, and one batch must not exhaust memory.
    const size = sizeAfter(current, step.changes);
    if (size > current.length && size > maxArticle)
      return fail("too_large", index, messages.articleTooLarge(size, maxArticle));
    if (size - content.length > maxGrowth)
      return fail("too_large", index, messages.batchTooLarge(size - content.length, maxGrowth));
    current = applyChanges(current, step.changes, ranges, index);
    if (step.note) notes.set(index, step.note);
  }

  // After-edit checks: what the batch broke that was sound before it.
  const { guard } = options;
  const check = (after: string) =>
    structureProblem(content, after, format) ?? (guard ? guardProblem(content, after, guard, format) : null);
  const problem = check(current);
  if (problem) {
    // Replay to name the first edit after which the problem shows.
    let replay = content;
    let culprit = { index: edits.length - 1, problem };
    for (const [index, edit] of edits.entries()) {
      const step = runStep(replay, edit, format);
      if (!step.ok) break;
      replay = applyChanges(replay, step.changes, [], index);
      const early = check(replay);
      if (early?.code === problem.code) {
        culprit = { index, problem: early };
        break;
      }
    }
    return fail(culprit.problem.code, culprit.index, culprit.problem.message);
  }

  const lines = new LineIndex(current);
  const applied = ranges.map((range): AppliedEdit => {
    const edit = edits[range.index]!;
    const startLine = lines.lineAt(range.start);
    const endLine = range.end > range.start ? lines.lineAt(range.end - 1) : startLine;
    const appliedEdit: AppliedEdit = {
      index: range.index,
      kind: editKind(edit),
      reason: edit.reason,
      startLine,
      endLine,
      context: editContext(lines, startLine, endLine),
    };
    if (edit.evidence && edit.evidence.length > 0) appliedEdit.evidence = edit.evidence;
    const note = notes.get(range.index);
    if (note) appliedEdit.note = note;
    return appliedEdit;
  });
  return { ok: true, content: current, hashBefore, hash: contentHash(current), applied };
}

function fail(code: EditErrorCode, index: number | null, message: string): EditOutcome {
  return {
    ok: false,
    error: { code, index, message: index === null ? message : messages.editFailure(index, message) },
  };
}

/** When edit `index` failed to find its text: the message if an earlier edit of the batch removed it. */
function consumedBy(original: string, edits: Edit[], index: number, format: ArticleFormat): string | null {
  const edit = edits[index];
  const tagged = edit && tagEdit(edit);
  if (index === 0 || !tagged || tagged.kind !== "replace") return null;
  const old = tagged.edit.old_string;
  const was = original.indexOf(old);
  if (was === -1) return null;
  let replay = original;
  for (let earlier = 0; earlier < index; earlier++) {
    const step = runStep(replay, edits[earlier]!, format);
    if (!step.ok) return null;
    replay = applyChanges(replay, step.changes, [], earlier);
    if (!replay.includes(old))
      return messages.consumedByEarlierEdit(earlier, new LineIndex(original).lineAt(was));
  }
  return null;
}

/** The article's length after a step's changes, known before the text is built. */
function sizeAfter(content: string, changes: Change[]): number {
  let size = content.length;
  for (const change of changes) size += change.text.length - (change.end - change.start);
  return size;
}
