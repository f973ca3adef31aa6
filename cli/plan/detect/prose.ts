import type { ChangedFile } from "../../../shared/changeset.js";
import { COMMON_WORDS } from "../common-words.js";
import { languageOf } from "../symbols/languages/index.js";
import type { ArticleText } from "./article-text.js";
import type { SignalSink } from "./signal.js";
import { REASON_SCORES } from "./weights.js";

/**
 * prose: the words a change's code comments and string literals write (a doc comment, a
 * help text, an error message), ranked against each article's words (BM25, the weight of a
 * word from how few articles hold it). Docs describe a behaviour in the same words as the
 * comment beside its code, without naming the code: "the automatic help option", "task
 * aliases are offered as completions". Only the one article that clearly ranks first gets
 * the reason, and it is weak alone (REASON_SCORES.prose): it flags the page when nothing
 * else is strong, and adds to weaker reasons.
 *
 * Chosen on the truth bench (older half of each repository's commits, the newer half held
 * out): identifier words and removed lines as well as comments ranked worse; so did
 * reading only whole words of the articles (the persistent index's terms), which is why
 * this rule reads every article when the change has such words (textLookups).
 */

/** Words looked for per change, at most (the first ones in the diff's order). */
export const MAX_PROSE_WORDS = 200;
/** A word shorter than this says little (`get`, `the`); common words are left out too. */
const MIN_WORD_LENGTH = 4;
/** With fewer articles there is no ranking to speak of. */
const MIN_ARTICLES = 3;
/** A word in more than this share of the articles is no evidence for any of them. */
const MAX_WORD_SHARE = 0.5;
/** The top article's score must reach this (about two distinctive words)... */
const MIN_PROSE_SCORE = 2;
/** ...and this many times the second's: a page that clearly stands out. */
const LEAD_OVER_SECOND = 1.3;
/** BM25's term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;
/** Words named in the reason's detail, at most. */
const DETAIL_WORDS = 5;

/** A comment's text (`#`, `//`, `/*`, a `*` continuation, `"""`) runs to the end of the line. */
const COMMENT = /(?:#|\/\/|\/\*|^\s*\*|""")\s*(.*)$/;
/** A string literal of three characters or more, without escapes. */
const STRING = /"([^"\\]{3,})"|'([^'\\]{3,})'|`([^`\\]{3,})`/g;
const WORD = /[A-Za-z][A-Za-z0-9]*/g;
/** The words of an identifier: `maxRedirects` → max, Redirects; `HTTPError` → HTTP, Error. */
const PART = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g;

/** A word as both sides are compared: lower case, a plural's `s` or `ies` cut. */
export function stemWord(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/** Every word of `text`, identifiers split into their words, stemmed; digits and words under 3 letters left out. */
export function textWords(text: string): string[] {
  return lowerWords(text).map(stemWord);
}

/** The words of `text` in lower case, before stemming. */
function lowerWords(text: string): string[] {
  const words: string[] = [];
  for (const token of text.match(WORD) ?? []) {
    for (const part of token.match(PART) ?? []) {
      const word = part.toLowerCase();
      if (word.length >= 3 && !/^[0-9]+$/.test(word)) words.push(word);
    }
  }
  return words;
}

/** The words of one changed line's comment and string literals, in lower case. */
function lineWords(line: string): string[] {
  const words: string[] = [];
  const comment = COMMENT.exec(line);
  if (comment) words.push(...lowerWords(comment[1] ?? ""));
  for (const match of line.matchAll(STRING))
    words.push(...lowerWords([match[1], match[2], match[3]].filter(Boolean).join(" ")));
  return words;
}

/**
 * The distinctive words the change's code comments and strings write on its changed lines
 * (added and removed), stemmed, each with the first source file that wrote it and how it
 * was written there, in the diff's order.
 */
export function proseWords(evidence: readonly ChangedFile[]): Map<string, { file: string; written: string }> {
  const words = new Map<string, { file: string; written: string }>();
  for (const file of evidence) {
    if (file.binary || languageOf(file.path) === undefined) continue;
    for (const hunk of file.hunks) {
      for (const line of hunk.lines) {
        if (line[0] !== "+" && line[0] !== "-") continue;
        for (const written of lineWords(line.slice(1))) {
          const word = stemWord(written);
          if (word.length < MIN_WORD_LENGTH || COMMON_WORDS.has(word) || words.has(word)) continue;
          words.set(word, { file: file.path, written });
          if (words.size >= MAX_PROSE_WORDS) return words;
        }
      }
    }
  }
  return words;
}

const UTF8 = new TextDecoder();

/**
 * prose: the article that ranks clearly first for the change's comment and string words
 * (proseWords) gets one reason naming the words it shares with them.
 */
export function proseSignals(input: {
  evidence: readonly ChangedFile[];
  articles: readonly ArticleText[];
  sink: SignalSink;
}): void {
  const { articles, sink } = input;
  const words = proseWords(input.evidence);
  const total = articles.length;
  if (words.size === 0 || total < MIN_ARTICLES) return;
  // Only the articles that hold a word take part: their lengths, and how many hold each word.
  const holding: { path: string; counts: Map<string, number>; length: number }[] = [];
  const documents = new Map<string, number>();
  for (const article of articles) {
    const text = typeof article.content === "string" ? article.content : UTF8.decode(article.content);
    const all = textWords(text);
    const counts = new Map<string, number>();
    for (const word of all) if (words.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
    if (counts.size === 0) continue;
    holding.push({ path: article.path, counts, length: all.length });
    for (const word of counts.keys()) documents.set(word, (documents.get(word) ?? 0) + 1);
  }
  if (holding.length === 0) return;
  const average = holding.reduce((sum, entry) => sum + entry.length, 0) / holding.length;
  const ranked = holding.map((entry) => {
    let score = 0;
    const shares: [string, number][] = [];
    for (const [word, count] of entry.counts) {
      const found = documents.get(word)!;
      if (found > MAX_WORD_SHARE * total) continue;
      const weight = Math.log(1 + (total - found + 0.5) / (found + 0.5));
      const share =
        (weight * count * (K1 + 1)) / (count + K1 * (1 - B + (B * entry.length) / Math.max(1, average)));
      score += share;
      shares.push([word, share]);
    }
    return { path: entry.path, score, shares };
  });
  // Stable: equal scores keep the articles' (sorted) order.
  ranked.sort((left, right) => right.score - left.score);
  const [first, second] = ranked;
  if (!first || first.score < MIN_PROSE_SCORE) return;
  if (second && first.score < LEAD_OVER_SECOND * second.score) return;
  const top = first.shares.sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]));
  const named = top.slice(0, DETAIL_WORDS).map(([word]) => words.get(word)!.written);
  sink.add({
    article: first.path,
    kind: "reference",
    source: words.get(top[0]![0])!.file,
    detail: `describes in prose what the change's comments and strings say (${named.join(", ")})`,
    score: REASON_SCORES.prose,
  });
}
