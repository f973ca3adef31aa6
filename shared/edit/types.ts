import type { ArticleFormat } from "../formats/types.js";
import type { EditGuard } from "./guards.js";
import type { Edit, EditKind } from "./schema.js";

/** Error codes of the edit engine; each has its own message shape (see engine tests). */
export type EditErrorCode =
  | "hash_mismatch"
  | "empty_old_string"
  | "no_op"
  | "missing_reason"
  | "placeholder"
  | "not_found"
  | "already_applied"
  | "consumed_by_earlier_edit"
  | "not_unique"
  | "occurrence_out_of_range"
  | "section_not_found"
  | "section_ambiguous"
  | "checklist_item_not_found"
  | "checklist_item_ambiguous"
  | "broken_frontmatter"
  | "frontmatter_not_object"
  | "unclosed_code_fence"
  | "broken_link"
  | "broken_anchor"
  | "required_section_removed"
  | "required_frontmatter_removed"
  | "too_large"
  | "unsupported_by_format";

export interface EditError {
  code: EditErrorCode;
  /** 0-based index of the failing edit in the batch; null for batch-level errors (hash). */
  index: number | null;
  /** Full text for the model: starts with `Edit N: ` when index is not null. */
  message: string;
}

export interface AppliedEdit {
  index: number;
  kind: EditKind;
  reason: string;
  evidence?: string[];
  /** 1-based line range of the new text in the final content of the batch. */
  startLine: number;
  endLine: number;
  /** The edited lines with 3 lines of context before and after, from the final content. */
  context: ContextLine[];
  /** What the model should double-check, e.g. subsections a section replace removed. */
  note?: string;
}

/** One line of an applied edit's context, or the edited lines left out of a long one. */
export type ContextLine = { kind: "line"; line: number; text: string } | { kind: "gap"; hidden: number };

export interface EditSuccess {
  ok: true;
  content: string;
  hashBefore: string;
  hash: string;
  applied: AppliedEdit[];
}

export type EditOutcome = EditSuccess | { ok: false; error: EditError };

export interface ApplyEditsOptions {
  /** When set, must equal contentHash(content) or the batch fails with `hash_mismatch`. */
  expectedHash?: string | undefined;
  /** Template and link checks after the batch; without it only fences and frontmatter are checked. */
  guard?: EditGuard;
  /** Longest article (characters) an edit may leave; default DEFAULT_ARTICLE_CHARS. */
  maxArticleChars?: number;
  /** Most characters one batch may add; default DEFAULT_EDIT_GROWTH_CHARS. */
  maxGrowthChars?: number;
  /**
   * The article's format (`articleFormat(path)` in shared/formats): where its sections,
   * code, metadata and links are. Default Markdown.
   */
  format?: ArticleFormat;
}

export type { Edit, EditKind };
