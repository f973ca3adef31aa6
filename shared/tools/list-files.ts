import { z } from "zod";
import { defineToolSpec } from "./spec.js";

export const ListFilesArgsSchema = z.strictObject({
  glob: z
    .string()
    .min(1)
    .describe('A glob over repository-relative paths, such as "docs/**/*.md" or "src/*".'),
});

export const listFilesSpec = defineToolSpec({
  name: "list_files",
  description:
    "List the repository files whose path matches a glob (files ignored by .gitignore are left out), sorted, up to a cap; the result says when the cap was reached.",
  parameters: ListFilesArgsSchema,
  readOnly: true,
});
