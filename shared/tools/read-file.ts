import { z } from "zod";
import { defineToolSpec, PATH_DESCRIPTION } from "./spec.js";

export const ReadFileArgsSchema = z.strictObject({
  path: z.string().min(1).describe(PATH_DESCRIPTION),
  offset: z.number().int().positive().optional().describe("First line to return (1-based). Default 1."),
  limit: z.number().int().positive().optional().describe("How many lines to return. Default: one page."),
  symbol: z
    .string()
    .min(1)
    .optional()
    .describe(
      'A declaration of a code file, as outline_article lists it ("Client::fetch", or a bare name when unique): returns just its lines, doc comment and decorators included. On an article, a section path ("Usage::Options") returns that section. Not with offset or limit.',
    ),
});

export const readFileSpec = defineToolSpec({
  name: "read_file",
  description:
    "Read a text file of the repository. Returns one header line (path, line range, total lines, hash) and then the raw text of those lines, without line-number prefixes, so it can be copied exactly into edit_article. Large files come in pages; the result says which offset to ask for next. On a code file, `symbol` returns one declaration instead of the whole file; on an article, one section.",
  parameters: ReadFileArgsSchema,
  readOnly: true,
});
