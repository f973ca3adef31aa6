import type { ArticleFormat } from "../../formats/types.js";
import * as messages from "../messages.js";
import type { Edit } from "../schema.js";
import { tagEdit } from "../schema.js";
import type { EditProblem, StepResult } from "../step.js";
import { checklistStep, validateChecklist } from "./checklist.js";
import { frontmatterStep, validateFrontmatter } from "./frontmatter.js";
import { replaceStep, validateReplace } from "./replace.js";
import { sectionStep, validateSection } from "./section.js";

/** Checks one edit on its own (its kind in this format, empty strings, reason, placeholders) before the batch runs. */
export function validateEdit(edit: Edit, article: string, format: ArticleFormat): EditProblem {
  const tagged = tagEdit(edit);
  const unsupported =
    (tagged.kind === "section" && !format.outline) ||
    (tagged.kind === "replace" && tagged.edit.within !== undefined && !format.outline)
      ? tagged.kind === "section"
        ? "section"
        : "within"
      : (tagged.kind === "checklist" && !format.checklists) ||
          (tagged.kind === "frontmatter" && format.metadata.kind !== "yaml")
        ? tagged.kind
        : null;
  if (unsupported)
    return { code: "unsupported_by_format", message: messages.unsupportedByFormat(unsupported, format) };
  switch (tagged.kind) {
    case "replace":
      return validateReplace(tagged.edit, article);
    case "section":
      return validateSection(tagged.edit, article);
    case "checklist":
      return validateChecklist(tagged.edit);
    case "frontmatter":
      return validateFrontmatter(tagged.edit);
  }
}

/** Runs one edit against the content the earlier edits of the batch left. */
export function runStep(content: string, edit: Edit, format: ArticleFormat): StepResult {
  const tagged = tagEdit(edit);
  switch (tagged.kind) {
    case "replace":
      return replaceStep(content, tagged.edit, format);
    case "section":
      return sectionStep(content, tagged.edit, format);
    case "checklist":
      return checklistStep(content, tagged.edit, format);
    case "frontmatter":
      return frontmatterStep(content, tagged.edit);
  }
}
