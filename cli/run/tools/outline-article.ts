import { formatArticleOutline } from "../../../shared/formats/index.js";
import { outlineArticleSpec } from "../../../shared/tools/outline-article.js";
import { formatCodeOutline, readCodeDeclarations } from "./code-segments.js";
import { loadTextFile, splitLinesKeepingEnds } from "./common.js";
import { defineTool, succeed } from "./define.js";

export const outlineArticleTool = defineTool(outlineArticleSpec, async (args, context) => {
  const file = await loadTextFile(args.path, context);
  if (!file.ok) return file;
  const declarations = await readCodeDeclarations(file.path, file.content);
  if (!Array.isArray(declarations) && declarations !== undefined) return declarations;
  if (declarations) {
    const lineCount = splitLinesKeepingEnds(file.content).length;
    return succeed(formatCodeOutline(file.path, lineCount, file.hash, declarations));
  }
  return succeed(formatArticleOutline(file.path, file.content));
});
