import { parseDocument } from "yaml";
import { FRONTMATTER_MAX_ALIASES, FRONTMATTER_MAX_INDENT, FRONTMATTER_MAX_NESTING } from "../limits.js";
import { nestingProblem } from "../nesting.js";

export interface Frontmatter {
  /** The parsed YAML (undefined when it did not parse). */
  data: unknown;
  /** The YAML text between the fences. */
  raw: string;
  /** 1-based lines of the opening and closing `---` fences. */
  startLine: number;
  endLine: number;
  /** False when the opening fence has no closing one (then `error` says so). */
  closed: boolean;
  /** Set when the YAML does not parse: the message and the 1-based line in the whole file. */
  error?: { message: string; line: number };
}

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
/** A `---` or `...` line after a newline; the lookahead leaves the line's own newline unread. */
const CLOSING = /\n(?:---|\.\.\.)[ \t]*\r?(?=\n|$)/g;

/** Where frontmatter's fences are, as offsets into the content; the YAML is not parsed. */
export interface FrontmatterFences {
  /** Where the YAML starts: after the opening fence's line. */
  yamlStart: number;
  /**
   * Where the YAML ends: the newline before the closing fence (the content's end when
   * unclosed); one before `yamlStart` when the closing fence directly follows the opening one.
   */
  yamlEnd: number;
  /** Just past the closing fence's line, its newline included (the content's end when unclosed). */
  end: number;
  closed: boolean;
}

/**
 * The only place that finds frontmatter's fences: a `---` first line (after a BOM) and the
 * next `---` or `...` line. One regex search, so a megabyte article is not split into lines.
 */
export function findFrontmatterFences(content: string): FrontmatterFences | null {
  const opening = OPENING.exec(content);
  if (!opening) return null;
  const yamlStart = opening[0].length;
  const closing = new RegExp(CLOSING.source, "g");
  // From the opening fence's own newline, so a closing fence right after it is found.
  closing.lastIndex = yamlStart - 1;
  const match = closing.exec(content);
  if (!match) return { yamlStart, yamlEnd: content.length, end: content.length, closed: false };
  const lineEnd = match.index + match[0].length;
  return {
    yamlStart,
    yamlEnd: match.index,
    end: lineEnd < content.length ? lineEnd + 1 : lineEnd,
    closed: true,
  };
}

/**
 * Finds and parses YAML frontmatter at the very top of a Markdown file. Returns null when
 * there is none. An opening fence without a closing one counts as broken frontmatter.
 */
export function parseFrontmatter(content: string): Frontmatter | null {
  const fences = findFrontmatterFences(content);
  if (!fences) return null;
  // The YAML's lines without their line endings.
  const lines =
    fences.yamlEnd < fences.yamlStart
      ? []
      : content
          .slice(fences.yamlStart, fences.yamlEnd)
          .split("\n")
          .map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  if (!fences.closed) {
    return {
      data: undefined,
      raw: lines.join("\n"),
      startLine: 1,
      endLine: lines.length + 1,
      closed: false,
      error: { message: "frontmatter has no closing --- line", line: 1 },
    };
  }
  const closingIndex = lines.length;
  const raw = lines.join("\n");
  const frontmatter: Frontmatter = {
    data: undefined,
    raw,
    startLine: 1,
    endLine: closingIndex + 2,
    closed: true,
  };
  const tooDeep = yamlNestingProblem(raw);
  if (tooDeep) {
    frontmatter.error = { message: `the frontmatter ${tooDeep}`, line: 1 };
    return frontmatter;
  }
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

/**
 * Why YAML is nested too deep to parse safely, or undefined: flow brackets past
 * FRONTMATTER_MAX_NESTING, or a line indented past FRONTMATTER_MAX_INDENT columns.
 */
export function yamlNestingProblem(yaml: string): string | undefined {
  const flow = nestingProblem(yaml, "hash", { depth: FRONTMATTER_MAX_NESTING });
  if (flow) return flow;
  let indent = 0;
  for (const line of yaml.split("\n")) {
    const width = line.length - line.trimStart().length;
    if (width > indent) indent = width;
  }
  return indent > FRONTMATTER_MAX_INDENT
    ? `is indented ${indent} columns deep (Impact parses up to ${FRONTMATTER_MAX_INDENT})`
    : undefined;
}
