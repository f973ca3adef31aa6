import { createArticleTool } from "./create-article.js";
import type { Tool } from "./define.js";
import { editArticleTool } from "./edit-article.js";
import { listFilesTool } from "./list-files.js";
import { outlineArticleTool } from "./outline-article.js";
import { readFileTool } from "./read-file.js";
import { searchRepoTool } from "./search-repo.js";

/** The code of every tool, by name; specs and order come from shared/tools/manifest.ts. */
export const TOOLS: ReadonlyMap<string, Tool> = new Map<string, Tool>(
  [readFileTool, outlineArticleTool, searchRepoTool, listFilesTool, editArticleTool, createArticleTool].map(
    (tool) => [tool.spec.name, tool as Tool],
  ),
);
