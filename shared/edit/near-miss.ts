/**
 * Finding where a model's `old_string` almost matches. Both sides are folded (line endings,
 * whitespace, indentation, case, typography, escapes, Unicode forms) into one string that
 * keeps, for every folded character, the offset it came from; one indexOf then finds the
 * place in linear time, and the original text there is what the model should copy.
 */

export type Difference =
  | "line endings"
  | "indentation"
  | "whitespace"
  | "case"
  | "quotes/dashes/non-breaking spaces"
  | "escaping"
  | "Unicode normalization";

const ALL: readonly Difference[] = [
  "line endings",
  "indentation",
  "whitespace",
  "case",
  "quotes/dashes/non-breaking spaces",
  "escaping",
  "Unicode normalization",
];

interface Folded {
  text: string;
  /** Offset in the original string of each folded character. */
  origin: Int32Array;
}

const TYPOGRAPHY: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u201B": "'",
  "\u2032": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u201E": '"',
  "\u201F": '"',
  "\u2033": '"',
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2015": "-",
  "\u2212": "-",
  "\u2026": "...",
  "\u00A0": " ",
  "\u202F": " ",
  "\u2007": " ",
};

function isAsciiPunctuation(code: number): boolean {
  return (
    (code >= 33 && code <= 47) ||
    (code >= 58 && code <= 64) ||
    (code >= 91 && code <= 96) ||
    (code >= 123 && code <= 126)
  );
}

function isCombiningMark(code: number): boolean {
  return code >= 0x300 && code <= 0x36f;
}

/** Folds `text` by the given kinds of difference, keeping each character's origin. */
function fold(text: string, kinds: ReadonlySet<Difference>): Folded {
  const endings = kinds.has("line endings");
  const indentation = kinds.has("indentation");
  const whitespace = kinds.has("whitespace");
  const lowerCase = kinds.has("case");
  const typography = kinds.has("quotes/dashes/non-breaking spaces");
  const escaping = kinds.has("escaping");
  const unicode = kinds.has("Unicode normalization");
  const out: number[] = [];
  const origin = new Int32Array(text.length * 3 + 1);
  const push = (code: number, from: number) => {
    origin[out.length] = from;
    out.push(code);
  };
  let atLineStart = true;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code === 13 && endings && text.charCodeAt(i + 1) === 10) continue;
    if (code === 92 && escaping && isAsciiPunctuation(text.charCodeAt(i + 1))) continue;
    let replacement: string | undefined;
    if (code > 127) {
      if (typography) replacement = TYPOGRAPHY[text[i]!];
      if (replacement === undefined && unicode) {
        if (isCombiningMark(code)) continue;
        const decomposed = text[i]!.normalize("NFD");
        if (decomposed.length > 1 && isCombiningMark(decomposed.charCodeAt(1)))
          code = decomposed.charCodeAt(0);
      }
      if (replacement !== undefined && replacement.length === 1) {
        code = replacement.charCodeAt(0);
        replacement = undefined;
      }
    }
    if (replacement !== undefined) {
      for (let k = 0; k < replacement.length; k++) push(replacement.charCodeAt(k), i);
      atLineStart = false;
      continue;
    }
    const horizontal = code === 32 || code === 9 || code === 0x3000 || (code >= 0x2000 && code <= 0x200a);
    if (horizontal) {
      if (atLineStart) {
        // Indentation is its own kind of difference; whitespace only folds runs inside a line.
        if (!indentation) push(code, i);
        continue;
      }
      if (whitespace) {
        const previous = out[out.length - 1];
        if (previous === 32 || previous === 10 || out.length === 0) continue;
        push(32, i);
        continue;
      }
      push(code, i);
      continue;
    }
    if (code === 10) {
      if (whitespace) {
        while (out[out.length - 1] === 32) out.pop();
        if (out[out.length - 1] === 10) {
          atLineStart = true;
          continue;
        }
      }
      push(10, i);
      atLineStart = true;
      continue;
    }
    atLineStart = false;
    if (lowerCase) {
      if (code >= 65 && code <= 90) code += 32;
      else if (code > 127) {
        const lower = String.fromCharCode(code).toLowerCase();
        if (lower.length === 1) code = lower.charCodeAt(0);
      }
    }
    push(code, i);
  }
  let folded = "";
  const CHUNK = 8192;
  for (let start = 0; start < out.length; start += CHUNK) {
    folded += String.fromCharCode(...out.slice(start, start + CHUNK));
  }
  return { text: folded, origin: origin.subarray(0, out.length) };
}

function trimFolded(text: string): string {
  return text.replace(/^[ \n]+|[ \n]+$/g, "");
}

/** Leading spaces stay: they are indentation, which has its own kind. */
function trimEnds(text: string): string {
  return text.replace(/^\n+|[ \n]+$/g, "");
}

/** The kinds of difference that are needed to make `wanted` equal `actual`. */
export function differences(wanted: string, actual: string): Difference[] {
  const all = new Set(ALL);
  const equalUnder = (kinds: Set<Difference>) =>
    trimEnds(fold(wanted, kinds).text) === trimEnds(fold(actual, kinds).text);
  if (!equalUnder(all)) return [];
  const needed = ALL.filter((kind) => {
    const without = new Set(ALL);
    without.delete(kind);
    return !equalUnder(without);
  });
  if (needed.length > 0) return needed;
  // Two kinds that each explain the difference alone: name the ones that do.
  const alone = ALL.filter((kind) => equalUnder(new Set([kind])));
  return alone.length > 0 ? alone : ["whitespace"];
}

export interface NearMiss {
  /** Offsets [start, end) in the searched content of the almost-matching text. */
  start: number;
  end: number;
  differences: Difference[];
  /** How many places almost match. */
  count: number;
}

export interface PartialMatch {
  /** 0-based line of old_string that was found, and the offset where that line is in the content. */
  wantedLine: number;
  start: number;
}

/**
 * The first place in content[from, to) that equals `wanted` once both are folded, or null.
 * Linear in the content: one fold and a few indexOf calls.
 */
export function findNearMiss(content: string, from: number, to: number, wanted: string): NearMiss | null {
  const kinds = new Set(ALL);
  const needle = trimFolded(fold(wanted, kinds).text);
  if (needle.length === 0) return null;
  const region = content.slice(from, to);
  const haystack = fold(region, kinds);
  const at = haystack.text.indexOf(needle);
  if (at === -1) return null;
  let count = 0;
  for (let next = at; next !== -1 && count < 1000; next = haystack.text.indexOf(needle, next + 1)) count++;
  let start = haystack.origin[at]!;
  // Folding trims the needle; take back the indentation the model wrote on the first line.
  if (/^[ \t]/.test(wanted)) {
    while (start > 0 && (region[start - 1] === " " || region[start - 1] === "\t")) start--;
  }
  let end = haystack.origin[at + needle.length - 1]! + 1;
  // A folded "..." comes from one "…"; a folded "\n" may stand for "\r\n".
  if (region.charCodeAt(end - 1) === 13 && region.charCodeAt(end) === 10) end++;
  const actual = region.slice(start, end);
  return { start: from + start, end: from + end, differences: differences(wanted, actual), count };
}

/**
 * When old_string has no near-miss as a whole: the first of its lines (8 characters or more
 * once folded) that occurs in the content, so the model sees where it went astray.
 */
export function findPartialMatch(
  content: string,
  from: number,
  to: number,
  wanted: string,
): PartialMatch | null {
  const kinds = new Set(ALL);
  const lines = wanted.split(/\r?\n/).slice(0, 200);
  let haystack: Folded | null = null;
  for (const [index, line] of lines.entries()) {
    const needle = trimFolded(fold(line, kinds).text);
    if (needle.length < 8) continue;
    haystack ??= fold(content.slice(from, to), kinds);
    const at = haystack.text.indexOf(needle);
    if (at !== -1) return { wantedLine: index, start: from + haystack.origin[at]! };
  }
  return null;
}
