import { scanFences } from "../markdown/fences.js";
import { parseFrontmatter } from "../markdown/frontmatter.js";
import { LineIndex } from "../markdown/lines.js";
import { outlineMarkdown } from "../markdown/outline.js";

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
export function guardProblem(before: string, after: string, guard: EditGuard): GuardProblem | null {
  const anchorLinks = after.includes("](#") || after.includes("]: #");
  const outlined = (guard.requiredSections ?? []).length > 0 || anchorLinks;
  const sectionsBefore = outlined ? outlineMarkdown(before).sections : [];
  const sectionsAfter = outlined ? outlineMarkdown(after).sections : [];
  for (const required of guard.requiredSections ?? []) {
    const had = sectionsBefore.find((section) => sectionMatches(section, required));
    if (had && !sectionsAfter.some((section) => sectionMatches(section, required))) {
      return {
        code: "required_section_removed",
        message: `the docs template of this article requires the section "${required}" (line ${had.line} before the batch), and the edit removes or renames its heading; keep the heading and change only the text under it`,
      };
    }
  }
  if ((guard.requiredFrontmatter ?? []).length > 0) {
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
  const linksBefore = links(before);
  const linksAfter = links(after);
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
  const anchorsBefore = anchors(sectionsBefore);
  const anchorsAfter = anchors(sectionsAfter);
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

export interface Link {
  target: string;
  line: number;
  image: boolean;
}

const INLINE_LINK =
  /(!?)\[(?:[^\]\n]|\\\])*\]\(\s*(<[^>\n]*>|[^\s)]+)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)/g;
const REFERENCE_DEFINITION = /^[ ]{0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)/gm;
const INLINE_CODE = /`+[^`\n]*`+/g;

/** The link and image targets of an article outside code fences and inline code, with their lines. */
export function links(content: string): Link[] {
  if (!content.includes("](") && !content.includes("]:")) return [];
  // Blank out code (keeping offsets and newlines) so that examples in code are not links.
  let text = content;
  for (const [start, end] of scanFences(content).blocks) {
    text = text.slice(0, start) + text.slice(start, end).replace(/[^\n]/g, " ") + text.slice(end);
  }
  text = text.replace(INLINE_CODE, (code) => " ".repeat(code.length));
  const lines = new LineIndex(content);
  const found: Link[] = [];
  for (const match of text.matchAll(INLINE_LINK)) {
    found.push({ target: unwrap(match[2]!), line: lines.lineAt(match.index), image: match[1] === "!" });
  }
  for (const match of text.matchAll(REFERENCE_DEFINITION)) {
    found.push({ target: unwrap(match[1]!), line: lines.lineAt(match.index), image: false });
  }
  return found;
}

function unwrap(target: string): string {
  return target.startsWith("<") && target.endsWith(">") ? target.slice(1, -1) : target;
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

/** GitHub-style heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(sections: { title: string }[]): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const section of sections) {
    const base = section.title
      .toLowerCase()
      .replace(/<[^>]*>/g, "")
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

function decodeAnchor(anchor: string): string {
  try {
    return decodeURIComponent(anchor).toLowerCase();
  } catch {
    return anchor.toLowerCase();
  }
}
