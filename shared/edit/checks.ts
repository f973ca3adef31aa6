import { markdownFormat } from "../formats/markdown.js";
import type { ArticleFormat } from "../formats/types.js";
import { parseFrontmatter } from "../markdown/frontmatter.js";

// The fence scan lives with the other Markdown rules; the edit steps take it from here.
export { type FenceScan, scanFences } from "../markdown/fences.js";

/**
 * Placeholders a model leaves when it means "keep the rest": "... rest unchanged",
 * "(unchanged)", "[rest of the section omitted]", "// ... existing content ...". They are
 * only refused when the article does not already contain the same words.
 */
const PLACEHOLDERS: RegExp[] = [
  /(?:\.\.\.|…)[ \t]*\(?[ \t]*(?:the[ \t]+)?(?:rest|remainder|remaining|other|existing|previous|same)\b[^\n]{0,40}?\b(?:unchanged|omitted|as before|the same|content|text|sections?|lines?|items?)\b/i,
  /\((?:unchanged|rest unchanged|content unchanged|omitted|same as before|as before|no changes?)\)/i,
  /\[(?:unchanged|rest unchanged|content unchanged|omitted|\.\.\.|…)[^\]\n]{0,40}\]/i,
  /\b(?:rest|remainder) of (?:the )?(?:file|article|section|document|content|text|list|table)\b[^\n]{0,20}?\b(?:unchanged|omitted|stays? the same|remains? the same|as before|here)\b/i,
  /(?:\/\/|#|<!--)[ \t]*(?:\.\.\.|…)[ \t]*(?:existing|unchanged|rest|previous)[^\n]{0,40}/i,
];

/** The placeholder text found in `text` that `article` does not already contain, if any. */
export function findPlaceholder(text: string, article: string): string | null {
  for (const pattern of PLACEHOLDERS) {
    const match = pattern.exec(text);
    if (match && !article.includes(match[0])) return match[0];
  }
  return null;
}

export interface StructureProblem {
  code: "broken_frontmatter" | "unclosed_code_fence";
  message: string;
}

/** Structure that was sound before the batch and is broken after it: YAML frontmatter, and code the format's blocks hold. */
export function structureProblem(
  before: string,
  after: string,
  format: ArticleFormat = markdownFormat,
): StructureProblem | null {
  const frontmatterBefore = format.metadata.kind === "yaml" ? parseFrontmatter(before) : null;
  if (frontmatterBefore && !frontmatterBefore.error) {
    const frontmatterAfter = parseFrontmatter(after);
    if (!frontmatterAfter) {
      return {
        code: "broken_frontmatter",
        message:
          "the edit removes the frontmatter's opening --- line; keep the frontmatter (lines 1-" +
          `${frontmatterBefore.endLine}) intact`,
      };
    }
    if (frontmatterAfter.error) {
      return {
        code: "broken_frontmatter",
        message: `the edit breaks the YAML frontmatter (line ${frontmatterAfter.error.line}: ${frontmatterAfter.error.message}); keep it valid YAML between the --- lines`,
      };
    }
  }
  const unclosed = format.unclosedBlock(after);
  if (unclosed && format.unclosedBlock(before) === null)
    return { code: "unclosed_code_fence", message: unclosed.message };
  return null;
}
