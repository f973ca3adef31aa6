import picomatch from "picomatch";
import { z } from "zod";
import type { ChangedFile, ChangedSymbol, ChangeSet, SkippedFile } from "../../shared/changeset.js";
import type { ImpactConfig } from "../../shared/config.js";
import { findFrontmatterFences, parseFrontmatter } from "../../shared/markdown/frontmatter.js";
import type { ImpactPlan, ImpactReason, PlannedArticle } from "../../shared/plan.js";
import { COMMON_WORDS } from "./common-words.js";
import { type HistoryCommit, historyReasons } from "./history.js";
import { compileMapping } from "./mapping.js";
import { ReferenceMatcher } from "./matcher.js";

export interface ArticleText {
  path: string;
  /** The article's text, or its UTF-8 bytes (scanned without decoding). */
  content: string | Uint8Array;
}

/** Names shorter than this are never reference evidence (flags and env vars excepted). */
export const MIN_SYMBOL_LENGTH = 4;
/** A term found in more than this share of the articles says nothing about any one of them. */
export const MAX_DOCUMENT_SHARE = 0.5;
/** The share rule needs this many articles to mean anything. */
const MIN_ARTICLES_FOR_SHARE = 4;

const AttentionEntrySchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("file"), path: z.string().min(1) }),
  z.object({ op: z.literal("glob"), pattern: z.string().min(1) }),
]);

interface Term {
  text: string;
  /** The changed file behind the term. */
  file: string;
  /** How the reason names it: `parseConfig (function, signature changed)` or `the path src/a.ts`. */
  label: string;
}

/**
 * The ImpactDetector: which articles a change touches, and why.
 * Pure: the caller reads the articles (working tree or a revision) and passes their text.
 */
export function detectImpact(input: {
  changeSet: ChangeSet;
  articles: ArticleText[];
  config: ImpactConfig;
  /** The base's own history (never commits after it), for history reasons. */
  history?: HistoryCommit[];
}): ImpactPlan {
  const { changeSet, articles, config } = input;
  const articlePaths = new Set(articles.map((article) => article.path));
  const relevantFiles = changeSet.files.filter((file) => file.status !== "submodule");
  const changedPaths = new Map<string, ChangedFile>();
  for (const file of relevantFiles) {
    changedPaths.set(file.path, file);
    if (file.oldPath) changedPaths.set(file.oldPath, file);
  }
  const reasons = new Map<string, ImpactReason[]>();
  const addReason = (article: string, reason: ImpactReason) => {
    const list = reasons.get(article);
    if (!list) reasons.set(article, [reason]);
    else if (
      !list.some((r) => r.kind === reason.kind && r.source === reason.source && r.detail === reason.detail)
    )
      list.push(reason);
  };
  const warnings: string[] = [];

  // 1. attention frontmatter
  for (const article of articles) {
    for (const entry of attentionOf(article, warnings)) {
      if (entry.op === "file") {
        const wanted = entry.path.replace(/^\.\//, "");
        const file = changedPaths.get(wanted);
        if (file)
          addReason(article.path, {
            kind: "attention",
            source: file.path,
            detail: `attention file ${wanted}`,
          });
      } else {
        const isMatch = picomatch(entry.pattern, { dot: true });
        for (const file of relevantFiles) {
          if (isMatch(file.path) || (file.oldPath !== undefined && isMatch(file.oldPath))) {
            addReason(article.path, {
              kind: "attention",
              source: file.path,
              detail: `attention glob ${entry.pattern} matches ${file.path}`,
            });
          }
        }
      }
    }
  }

  // 2. mapping rules
  const sortedArticles = [...articlePaths].sort();
  for (const mapping of config.mappings.map(compileMapping)) {
    // Many changed files usually share a docs target (always, for a rule without captures):
    // each target is matched against the articles once.
    const targets = new Map<string, string[]>();
    for (const file of relevantFiles) {
      const captures = mapping.match(file.path) ?? (file.oldPath ? mapping.match(file.oldPath) : undefined);
      if (!captures) continue;
      const target = mapping.target(captures);
      let matched = targets.get(target);
      if (!matched) {
        const isTarget = mapping.docs(captures);
        matched = articlePaths.has(target) ? [target] : sortedArticles.filter((path) => isTarget(path));
        targets.set(target, matched);
      }
      const bound = Object.entries(captures)
        .map(([name, value]) => `${name}=${value}`)
        .join(", ");
      for (const path of matched) {
        addReason(path, {
          kind: "mapping",
          source: file.path,
          detail: `mapping ${mapping.rule.code} → ${mapping.rule.docs}${bound ? ` (${bound})` : ""}`,
        });
      }
    }
  }

  // 3. references: one pass over each article for all terms
  const { terms, dropped } = referenceTerms(changeSet, articlePaths, config);
  const matcher = new ReferenceMatcher(
    terms.map((term) => term.text),
    (text) => SINGLE_WORD.test(text),
  );
  const mentions: { article: string; ids: number[] }[] = [];
  const documentCount = new Int32Array(terms.length);
  for (const article of articles) {
    // The frontmatter's own attention list is not the article naming a file.
    const ids = matcher.scan(bodyOf(article.content));
    if (ids.length === 0) continue;
    for (const id of ids) documentCount[id]! += 1;
    mentions.push({ article: article.path, ids });
  }
  const tooCommon = new Set<number>();
  if (articles.length >= MIN_ARTICLES_FOR_SHARE) {
    terms.forEach((term, id) => {
      const count = documentCount[id]!;
      if (count > articles.length * MAX_DOCUMENT_SHARE) {
        tooCommon.add(id);
        dropped.push({ symbol: term.text, why: `found in ${count} of ${articles.length} articles` });
      }
    });
  }
  for (const { article, ids } of mentions) {
    const byFile = new Map<string, string[]>();
    for (const id of ids) {
      if (tooCommon.has(id)) continue;
      const term = terms[id]!;
      const labels = byFile.get(term.file);
      if (labels) {
        if (!labels.includes(term.label)) labels.push(term.label);
      } else byFile.set(term.file, [term.label]);
    }
    for (const [file, labels] of byFile) {
      addReason(article, { kind: "reference", source: file, detail: `mentions ${labels.join(", ")}` });
    }
  }

  // 4. history: articles that changed together with these files before the base
  if (input.history) {
    const coupled = historyReasons({
      commits: input.history,
      changedFiles: relevantFiles.filter((file) => !articlePaths.has(file.path)),
      articles: articlePaths,
    });
    for (const [article, list] of coupled) for (const reason of list) addReason(article, reason);
  }

  // 5. assemble, touched first-class
  const planned: PlannedArticle[] = [];
  for (const path of sortedArticles) {
    const own = changedPaths.get(path);
    const touched = own !== undefined && own.status !== "deleted" && own.path === path;
    const impact = (reasons.get(path) ?? []).sort(compareReasons);
    if (!touched && impact.length === 0) continue;
    const files = [...new Set([...(touched ? [path] : []), ...impact.map((reason) => reason.source)])];
    planned.push({ path, status: touched ? "touched" : "impacted", impact, files });
  }
  return {
    base: changeSet.base,
    head: changeSet.head,
    articles: planned,
    dropped: dedupeDropped(dropped),
    warnings: [...warnings, ...skippedWarnings(changeSet.skipped ?? [])],
    skipped: changeSet.skipped ?? [],
  };
}

/** One warning per cap that left files out, naming a few of them. */
function skippedWarnings(skipped: readonly SkippedFile[]): string[] {
  const warnings: string[] = [];
  for (const [reason, limit] of [
    ["file_too_large", "limits.fileDiffBytes"],
    ["diff_too_large", "limits.diffBytes"],
  ] as const) {
    const paths = skipped.filter((file) => file.reason === reason).map((file) => file.path);
    if (paths.length === 0) continue;
    const shown =
      paths.length > 5 ? `${paths.slice(0, 5).join(", ")} and ${paths.length - 5} more` : paths.join(", ");
    warnings.push(
      `${paths.length} changed file${paths.length === 1 ? " was" : "s were"} skipped, ${reason === "file_too_large" ? "each file's diff" : "the whole diff"} being over ${limit} (raise it in impact.config.json to read them): ${shown}`,
    );
  }
  return warnings;
}

/** Single words (`fetch`, `Client`) read as prose; they count only where formatted as code. */
const SINGLE_WORD = /^(?:[a-z]+|[A-Z][a-z]+)$/;

const KIND_ORDER = { attention: 0, mapping: 1, reference: 2, history: 3 } as const;

function compareReasons(left: ImpactReason, right: ImpactReason): number {
  return (
    KIND_ORDER[left.kind] - KIND_ORDER[right.kind] ||
    left.source.localeCompare(right.source) ||
    left.detail.localeCompare(right.detail)
  );
}

function dedupeDropped(dropped: { symbol: string; why: string }[]) {
  const seen = new Set<string>();
  return dropped
    .filter((entry) => {
      if (seen.has(entry.symbol)) return false;
      seen.add(entry.symbol);
      return true;
    })
    .sort((left, right) => left.symbol.localeCompare(right.symbol));
}

const CHANGE_WORDS: Record<ChangedSymbol["change"], string> = {
  added: "added",
  removed: "removed",
  renamed: "renamed",
  signature: "changed",
  body: "body changed",
};

/**
 * The terms to look for: changed non-article files by path (and path suffix), and changed
 * symbols by name (old name too, for renames). Body-only changes and additions are left out:
 * the name an article uses stays right when only the implementation moved, and an article
 * cannot yet name what was just added. Too-common names are dropped.
 */
function referenceTerms(changeSet: ChangeSet, articlePaths: Set<string>, config: ImpactConfig) {
  const terms: Term[] = [];
  const dropped: { symbol: string; why: string }[] = [];
  const ignored = new Set(config.ignoreSymbols);
  for (const file of changeSet.files) {
    if (file.status === "submodule" || file.binary || articlePaths.has(file.path)) continue;
    for (const path of file.oldPath ? [file.path, file.oldPath] : [file.path]) {
      const label = `the path ${path} (${file.status})`;
      terms.push({ text: path, file: file.path, label });
      // `commands/plan.ts` names the file too; a bare file name (`index.ts`) does not.
      for (let at = path.indexOf("/"); at >= 0; at = path.indexOf("/", at + 1)) {
        const suffix = path.slice(at + 1);
        if (suffix.includes("/")) terms.push({ text: suffix, file: file.path, label });
      }
    }
  }
  for (const symbol of changeSet.symbols) {
    // An existing article can name an added symbol only by coincidence (or for another
    // thing of the same name), so added names are no evidence; renames keep the old name.
    if (symbol.change === "body" || symbol.change === "added" || articlePaths.has(symbol.file)) continue;
    const what =
      symbol.change === "renamed" && symbol.oldName
        ? `${symbol.kind}, renamed ${symbol.oldName} → ${symbol.name}`
        : `${symbol.kind}, ${CHANGE_WORDS[symbol.change]}`;
    for (const name of symbol.oldName ? [symbol.oldName, symbol.name] : [symbol.name]) {
      const why = ignored.has(name) ? "ignored by config (ignoreSymbols)" : tooCommonWhy(name, symbol.kind);
      if (why) {
        dropped.push({ symbol: name, why });
        continue;
      }
      terms.push({ text: name, file: symbol.file, label: `${name} (${what})` });
    }
  }
  return { terms, dropped };
}

/** Why a name is too common to be evidence, or undefined when it is distinctive enough. */
export function tooCommonWhy(name: string, kind: ChangedSymbol["kind"]): string | undefined {
  if (kind === "flag") return name.replace(/^-+/, "").length < 2 ? "too short" : undefined;
  if (kind === "env") return name.length < 3 ? "too short" : undefined;
  if (name.length < MIN_SYMBOL_LENGTH) return "too short";
  // Single words (`render`, `Config`) read as prose; compounds (`renderConfig`) do not.
  if (/^[A-Za-z][a-z]*$/.test(name) && COMMON_WORDS.has(name.toLowerCase())) return "common word";
  return undefined;
}

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

function bodyOf(content: string | Uint8Array): string | Uint8Array {
  const head = headOf(content);
  const fences = findFrontmatterFences(head);
  const block = fences?.closed ? head.slice(0, fences.end) : "";
  if (!block.includes("attention")) return content;
  return typeof content === "string"
    ? content.slice(block.length)
    : content.subarray(Buffer.byteLength(block));
}

function attentionOf(article: ArticleText, warnings: string[]): z.infer<typeof AttentionEntrySchema>[] {
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
  const entries: z.infer<typeof AttentionEntrySchema>[] = [];
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
