import type { ToolName, ToolSpecNamed } from "../../../shared/tools/manifest.js";
import { createArticleTool } from "./create-article.js";
import type { Tool } from "./define.js";
import { editArticleTool } from "./edit-article.js";
import { listFilesTool } from "./list-files.js";
import { outlineArticleTool } from "./outline-article.js";
import { readFileTool } from "./read-file.js";
import { searchRepoTool } from "./search-repo.js";

/**
 * The code of every tool, by name; specs and order come from shared/tools/manifest.ts.
 * Typed by the specs: a name missing here, or code for another tool's spec, does not compile.
 */
export const TOOLS: { readonly [Name in ToolName]: Tool<ToolSpecNamed<Name>> } = {
  read_file: readFileTool,
  outline_article: outlineArticleTool,
  search_repo: searchRepoTool,
  list_files: listFilesTool,
  edit_article: editArticleTool,
  create_article: createArticleTool,
};
