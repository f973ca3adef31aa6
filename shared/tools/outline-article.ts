import { z } from "zod";
import { defineToolSpec, PATH_DESCRIPTION } from "./spec.js";

export const OutlineArticleArgsSchema = z.strictObject({
  path: z.string().min(1).describe(PATH_DESCRIPTION),
});
export type OutlineArticleArgs = z.infer<typeof OutlineArticleArgsSchema>;

export const outlineArticleSpec = defineToolSpec({
  name: "outline_article",
  description:
    'Show the heading tree of a Markdown file: each section path ("Parent::Child"), its level and its line range, plus the file hash. Use the section paths in edit_article ("section" or "within").',
  parameters: OutlineArticleArgsSchema,
  readOnly: true,
});
