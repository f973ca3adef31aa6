import type { Outline } from "../markdown/outline.js";

/** A link an article makes: to a repository path, or to an anchor of its own. */
export interface ArticleLink {
  target: string;
  /** 1-based line of the link. */
  line: number;
  image: boolean;
}

/** What an article's metadata is, and whether an edit may write it. */
export type ArticleMetadata =
  /** YAML frontmatter between `---` lines: frontmatter edits set and remove keys. */
  | { kind: "yaml" }
  /** Metadata the format writes its own way (a reST field list, AsciiDoc header attributes): read, never written. */
  | { kind: "read-only"; label: string }
  | { kind: "none" };

/** A block that was closed before an edit and is open after it (after-edit checks). */
export interface UnclosedBlock {
  line: number;
  /** What to tell the editor: "the code fence opened at line 3 …". */
  message: string;
}

/**
 * An article format: how Impact reads one kind of documentation file. Every reader of
 * articles (the edit engine, outline_article, the after-edit checks, the plan) asks the
 * registry (`articleFormat` in index.ts) for the file's format instead of assuming Markdown.
 * All functions are pure and never throw.
 */
export interface ArticleFormat {
  /** The name messages use: "Markdown", "reStructuredText". */
  name: string;
  /** File extensions, lower case with the dot: ".md". */
  extensions: readonly string[];
  /** Sections with hierarchy and line ranges; null when the format has no sections Impact reads. */
  outline: ((content: string) => Outline) | null;
  /**
   * Offset ranges [start, end) where nothing structural is read (code, literal blocks,
   * directive bodies, JSX): no heading, checklist item, link or reference.
   */
  opaque(content: string): [number, number][];
  metadata: ArticleMetadata;
  /** Whether `- [ ]` checklist items are the format's own (checklist edits). */
  checklists: boolean;
  /** A block (fence, delimited block) left open at the end of the text, if any. */
  unclosedBlock(content: string): UnclosedBlock | null;
  /** Links to repository paths and in-article anchors, outside opaque regions. */
  links(content: string): ArticleLink[];
  /** The anchors in-article links may point at (`#usage`, `.. _label:`, `[[id]]`). */
  anchors(content: string): Set<string>;
  /**
   * What the article documents by name, as the format spells it out: API directives and
   * roles (`.. autofunction:: flask.redirect`, `:func:`redirect``), mkdocstrings `:::`
   * lines. The plan reads them as strong references.
   */
  references(content: string): string[];
  /** Text without any of these holds no references: a reader of raw bytes checks them before decoding. */
  referenceMarkers: readonly string[];
}
