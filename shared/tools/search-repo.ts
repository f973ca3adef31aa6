import { z } from "zod";
import { defineToolSpec } from "./spec.js";

export const SearchRepoArgsSchema = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe("Text to look for (literal, case-sensitive), or a regex when regex is true."),
  glob: z
    .string()
    .min(1)
    .optional()
    .describe('Only search files whose repository-relative path matches this glob, such as "src/**/*.ts".'),
  regex: z
    .boolean()
    .optional()
    .describe("Treat pattern as a JavaScript regular expression. Default false (literal text)."),
});

export const searchRepoSpec = defineToolSpec({
  name: "search_repo",
  description:
    'Search the text files of the repository (files ignored by .gitignore are skipped). Returns "path:line: text" for each matching line, up to a cap; the result says when the cap was reached.',
  parameters: SearchRepoArgsSchema,
  readOnly: true,
});
