import { z } from "zod";
import { defineToolSpec } from "./spec.js";

export const CreateArticleArgsSchema = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe(
      "Repository-relative path of the new article; must be under the docs globs and must not exist.",
    ),
  content: z.string().min(1).describe("The whole Markdown text of the new article."),
  reason: z.string().min(1).describe("Why the change needs a new article (one sentence)."),
});

export const createArticleSpec = defineToolSpec({
  name: "create_article",
  description:
    "Create a new documentation article when the change adds something no existing article can hold. Only under the docs folders, only for a path that does not exist yet.",
  parameters: CreateArticleArgsSchema,
  readOnly: false,
});
