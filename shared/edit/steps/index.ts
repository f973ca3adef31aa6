import type { Edit } from "../schema.js";
import { tagEdit } from "../schema.js";
import type { EditProblem, StepResult } from "../step.js";
import { checklistStep, validateChecklist } from "./checklist.js";
import { frontmatterStep, validateFrontmatter } from "./frontmatter.js";
import { replaceStep, validateReplace } from "./replace.js";
import { sectionStep, validateSection } from "./section.js";

/** Checks one edit on its own (empty strings, reason, placeholders) before the batch runs. */
export function validateEdit(edit: Edit, article: string): EditProblem {
  const tagged = tagEdit(edit);
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
export function runStep(content: string, edit: Edit): StepResult {
  const tagged = tagEdit(edit);
  switch (tagged.kind) {
    case "replace":
      return replaceStep(content, tagged.edit);
    case "section":
      return sectionStep(content, tagged.edit);
    case "checklist":
      return checklistStep(content, tagged.edit);
    case "frontmatter":
      return frontmatterStep(content, tagged.edit);
  }
}
