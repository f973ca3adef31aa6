import { contentHash } from "../hash.js";
import { LineIndex } from "../markdown/lines.js";
import { formatOutline } from "../markdown/outline.js";
import { asciidocFormat } from "./asciidoc.js";
import { markdownFormat, mdxFormat } from "./markdown.js";
import { rstFormat } from "./rst.js";
import type { ArticleFormat } from "./types.js";

export type { ArticleFormat, ArticleLink, ArticleMetadata, UnclosedBlock } from "./types.js";

/** Text in a format Impact has no module for (`.txt`): no sections, metadata or checklists; replace edits only. */
export function plainFormat(extension: string): ArticleFormat {
  return {
    name: extension ? `plain text (${extension})` : "plain text",
    extensions: [],
    outline: null,
    opaque: () => [],
    metadata: { kind: "none" },
    checklists: false,
    unclosedBlock: () => null,
    links: () => [],
    anchors: () => new Set(),
    references: () => [],
    referenceMarkers: [],
  };
}

/** Every format with a module, in the order documentation names them. */
export const ARTICLE_FORMATS: readonly ArticleFormat[] = [
  markdownFormat,
  mdxFormat,
  rstFormat,
  asciidocFormat,
];

const BY_EXTENSION = new Map(
  ARTICLE_FORMATS.flatMap((format) => format.extensions.map((ext) => [ext, format])),
);

/** The file's extension, lower case with the dot ("" without one). */
export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? "" : name.slice(dot).toLowerCase();
}

/** The format an article is read in, by its extension; text without a module is plain. */
export function articleFormat(path: string): ArticleFormat {
  const extension = extensionOf(path);
  return BY_EXTENSION.get(extension) ?? plainFormat(extension);
}

/** Whether files with this extension are documentation Impact reads as such (for the plan's warning). */
export function isDocumentationExtension(extension: string): boolean {
  return BY_EXTENSION.has(extension.toLowerCase());
}

export { asciidocFormat, markdownFormat, mdxFormat, rstFormat };

/**
 * The `outline_article` text of an article: the header line, then its format's sections;
 * a format without sections says so, and that replace edits are the way to change it.
 */
export function formatArticleOutline(path: string, content: string): string {
  const format = articleFormat(path);
  if (format === markdownFormat) return formatOutline(path, content, format.outline!(content));
  if (format.outline) {
    // The model writes the article's own syntax: say which it is, right under the header.
    const [header, ...rest] = formatOutline(path, content, format.outline(content)).split("\n");
    return [header, `format: ${format.name}`, ...rest].join("\n");
  }
  const header = formatOutline(path, "").split("\n")[0]!;
  return [
    header.replace(
      / · 0 lines · hash \w+$/,
      ` · ${new LineIndex(content).lineCount} lines · hash ${contentHash(content)}`,
    ),
    `(${format.name}: Impact reads no sections in it; change it with replace edits)`,
  ].join("\n");
}
