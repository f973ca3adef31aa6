import type { AuditArticle } from "../../shared/audit.js";
import { repositoryPath } from "../../shared/edit/guards.js";
import { articleFormat } from "../../shared/formats/index.js";
import { addedLines } from "../../shared/patch.js";

/**
 * The end-of-run check of links to new articles. An article's loop may link to a new article
 * the same run creates (new articles run first); when that creation did not happen (it
 * failed, was skipped, or the model decided against it, or the linking result came from the
 * cache), the linking article fails too, its patch dropped, so no apply writes a broken link.
 */
export function failLinksToMissingArticles(
  articles: readonly AuditArticle[],
  plannedNew: readonly string[],
): AuditArticle[] {
  const created = new Set(
    articles
      .filter((article) => article.created && article.status === "updated")
      .map((article) => article.path),
  );
  const missing = new Set(plannedNew.filter((path) => !created.has(path)));
  if (missing.size === 0) return [...articles];
  return articles.map((article) => {
    if (article.status !== "updated" || article.patch === "") return article;
    const target = articleFormat(article.path)
      .links(addedLines(article.patch).join("\n"))
      .map((link) => repositoryPath(article.path, link.target))
      .find((path) => path !== undefined && missing.has(path));
    if (target === undefined) return article;
    const message = `an edit links to ${target}, the new article this run was to create, which was not created; the edits were dropped`;
    return {
      ...article,
      status: "failed",
      patch: "",
      hashAfter: article.hashBefore,
      summary: message,
      error: { code: "link_to_missing_article", message },
    };
  });
}
