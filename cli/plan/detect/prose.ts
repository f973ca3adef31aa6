import type { ChangedFile } from "../../../shared/changeset.js";
import { COMMON_WORDS } from "../common-words.js";
import { fingerprint, termKey } from "../matcher.js";
import { languageOf } from "../symbols/languages/index.js";
import { bodyOf } from "./article-text.js";
import { perChangeSet } from "./per-file.js";
import type { ArticleSignalInput } from "./signal.js";
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
 * Only the articles that write one of the words as a whole word (`aliases`, `Aliases`,
 * `ALIASES`: a part of the article's fingerprint, matcher.ts) take part, so the plan reads
 * only those (textLookups); their words are then counted inside identifiers too
 * (`show-aliases`, `taskAliases`). Chosen on the truth bench (older half of each
 * repository's commits, the newer half held out): the words of every changed line
 * (identifiers too) ranked worse, and counting only whole words in the articles too.
 */

/** Words looked for per change, at most (the first ones in the diff's order). */
const MAX_PROSE_WORDS = 200;
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
function stemWord(word: string): string {
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
 * was written there, in the diff's order. Counted across files: the change is read once per
 * plan, for the lookups and the signals.
 */
export const proseWords = perChangeSet(changeWords);

function changeWords(evidence: readonly ChangedFile[]): Map<string, { file: string; written: string }> {
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

/** The forms (`alias`, `aliases`) of each word, in lower case. */
function formsOf(word: string): string[] {
  const candidates = [word, `${word}s`, ...(word.endsWith("y") ? [`${word.slice(0, -1)}ies`] : [])];
  return candidates.filter((form) => stemWord(form) === word);
}

/** `alias` → alias, Alias, ALIAS: how prose writes a word as a whole. */
function wholeWordForms(words: Iterable<string>): string[] {
  return [...words].flatMap((word) =>
    formsOf(word).flatMap((form) => [form, form[0]!.toUpperCase() + form.slice(1), form.toUpperCase()]),
  );
}

/** The terms the prose rule needs an article to hold (textLookups): its words, written as whole words. */
export function proseLookups(evidence: readonly ChangedFile[]): string[] {
  return wholeWordForms(proseWords(evidence).keys());
}

/** The lower-case forms an article may write the words in, by hash, with a bitmap of the hashes. */
export interface WrittenForms {
  bitmap: Uint32Array;
  byHash: Map<number, { form: string; word: string }[]>;
}

/** The lower-case forms an article may write each word in (`alias`: alias, aliases), to the word. */
export function writtenForms(words: Iterable<string>): WrittenForms {
  const byHash = new Map<number, { form: string; word: string }[]>();
  const bitmap = new Uint32Array(BITMAP_MASK + 1);
  for (const word of words) {
    for (const form of formsOf(word)) {
      const key = hashText(form);
      bitmap[(key >>> 5) & BITMAP_MASK]! |= bitOf(key);
      const list = byHash.get(key);
      if (list) list.push({ form, word });
      else byHash.set(key, [{ form, word }]);
    }
  }
  return { bitmap, byHash };
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function hashText(text: string): number {
  let hash = FNV_OFFSET;
  for (let index = 0; index < text.length; index += 1)
    hash = Math.imul(hash ^ text.charCodeAt(index), FNV_PRIME);
  return hash >>> 0;
}

/** 1: a-z, 2: A-Z, 3: 0-9, 0: anything else (bytes above ASCII included). */
const CLASS = new Uint8Array(256);
for (let code = 97; code <= 122; code += 1) CLASS[code] = 1;
for (let code = 65; code <= 90; code += 1) CLASS[code] = 2;
for (let code = 48; code <= 57; code += 1) CLASS[code] = 3;
const LOWER = 1;
const UPPER = 2;

/**
 * How many words `bytes` holds (as textWords counts them) and how often it writes each of
 * `forms`' words: textWords' cuts (identifiers split into their words, lower case, words
 * under 3 letters left out), made on the bytes without building a string per word. One
 * pass hashing each part as it is read; a string is built only when a bitmap of the forms'
 * hashes, then the forms themselves, hold the hash.
 */
export function countWords(
  bytes: Uint8Array,
  forms: WrittenForms,
): { length: number; counts: Map<string, number> } {
  const counts = new Map<string, number>();
  const { bitmap, byHash } = forms;
  let length = 0;
  const end = bytes.length;
  const found = (start: number, stop: number, hash: number) => {
    const entries = byHash.get(hash);
    if (!entries) return;
    let text = "";
    for (let index = start; index < stop; index += 1) text += String.fromCharCode(bytes[index]! | 32);
    for (const entry of entries)
      if (entry.form === text) counts.set(entry.word, (counts.get(entry.word) ?? 0) + 1);
  };
  let index = 0;
  while (index < end) {
    const kind = CLASS[bytes[index]!]!;
    if (kind !== LOWER && kind !== UPPER) {
      // Not in a word; a digit that follows no letter starts none either.
      index += 1;
      continue;
    }
    // One token, a letter then letters and digits, cut into parts as textWords' PART does:
    // `maxRedirects` → max, Redirects; `HTTPError` → HTTP, Error; digits part alone.
    while (index < end) {
      const code = CLASS[bytes[index]!]!;
      let start = index;
      let hash = FNV_OFFSET;
      if (code === UPPER) {
        let before = FNV_OFFSET;
        while (index < end && CLASS[bytes[index]!] === UPPER) {
          before = hash;
          hash = Math.imul(hash ^ (bytes[index]! | 32), FNV_PRIME);
          index += 1;
        }
        if (index < end && CLASS[bytes[index]!] === LOWER) {
          if (index - start >= 2) {
            // The capitals before the last one are a part of their own.
            const stop = index - 1;
            if (stop - start >= 3) {
              length += 1;
              const key = before >>> 0;
              if (marked(bitmap, key)) found(start, stop, key);
            }
            start = stop;
            hash = Math.imul(FNV_OFFSET ^ (bytes[stop]! | 32), FNV_PRIME);
          }
        } else {
          if (index - start >= 3) {
            length += 1;
            const key = hash >>> 0;
            if (marked(bitmap, key)) found(start, index, key);
          }
          continue;
        }
      } else if (code === 3) {
        while (index < end && CLASS[bytes[index]!] === 3) index += 1;
        continue;
      } else if (code !== LOWER) break;
      while (index < end && CLASS[bytes[index]!] === LOWER) {
        hash = Math.imul(hash ^ bytes[index]!, FNV_PRIME);
        index += 1;
      }
      if (index - start >= 3) {
        length += 1;
        const key = hash >>> 0;
        if (marked(bitmap, key)) found(start, index, key);
      }
    }
  }
  return { length, counts };
}

/** 2^16 bits: a word's hash is looked up only when its bit is set. */
const BITMAP_MASK = (1 << 11) - 1;
/** A hash's bit within its bitmap word. */
const bitOf = (key: number): number => 1 << (key & 31);
/** Whether `key`'s bit is set in `bitmap` (writtenForms set it). */
const marked = (bitmap: Uint32Array, key: number): boolean =>
  (bitmap[(key >>> 5) & BITMAP_MASK]! & bitOf(key)) !== 0;

/**
 * prose: the article that ranks clearly first for the change's comment and string words
 * (proseWords) gets one reason naming the words it shares with them.
 */
export function proseSignals(input: ArticleSignalInput): void {
  const { articles, sink } = input;
  const words = proseWords(input.evidence);
  const total = articles.length;
  if (words.size === 0 || total < MIN_ARTICLES) return;
  const forms = writtenForms(words.keys());
  const wholeKeys = new Set(wholeWordForms(words.keys()).map(termKey));
  // Only the articles that write a word as a whole word take part: their lengths, and how
  // many hold each word (counted inside identifiers too).
  const holding: { path: string; counts: Map<string, number>; length: number }[] = [];
  const documents = new Map<string, number>();
  for (const article of articles) {
    if (article.content.length === 0) continue;
    const body = bodyOf(article.content);
    const bytes = typeof body === "string" ? Buffer.from(body) : body;
    if (!(article.hashes ?? fingerprint(bytes)).some((hash) => wholeKeys.has(hash))) continue;
    const { counts, length } = countWords(bytes, forms);
    if (counts.size === 0) continue;
    holding.push({ path: article.path, counts, length });
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
