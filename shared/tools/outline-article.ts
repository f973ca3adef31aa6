import { z } from "zod";
import { defineToolSpec, PATH_DESCRIPTION } from "./spec.js";

export const OutlineArticleArgsSchema = z.strictObject({
  path: z.string().min(1).describe(PATH_DESCRIPTION),
});

export const outlineArticleSpec = defineToolSpec({
  name: "outline_article",
  description:
    'Show the heading tree of an article (Markdown, MDX, reStructuredText, AsciiDoc): each section path ("Parent::Child"), its level and its line range, plus the file hash. Use the section paths in edit_article ("section" or "within"). On a code file (TS/JS, Python, Go, Rust, Java, Ruby, C#, PHP) it lists the declarations instead (classes, functions, methods, constants) with "Parent::child" paths and line ranges; read one with read_file {path, symbol}.',
  parameters: OutlineArticleArgsSchema,
  readOnly: true,
});
