import { z } from "zod";
import { EditSchema } from "../edit/schema.js";
import { defineToolSpec } from "./spec.js";

export const EditArticleArgsSchema = z.strictObject({
  path: z.string().min(1).describe("The article under work (no other file can be edited)."),
  edits: z
    .array(EditSchema)
    .min(1)
    .describe(
      "Edits applied in order, each to the result of the previous. All or nothing: if one fails, none is applied and the error names it by its 0-based index. The kind of each edit follows from its fields: old_string/new_string (replace), section/mode/content (section), checklist_item/checked (checklist), frontmatter (set or remove top-level frontmatter keys).",
    ),
  expected_hash: z
    .string()
    .optional()
    .describe(
      "The article hash this edit was made against (from read_file or outline_article); the call fails if it changed.",
    ),
  done: z
    .boolean()
    .optional()
    .describe(
      "true when this call finishes the article (saves a round trip); it takes effect only if the call succeeds.",
    ),
});

export const editArticleSpec = defineToolSpec({
  name: "edit_article",
  description:
    'Change the article under work with small, exact, reasoned edits. Every edit needs a reason and may list evidence (code locations such as "src/auth.ts:42" from the change). Success returns each edit\'s new line range with context and the new hash.',
  parameters: EditArticleArgsSchema,
  readOnly: false,
});
