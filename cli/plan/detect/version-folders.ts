import { OLDER_VERSION_FACTOR } from "./weights.js";

/**
 * Docs kept per major version (`docs/v1/`, `docs/v2/`, `docs/v3/`, or `version-2.x/`):
 * the code of the branch describes the newest of them, and the older folders document
 * releases that live on other branches. An article in a version folder that has a sibling
 * folder for a higher version is scored at OLDER_VERSION_FACTOR: the names it shares with
 * the newest docs make it look as impacted as they are, and the maintainers rarely touch
 * it. Not when the change itself edits files under a folder of that name (code kept per
 * version too).
 */

/** A folder named for a version: `v2`, `v2.x`, `version-2.x`, `2.x`. Its major number, or undefined. */
export function versionOfFolder(name: string): number | undefined {
  const match = /^(?:v|version-)?(\d+)(?:\.(?:\d+|x))*$/i.exec(name);
  if (!match) return undefined;
  // A bare number (`2024/`, `3/`) is a date or a chapter, not a version: the `.x` or `v` says so.
  if (!/^(?:v|version-)/i.test(name) && !name.includes(".")) return undefined;
  return Number(match[1]);
}

export interface OlderVersionArticle {
  factor: number;
  /** The folder holding the article and its sibling for the newest version (`docs/v1`, `docs/v3`). */
  folder: string;
  newest: string;
}

/**
 * The articles in a version folder that has a sibling folder (same parent) for a higher
 * version, each with the newest sibling, leaving out versions the changed files themselves
 * live under.
 */
export function olderVersionArticles(
  articlePaths: Iterable<string>,
  changedPaths: readonly string[],
): Map<string, OlderVersionArticle> {
  // parent folder → the newest version's number and folder name
  const newest = new Map<string, { version: number; name: string }>();
  const located: { path: string; parent: string; name: string; version: number }[] = [];
  for (const path of articlePaths) {
    let from = 0;
    for (let slash = path.indexOf("/"); slash !== -1; slash = path.indexOf("/", from)) {
      const name = path.slice(from, slash);
      const parent = from === 0 ? "" : path.slice(0, from - 1);
      from = slash + 1;
      // Most folders are not versions: only a name starting with v or a digit is parsed.
      const first = name.charCodeAt(0);
      if (first !== 118 && first !== 86 && (first < 48 || first > 57)) continue;
      const version = versionOfFolder(name);
      if (version === undefined) continue;
      const best = newest.get(parent);
      if (!best || version > best.version) newest.set(parent, { version, name });
      located.push({ path, parent, name, version });
      break;
    }
  }
  const older = new Map<string, OlderVersionArticle>();
  if (located.length === 0) return older;
  const changedFolders = new Set(changedPaths.flatMap((path) => path.split("/").slice(0, -1)));
  for (const { path, parent, name, version } of located) {
    const best = newest.get(parent)!;
    if (version >= best.version || changedFolders.has(name)) continue;
    const prefix = parent === "" ? "" : `${parent}/`;
    older.set(path, {
      factor: OLDER_VERSION_FACTOR,
      folder: `${prefix}${name}`,
      newest: `${prefix}${best.name}`,
    });
  }
  return older;
}
