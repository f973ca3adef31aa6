import { z } from "zod";
import { articleFormat } from "../../../shared/formats/index.js";
import { findFrontmatterFences, parseFrontmatter } from "../../../shared/markdown/frontmatter.js";

export interface ArticleText {
  path: string;
  /** The article's text, or its UTF-8 bytes (scanned without decoding). */
  content: string | Uint8Array;
  /**
   * The fingerprint of its body (matcher.ts `fingerprint`) when the plan already has it from
   * the article index; a rule that needs it takes it from here instead of hashing the text again.
   */
  hashes?: Uint32Array;
}

const AttentionEntrySchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("file"), path: z.string().min(1) }),
  z.object({ op: z.literal("glob"), pattern: z.string().min(1) }),
]);
export type AttentionEntry = z.infer<typeof AttentionEntrySchema>;

/** The frontmatter block (fences included), "" without one; an unclosed one is cut at 4 KiB. */
function frontmatterBlock(content: string): string {
  const fences = findFrontmatterFences(content);
  if (!fences) return "";
  return content.slice(0, fences.closed ? fences.end : 4096);
}

/** Frontmatter fits in this much of the start of an article; bytes are decoded only that far. */
const HEAD_BYTES = 65_536;
// Keeps a BOM, so byte offsets computed from the decoded head stay right.
const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** The start of the article as text: all of it for text, a decoded prefix for bytes. */
function headOf(content: string | Uint8Array): string {
  if (typeof content === "string") return content;
  // "---" or a BOM: only then can there be frontmatter worth decoding.
  if (content[0] !== 0x2d && content[0] !== 0xef) return "";
  return UTF8.decode(content.subarray(0, HEAD_BYTES));
}

/** The article without a frontmatter that holds an `attention` list (the list is its own reason). */
export function bodyOf(content: string | Uint8Array): string | Uint8Array {
  const head = headOf(content);
  const fences = findFrontmatterFences(head);
  const block = fences?.closed ? head.slice(0, fences.end) : "";
  if (!block.includes("attention")) return content;
  return typeof content === "string"
    ? content.slice(block.length)
    : content.subarray(Buffer.byteLength(block));
}

const TEXT = new TextDecoder();

/** The article's whole text: as it is, or its bytes decoded (for a rule that reads lines). */
export function textOf(content: string | Uint8Array): string {
  return typeof content === "string" ? content : TEXT.decode(content);
}

/** Whether the article's text holds `needle`; bytes are searched as they are, without decoding or copying. */
export function includesText(content: string | Uint8Array, needle: string): boolean {
  if (typeof content === "string") return content.includes(needle);
  return Buffer.from(content.buffer, content.byteOffset, content.byteLength).includes(needle);
}

/** The article's `attention` entries; problems become warnings and the entry is skipped. */
export function attentionOf(article: ArticleText, warnings: string[]): AttentionEntry[] {
  const { path } = article;
  const content = headOf(article.content);
  // Cheap gate: only frontmatter that mentions `attention` is worth a YAML parse.
  const block = frontmatterBlock(content);
  if (!block.includes("attention")) return [];
  const frontmatter = parseFrontmatter(content);
  if (!frontmatter) return [];
  if (frontmatter.error) {
    warnings.push(
      `${path}:${frontmatter.error.line}: frontmatter is not valid YAML (${frontmatter.error.message}); its attention list is ignored, references still count`,
    );
    return [];
  }
  const data = frontmatter.data;
  if (typeof data !== "object" || data === null || !("attention" in data)) return [];
  const list = (data as { attention: unknown }).attention;
  if (!Array.isArray(list)) {
    warnings.push(`${path}: frontmatter attention must be a list of {op: file, path} or {op: glob, pattern}`);
    return [];
  }
  const entries: AttentionEntry[] = [];
  list.forEach((entry, index) => {
    const parsed = AttentionEntrySchema.safeParse(entry);
    if (parsed.success) entries.push(parsed.data);
    else
      warnings.push(
        `${path}: attention[${index}] is not {op: file, path} or {op: glob, pattern}; it is ignored`,
      );
  });
  return entries;
}

/**
 * The names an article documents by its format's own API markup (`.. autofunction::
 * flask.redirect`, `:func:`redirect``, mkdocstrings `::: pkg.mod.func`), each with its last
 * segment (`redirect`): strong references, which stay evidence however many articles
 * mention the name in passing.
 */
export function documentedNames(article: ArticleText): Set<string> {
  const format = articleFormat(article.path);
  const { content } = article;
  // Bytes are decoded only when a marker of the format's references is there.
  if (!format.referenceMarkers.some((marker) => includesText(content, marker))) return new Set();
  const text = typeof content === "string" ? content : UTF8.decode(content);
  const names = new Set<string>();
  for (const name of format.references(text)) {
    names.add(name);
    names.add(name.slice(name.lastIndexOf(".") + 1));
  }
  return names;
}
