import { formatOutline } from "../../../shared/markdown/outline.js";
import { type OutlineArticleArgs, outlineArticleSpec } from "../../../shared/tools/outline-article.js";
import { loadTextFile } from "./common.js";
import { defineTool, succeed } from "./define.js";

export const outlineArticleTool = defineTool(
  outlineArticleSpec,
  async (args: OutlineArticleArgs, context) => {
    const file = await loadTextFile(args.path, context);
    if (!file.ok) return file;
    return succeed(formatOutline(file.path, file.content));
  },
);
