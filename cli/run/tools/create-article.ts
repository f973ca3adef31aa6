import { articleFormat } from "../../../shared/formats/index.js";
import { contentHash } from "../../../shared/hash.js";
import { parseFrontmatter } from "../../../shared/markdown/frontmatter.js";
import { createArticleSpec } from "../../../shared/tools/create-article.js";
import { writeRefusal } from "../sandbox.js";
import { splitLinesKeepingEnds } from "./common.js";
import { defineTool, fail, succeed } from "./define.js";

export const createArticleTool = defineTool(createArticleSpec, async (args, context) => {
  if (!context.allowCreate)
    return fail(
      "create_disabled",
      "create_article is not enabled in this run (it needs --allow-create). Change the article under work instead.",
    );
  const resolved = await context.sandbox.resolve(args.path);
  if (!resolved.ok) return fail(resolved.code, resolved.message);
  const shown = JSON.stringify(resolved.path);
  const refused = writeRefusal(resolved, context.isArticlePath);
  if (refused && !refused.viaSymlink)
    return fail(
      "not_docs",
      `${shown} is not under the docs globs, so it cannot be created. New articles go where the other articles are (see list_files), with a .md extension.`,
    );
  // The file lands at the real path: through a symlink (docs/x -> ../src) that can be outside the docs.
  if (refused)
    return fail(
      "not_docs",
      `${shown} is under a symlink and would be created as ${JSON.stringify(resolved.realRelative)}, which is not under the docs globs. New articles go where the other articles are (see list_files), in a real directory.`,
    );
  const existing = await context.draft.load(resolved.path);
  if (existing.kind !== "missing")
    return fail(
      "exists",
      `${shown} already exists; create_article only makes new files.${resolved.path === context.articlePath ? " Use edit_article to change it." : ""}`,
    );
  // Only a format whose metadata is YAML frontmatter has frontmatter to break.
  const frontmatter =
    articleFormat(resolved.path).metadata.kind === "yaml" ? parseFrontmatter(args.content) : null;
  if (frontmatter?.error)
    return fail(
      "broken_frontmatter",
      `The frontmatter of the new article does not parse (line ${frontmatter.error.line}: ${frontmatter.error.message}). Fix it and call create_article again.`,
    );
  await context.draft.set(args.content, resolved.path);
  const lines = splitLinesKeepingEnds(args.content).length;
  context.recordEdit({
    kind: "create",
    reason: args.reason,
    evidence: [],
    startLine: 1,
    endLine: lines,
    toolCallId: context.toolCallId,
    path: resolved.path,
  });
  return succeed(
    `Created ${shown} (${lines} lines, hash ${contentHash(args.content)}). It is part of the result when this article finishes.`,
  );
});
