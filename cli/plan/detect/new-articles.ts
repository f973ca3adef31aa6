import type { ChangedFile } from "../../../shared/changeset.js";
import type { Mapping } from "../../../shared/config.js";
import type { PlannedArticle } from "../../../shared/plan.js";
import type { ArticleSelector } from "../articles.js";
import { captureNames, compileMapping } from "../mapping.js";
import { REASON_SCORES } from "./weights.js";

/** Existing articles of a mapping named as models for a new one: enough to show the pattern. */
export const MAX_NEW_ARTICLE_MODELS = 3;

/**
 * New code, new docs: a mapping with captures whose code side matches a file the change adds,
 * and whose docs side names an article that does not exist, calls for that article. It is
 * planned with status and tier `new`, the mapping's existing articles (its siblings) as
 * models. A mapping none of whose articles exist yet says nothing about how the project
 * documents its items, so it proposes nothing.
 */
export function newArticles(input: {
  mappings: readonly Mapping[];
  evidence: readonly ChangedFile[];
  articlePaths: ReadonlySet<string>;
  sortedArticles: readonly string[];
  /** Whether a path is under the docs globs (and not ignored): only there can an article be created. */
  isArticlePath: ArticleSelector;
  /** Articles the user dismissed for a changed file (config `dismissed`). */
  isDismissed?: (article: string, file: string) => boolean;
}): PlannedArticle[] {
  const found = new Map<string, PlannedArticle>();
  for (const rule of input.mappings) {
    const names = captureNames(rule.code);
    if (names.length === 0) continue;
    const mapping = compileMapping(rule);
    let models: string[] | undefined;
    for (const file of input.evidence) {
      if (file.status !== "added") continue;
      const captures = mapping.match(file.path);
      if (!captures) continue;
      const target = mapping.target(captures);
      if (input.articlePaths.has(target) || !isPlainPath(target) || !input.isArticlePath(target)) continue;
      if (input.isDismissed?.(target, file.path)) continue;
      // The siblings: the docs side with every capture as a wildcard.
      models ??= siblingArticles(mapping, names, input.sortedArticles);
      if (models.length === 0) continue;
      const bound = Object.entries(captures)
        .map(([name, value]) => `${name}=${value}`)
        .join(", ");
      const reason = {
        kind: "mapping" as const,
        source: file.path,
        detail: `mapping ${rule.code} → ${rule.docs} (${bound}): the change adds ${file.path} and ${target} does not exist`,
        score: REASON_SCORES.mappingCapture,
      };
      const known = found.get(target);
      if (known) {
        known.impact.push(reason);
        known.files.push(file.path);
        continue;
      }
      found.set(target, {
        path: target,
        status: "new",
        tier: "new",
        models: closestModels(models, target),
        impact: [reason],
        files: [file.path],
        score: REASON_SCORES.mappingCapture,
      });
    }
  }
  return [...found.values()].sort((left, right) => left.path.localeCompare(right.path));
}

/**
 * The siblings most like the new article first: those sharing the most words of its path
 * (`selector-no-invalid` is closer to `selector-no-vendor-prefix` and `color-no-invalid-hex`
 * than to `alpha-value-notation`), then in path order.
 */
function closestModels(siblings: readonly string[], target: string): string[] {
  const words = (path: string) =>
    new Set(
      path
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter(Boolean),
    );
  const wanted = words(target);
  const shared = (path: string) => [...words(path)].filter((word) => wanted.has(word)).length;
  return siblings
    .map((path) => ({ path, score: shared(path) }))
    .sort((left, right) => right.score - left.score || left.path.localeCompare(right.path))
    .slice(0, MAX_NEW_ARTICLE_MODELS)
    .map((entry) => entry.path);
}

function siblingArticles(
  mapping: ReturnType<typeof compileMapping>,
  names: readonly string[],
  sortedArticles: readonly string[],
): string[] {
  const isSibling = mapping.docs(Object.fromEntries(names.map((name) => [name, "*"])));
  return sortedArticles.filter((path) => isSibling(path));
}

/** A docs side left with a glob (a rule without captures on that side) names no one file to create. */
function isPlainPath(path: string): boolean {
  return !/[*?[\]{}()!]/.test(path) && !path.split("/").includes("..");
}
