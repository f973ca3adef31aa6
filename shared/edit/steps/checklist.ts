import type { ArticleFormat } from "../../formats/types.js";
import { LineIndex } from "../../markdown/lines.js";
import * as messages from "../messages.js";
import type { ChecklistEdit } from "../schema.js";
import { type EditProblem, reasonProblem, type StepResult } from "../step.js";

interface ChecklistItem {
  /** Offset of the character inside the brackets. */
  box: number;
  checked: boolean;
  text: string;
}

const CHECKLIST_ITEM = /^[ \t]*(?:>[ \t]*)*(?:[-*+]|\d{1,9}[.)])[ \t]+\[([ xX])\](?=[ \t]|\r?$)(.*)$/gm;

export function validateChecklist(edit: ChecklistEdit): EditProblem {
  const reason = reasonProblem(edit);
  if (reason) return reason;
  if (edit.checklist_item.trim().length === 0)
    return { code: "checklist_item_not_found", message: messages.emptyChecklistItem };
  return null;
}

/** Sets `- [ ]` / `- [x]` on the one checklist item (outside code fences) whose text contains checklist_item. */
export function checklistStep(content: string, edit: ChecklistEdit, format: ArticleFormat): StepResult {
  const items = checklistItems(content, format);
  const wanted = edit.checklist_item.trim();
  let matches = items.filter((item) => item.text.includes(wanted));
  if (matches.length === 0) {
    const lower = wanted.toLowerCase();
    matches = items.filter((item) => item.text.toLowerCase().includes(lower));
  }
  const lines = new LineIndex(content);
  const seen = (item: ChecklistItem): messages.ChecklistItemSeen => ({
    line: lines.lineAt(item.box),
    checked: item.checked,
    text: item.text,
  });
  if (matches.length === 0) {
    return {
      ok: false,
      code: "checklist_item_not_found",
      message: messages.checklistItemNotFound(wanted, items.map(seen)),
      citesLines: items.length > 0,
    };
  }
  if (matches.length > 1) {
    return {
      ok: false,
      code: "checklist_item_ambiguous",
      message: messages.checklistItemAmbiguous(wanted, matches.map(seen)),
      citesLines: true,
    };
  }
  const item = matches[0]!;
  if (item.checked === edit.checked) {
    return {
      ok: false,
      code: "already_applied",
      message: messages.checklistItemAlreadySet(seen(item), edit.checked),
      citesLines: true,
    };
  }
  return { ok: true, changes: [{ start: item.box, end: item.box + 1, text: edit.checked ? "x" : " " }] };
}

function checklistItems(content: string, format: ArticleFormat): ChecklistItem[] {
  // Items in code (fences; MDX: JSX and ESM too) do not count.
  const fenced = format.opaque(content);
  const items: ChecklistItem[] = [];
  for (const match of content.matchAll(CHECKLIST_ITEM)) {
    const start = match.index;
    if (fenced.some(([from, to]) => start >= from && start < to)) continue;
    items.push({
      box: start + match[0].indexOf("[") + 1,
      checked: match[1] !== " ",
      text: match[2]!.replace(/\r$/, "").trim(),
    });
  }
  return items;
}
