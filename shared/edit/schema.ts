import { z } from "zod";

/**
 * Edit shapes the model sends in `edit_article`. The kind of an
 * edit follows from its fields; `editKind` names it.
 */
const reason = z
  .string()
  .describe("Why this edit is needed, citing the code change it follows from (one sentence).");
const evidence = z
  .array(z.string())
  .optional()
  .describe('Code locations the reason rests on, such as "src/auth.ts:42".');

export const OccurrenceSchema = z.union([
  z.enum(["unique", "all", "first", "last"]),
  z.number().int().positive(),
]);
export type Occurrence = z.infer<typeof OccurrenceSchema>;

export const ReplaceEditSchema = z.strictObject({
  old_string: z
    .string()
    .describe("Exact text to find, character for character, with enough context to be unique."),
  new_string: z.string().describe("The text that replaces it, written out in full."),
  occurrence: OccurrenceSchema.optional().describe(
    'Which match to replace: "unique" (default, exactly one match required), "all", "first", "last", or N (1-based).',
  ),
  within: z
    .string()
    .optional()
    .describe('A section path ("Parent::Child") that narrows the search to one section.'),
  reason,
  evidence,
});

export const SectionEditSchema = z.strictObject({
  section: z.string().describe('Heading text or a "Parent::Child" section path.'),
  mode: z
    .enum(["replace", "append", "prepend"])
    .describe(
      "replace: the body under the heading (heading kept); append: end of section; prepend: after the heading.",
    ),
  content: z.string().describe("The Markdown to put there."),
  reason,
  evidence,
});

export const ChecklistEditSchema = z.strictObject({
  checklist_item: z.string().describe("Text contained in exactly one checklist item."),
  checked: z.boolean(),
  reason,
  evidence,
});

const frontmatterScalar = z.union([z.string(), z.number(), z.boolean()]);
export const FrontmatterValueSchema = z.union([frontmatterScalar, z.array(frontmatterScalar), z.null()]);
export type FrontmatterValue = z.infer<typeof FrontmatterValueSchema>;

export const FrontmatterEditSchema = z.strictObject({
  frontmatter: z
    .record(z.string().min(1), FrontmatterValueSchema)
    .describe(
      "Top-level frontmatter keys to set (a string, number, boolean or list) or, with null, to remove. Other keys, comments and quoting stay as they are; the block is created when missing.",
    ),
  reason,
  evidence,
});

export const EditSchema = z.union([
  ReplaceEditSchema,
  SectionEditSchema,
  ChecklistEditSchema,
  FrontmatterEditSchema,
]);

export type ReplaceEdit = z.infer<typeof ReplaceEditSchema>;
export type SectionEdit = z.infer<typeof SectionEditSchema>;
export type ChecklistEdit = z.infer<typeof ChecklistEditSchema>;
export type FrontmatterEdit = z.infer<typeof FrontmatterEditSchema>;
export type Edit = ReplaceEdit | SectionEdit | ChecklistEdit | FrontmatterEdit;
export type EditKind = TaggedEdit["kind"];

/** An edit together with its kind, so a `switch` on `kind` narrows `edit` without casts. */
export type TaggedEdit =
  | { kind: "replace"; edit: ReplaceEdit }
  | { kind: "section"; edit: SectionEdit }
  | { kind: "checklist"; edit: ChecklistEdit }
  | { kind: "frontmatter"; edit: FrontmatterEdit };

/** The one place that tells an edit's kind from its fields. */
export function tagEdit(edit: Edit): TaggedEdit {
  if ("old_string" in edit) return { kind: "replace", edit };
  if ("section" in edit) return { kind: "section", edit };
  if ("checklist_item" in edit) return { kind: "checklist", edit };
  return { kind: "frontmatter", edit };
}

export function editKind(edit: Edit): EditKind {
  return tagEdit(edit).kind;
}
