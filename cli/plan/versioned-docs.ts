import type { ImpactConfig } from "../../shared/config.js";
import type { ImpactPlan } from "../../shared/plan.js";
import { type OlderVersionArticle, olderVersionArticles, versionOfFolder } from "./detect/version-folders.js";
import { OLDER_VERSION_FACTOR } from "./detect/weights.js";

/**
 * Versioned docs (config `versions`): the code describes the next release, so only the
 * current version's articles are edited. Articles in an older version's folder are moved
 * from the plan's `articles` to `related` (read-only context, never flagged), unless
 * `versions.editOlder`. Layouts: Docusaurus (`docs/` current, `versioned_docs/version-*`
 * older) and sibling version folders (`docs/v3/` current beside `docs/v1/`, `docs/v2/`).
 */

/** Docusaurus keeps each released version's copy under this folder; `docs/` is the next one. */
const DOCUSAURUS_VERSIONS = "versioned_docs";

export interface VersionLayout {
  /** The folders of the current version (`docs`, `docs/v3`). */
  current: string[];
  /** Each older article's version folder, by article path. */
  older: Map<string, string>;
  /** How the layout was known. */
  source: "config" | "docusaurus" | "folders";
}

/** The article's first folder named for a version, as `{ folder, parent, version }`. */
function versionFolderOf(path: string): { folder: string; parent: string; version: number } | undefined {
  const parts = path.split("/").slice(0, -1);
  for (const [index, name] of parts.entries()) {
    const version = versionOfFolder(name);
    if (version !== undefined)
      return {
        folder: parts.slice(0, index + 1).join("/"),
        parent: parts.slice(0, index).join("/"),
        version,
      };
  }
  return undefined;
}

/**
 * Which articles belong to an older version. With `versions.current`: the version folders
 * beside it (same parent) of a lower version, and any `versioned_docs/` folder. Without it:
 * `versioned_docs/version-*` (Docusaurus) and the lower siblings of the newest version
 * folder (olderVersionArticles, which also spares folders the change's own code lives in).
 * Undefined when the docs are not versioned.
 */
export function versionLayout(
  articlePaths: readonly string[],
  changedPaths: readonly string[],
  versions: ImpactConfig["versions"],
): VersionLayout | undefined {
  const older = new Map<string, string>();
  const configured = versions?.current?.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  if (configured) {
    const current = versionFolderOf(`${configured}/x`);
    const currentParent = current?.folder === configured ? current.parent : undefined;
    for (const path of articlePaths) {
      if (path.startsWith(`${configured}/`)) continue;
      const found = versionFolderOf(path);
      if (!found) continue;
      const docusaurus = found.parent === DOCUSAURUS_VERSIONS;
      const sibling =
        currentParent !== undefined && found.parent === currentParent && found.version < current!.version;
      if (docusaurus || sibling) older.set(path, found.folder);
    }
    return { current: [configured], older, source: "config" };
  }
  for (const path of articlePaths) {
    const found = versionFolderOf(path);
    if (found && found.parent === DOCUSAURUS_VERSIONS) older.set(path, found.folder);
  }
  if (older.size > 0) return { current: ["docs"], older, source: "docusaurus" };
  const siblings = olderVersionArticles(articlePaths, changedPaths);
  if (siblings.size === 0) return undefined;
  for (const [path, entry] of siblings) older.set(path, entry.folder);
  const current = [...new Set([...siblings.values()].map((entry) => entry.newest))].sort();
  return { current, older, source: "folders" };
}

/**
 * The detector's scaling of older versions' scores. By default none: those articles keep
 * their score and the post-pass (moveOlderVersionsToRelated) lists them as related. With
 * `versions.editOlder` they stay candidates at OLDER_VERSION_FACTOR of their score, older
 * than the configured current folder, or than the newest sibling folder.
 */
export function olderVersionScaling(
  articlePaths: readonly string[],
  changedPaths: readonly string[],
  versions: ImpactConfig["versions"],
): Map<string, OlderVersionArticle> {
  if (!versions?.editOlder) return new Map();
  if (!versions.current) return olderVersionArticles(articlePaths, changedPaths);
  const layout = versionLayout(articlePaths, changedPaths, versions);
  const scaled = new Map<string, OlderVersionArticle>();
  for (const [path, folder] of layout?.older ?? [])
    scaled.set(path, { factor: OLDER_VERSION_FACTOR, folder, newest: versions.current });
  return scaled;
}

/**
 * The post-pass: impacted articles of older versions leave `articles` for `related` (tier
 * `related`), keeping their reasons. Touched ones stay: the change edited them itself.
 */
export function moveOlderVersionsToRelated(plan: ImpactPlan, layout: VersionLayout | undefined): void {
  if (!layout || layout.older.size === 0) return;
  const keep: ImpactPlan["articles"] = [];
  for (const article of plan.articles) {
    if (article.status === "impacted" && layout.older.has(article.path))
      plan.related.push({ ...article, tier: "related" });
    else keep.push(article);
  }
  plan.articles = keep;
}
