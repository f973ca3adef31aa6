import type { ChangedFile } from "../../../shared/changeset.js";
import { longestPart } from "../matcher.js";
import { languageOf } from "../symbols/languages/index.js";
import { includesText, textOf } from "./article-text.js";
import { IMPORT } from "./quoted-code.js";
import type { ArticleSignalInput } from "./signal.js";
import { hunkAt } from "./stale.js";
import { REASON_SCORES } from "./weights.js";

/** A quoted literal, escapes included (as line-symbols.ts reads them). */
const STRING_LITERAL = /(["'`])((?:\\.|(?!\1)[^\\])*)\1/g;
/** A literal shorter than this, or longer, is no value a page quotes whole. */
const MIN_LENGTH = 6;
const MAX_LENGTH = 100;
/** A placeholder or escape: the literal is a template, not the text a page shows. */
const TEMPLATE = /\$\{|%[sdifjorv]|\{\d*\}|\\/;
/** A flag (`--dry-run`, `-v`): the flag rule reads those (line-symbols.ts). */
const FLAG = /^--?[A-Za-z][\w-]*$/;
/** A literal's longest word shorter than this is too common to look articles up by. */
const MIN_TERM_LENGTH = 4;
/** Literals looked for per changed file, at most (a rewritten file says little literal by literal). */
const MAX_PER_FILE = 40;

/** A compound string the change removed from a file: a value (`gzip, deflate, br`) a page may quote as code. */
export interface RemovedLiteral {
  text: string;
  file: string;
  /** Its longest word as the article index cuts words (longestPart): an article quoting it holds it. */
  term: string;
  hunk?: string | undefined;
}

/**
 * The compound string literals of changed source files (a space, comma, dot or other mark between words: not a bare
 * name, which the reference rule reads) on removed lines of the evidence files that no added
 * or unchanged line of the file's hunks still holds. Imports and templates are left out.
 */
export function removedLiterals(evidence: readonly ChangedFile[]): RemovedLiteral[] {
  const found: RemovedLiteral[] = [];
  for (const file of evidence) {
    // Source code only: a manifest's or a config's values are read by their own rules.
    if (file.binary || file.status !== "modified" || languageOf(file.path) === undefined) continue;
    const kept: string[] = [];
    const removed = new Map<string, number>();
    for (const hunk of file.hunks) {
      let oldLine = hunk.oldStart;
      for (const line of hunk.lines) {
        const marker = line[0];
        if (marker === "+" || marker === " ") kept.push(line.slice(1));
        if (marker === "-") {
          const text = line.slice(1).trim();
          if (!IMPORT.test(text) && !/\brequire\(/.test(text))
            for (const match of text.matchAll(STRING_LITERAL)) {
              const literal = match[2]!;
              if (quotable(literal) && !removed.has(literal)) removed.set(literal, oldLine);
            }
        }
        if (marker === " " || marker === "-") oldLine += 1;
      }
    }
    let taken = 0;
    for (const [text, line] of removed) {
      if (taken >= MAX_PER_FILE) break;
      if (kept.some((each) => each.includes(text))) continue;
      const term = longestPart(text);
      if (term.length < MIN_TERM_LENGTH) continue;
      taken += 1;
      found.push({ text, file: file.path, term, hunk: hunkAt(file, line) });
    }
  }
  return found;
}

/** Words joined by marks (`gzip, deflate, br`, `state.retryCount`), no template, within length. */
function quotable(literal: string): boolean {
  return (
    literal.length >= MIN_LENGTH &&
    literal.length <= MAX_LENGTH &&
    literal.trim() === literal &&
    /[A-Za-z]/.test(literal) &&
    /[^\w]/.test(literal) &&
    !TEMPLATE.test(literal) &&
    !FLAG.test(literal)
  );
}

/** What the rule needs an article to hold before it is read: each literal's longest word (the article index answers it). */
export function removedLiteralLookups(literals: readonly RemovedLiteral[]): string[] {
  return [...new Set(literals.map((literal) => literal.term))];
}

/**
 * reference (removed literal): the article quotes as a whole code span (`` `gzip, deflate, br` ``)
 * a compound string the change removed from a file: the value the page shows is gone.
 */
export function removedLiteralSignals(input: ArticleSignalInput): void {
  const literals = removedLiterals(input.evidence);
  if (literals.length === 0) return;
  for (const article of input.articles) {
    const quoted = literals.filter(
      (literal) =>
        includesText(article.content, literal.term) && includesText(article.content, `\`${literal.text}\``),
    );
    if (quoted.length === 0) continue;
    const lines = textOf(article.content).split(/\r?\n/);
    const bySource = new Set<string>();
    for (const literal of quoted) {
      if (bySource.has(literal.file)) continue;
      bySource.add(literal.file);
      const index = lines.findIndex((line) => line.includes(`\`${literal.text}\``));
      input.sink.add({
        article: article.path,
        kind: "reference",
        source: literal.file,
        detail: `quotes "${literal.text}", a string the change removed`,
        score: REASON_SCORES.removedLiteral,
        stale: { terms: [], ...(index >= 0 ? { line: index + 1 } : {}), hunk: literal.hunk },
      });
    }
  }
}
