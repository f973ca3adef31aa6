import { markdownFormat } from "../formats/markdown.js";
import type { ArticleFormat } from "../formats/types.js";
import { parseFrontmatter } from "../markdown/frontmatter.js";

/** What an article must keep, and what its links may point at; checked after every batch. */
export interface EditGuard {
  /** The article's repository-relative path: relative links resolve from its folder. */
  articlePath: string;
  /** Whether a repository path (file or folder) exists at head. Without it, links are not checked. */
  pathExists?: (path: string) => boolean;
  /** Heading titles (or `Parent::Child` paths) a docs template requires: never removed or renamed. */
  requiredSections?: readonly string[];
  /** Top-level frontmatter keys a docs template requires: never removed. */
  requiredFrontmatter?: readonly string[];
}

export interface GuardProblem {
  code: "broken_link" | "broken_anchor" | "required_section_removed" | "required_frontmatter_removed";
  message: string;
}

/**
 * What the batch broke that was sound before it: a required section or frontmatter key
 * gone, a link it added to a repository path that does not exist, or an in-article
 * `#anchor` whose heading it removed.
 */
export function guardProblem(
  before: string,
  after: string,
  guard: EditGuard,
  format: ArticleFormat = markdownFormat,
): GuardProblem | null {
  const linksAfter = format.links(after);
  const anchorLinks = linksAfter.some((link) => link.target.startsWith("#"));
  const outline = (guard.requiredSections ?? []).length > 0 ? format.outline : null;
  const sectionsBefore = outline ? outline(before).sections : [];
  const sectionsAfter = outline ? outline(after).sections : [];
  for (const required of guard.requiredSections ?? []) {
    const had = sectionsBefore.find((section) => sectionMatches(section, required));
    if (had && !sectionsAfter.some((section) => sectionMatches(section, required))) {
      return {
        code: "required_section_removed",
        message: `the docs template of this article requires the section "${required}" (line ${had.line} before the batch), and the edit removes or renames its heading; keep the heading and change only the text under it`,
      };
    }
  }
  if ((guard.requiredFrontmatter ?? []).length > 0 && format.metadata.kind === "yaml") {
    const keysBefore = frontmatterKeys(before);
    const keysAfter = frontmatterKeys(after);
    for (const key of guard.requiredFrontmatter ?? []) {
      if (keysBefore.has(key) && !keysAfter.has(key)) {
        const lines = parseFrontmatter(before);
        return {
          code: "required_frontmatter_removed",
          message: `the docs template of this article requires the frontmatter key "${key}" (frontmatter lines ${lines?.startLine}-${lines?.endLine} before the batch), and the edit removes it; keep the key (its value may change)`,
        };
      }
    }
  }
  const linksBefore = format.links(before);
  if (guard.pathExists) {
    const known = new Set(linksBefore.map((link) => link.target));
    for (const link of linksAfter) {
      if (known.has(link.target) || link.target.startsWith("#")) continue;
      const path = repositoryPath(guard.articlePath, link.target);
      if (path === undefined || path === "" || guard.pathExists(path)) continue;
      return {
        code: "broken_link",
        message: `line ${link.line}: the new ${link.image ? "image" : "link"} "${link.target}" points at ${path}, which does not exist in the repository; link to an existing file (list_files finds it) or leave the link out`,
      };
    }
  }
  if (!anchorLinks) return null;
  const anchorsBefore = format.anchors(before);
  const anchorsAfter = format.anchors(after);
  for (const link of linksAfter) {
    if (!link.target.startsWith("#")) continue;
    const anchor = decodeAnchor(link.target.slice(1));
    if (anchorsBefore.has(anchor) && !anchorsAfter.has(anchor)) {
      return {
        code: "broken_anchor",
        message: `line ${link.line}: the link "${link.target}" points at a heading the edit removes or renames; keep the heading, or change the link to a heading that exists`,
      };
    }
  }
  return null;
}

function sectionMatches(section: { title: string; path: string }, required: string): boolean {
  const wanted = required.trim().toLowerCase();
  return section.title.trim().toLowerCase() === wanted || section.path.toLowerCase() === wanted;
}

function frontmatterKeys(content: string): Set<string> {
  const frontmatter = parseFrontmatter(content);
  const data = frontmatter?.data;
  return new Set(data && typeof data === "object" && !Array.isArray(data) ? Object.keys(data) : []);
}

/**
 * The repository path a relative link target names, from the article's folder (`/x`: from
 * the root); undefined for URLs (`https:`, `mailto:`, `//host`) and paths leaving the repository.
 */
export function repositoryPath(articlePath: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) return undefined;
  const bare = target.replace(/[?#].*$/, "");
  if (bare === "") return "";
  let decoded: string;
  try {
    decoded = decodeURIComponent(bare);
  } catch {
    decoded = bare;
  }
  const parts = decoded.startsWith("/") ? [] : articlePath.split("/").slice(0, -1);
  for (const part of decoded.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join("/");
}

function decodeAnchor(anchor: string): string {
  try {
    return decodeURIComponent(anchor).toLowerCase();
  } catch {
    return anchor.toLowerCase();
  }
}
