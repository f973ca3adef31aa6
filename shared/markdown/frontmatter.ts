import { parseDocument } from "yaml";
import { FRONTMATTER_MAX_ALIASES } from "../limits.js";

export interface Frontmatter {
  /** The parsed YAML (undefined when it did not parse). */
  data: unknown;
  /** The YAML text between the fences. */
  raw: string;
  /** 1-based lines of the opening and closing `---` fences. */
  startLine: number;
  endLine: number;
  /** Set when the YAML does not parse: the message and the 1-based line in the whole file. */
  error?: { message: string; line: number };
}

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^(---|\.\.\.)[ \t]*$/;

/**
 * Finds and parses YAML frontmatter at the very top of a Markdown file. Returns null when
 * there is none. An opening fence without a closing one counts as broken frontmatter.
 */
export function parseFrontmatter(content: string): Frontmatter | null {
  const opening = OPENING.exec(content);
  if (!opening) return null;
  // Walk line by line up to the closing fence: a megabyte article is not split whole.
  const lines: string[] = [];
  let closingIndex = -1;
  let at = opening[0].length;
  while (at <= content.length) {
    const newline = content.indexOf("\n", at);
    const end = newline === -1 ? content.length : newline;
    const line = content.slice(at, end > at && content.charCodeAt(end - 1) === 13 ? end - 1 : end);
    if (CLOSING.test(line)) {
      closingIndex = lines.length;
      break;
    }
    lines.push(line);
    if (newline === -1) break;
    at = newline + 1;
  }
  if (closingIndex < 0) {
    return {
      data: undefined,
      raw: lines.join("\n"),
      startLine: 1,
      endLine: lines.length + 1,
      error: { message: "frontmatter has no closing --- line", line: 1 },
    };
  }
  const raw = lines.join("\n");
  const frontmatter: Frontmatter = { data: undefined, raw, startLine: 1, endLine: closingIndex + 2 };
  const document = parseDocument(raw, { prettyErrors: false, uniqueKeys: true });
  const first = document.errors[0];
  if (first) {
    const offset = first.pos[0] ?? 0;
    // +1 for the opening fence, +1 to make it 1-based.
    const line = raw.slice(0, offset).split("\n").length + 1;
    frontmatter.error = { message: first.message.split("\n")[0] ?? "invalid YAML", line };
  } else {
    try {
      // Aliases expand on conversion: a few lines of `&a [*b, *b, …]` can ask for billions
      // of nodes. The library refuses past the count below by throwing.
      frontmatter.data = document.toJS({ maxAliasCount: FRONTMATTER_MAX_ALIASES });
    } catch (error) {
      const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
      frontmatter.error = { message: reason ?? "invalid YAML", line: 1 };
    }
  }
  return frontmatter;
}
