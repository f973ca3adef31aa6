import { isWordChar } from "../symbols/declarations.js";

/** The most text between two names of one enumeration, links' targets aside (`-P/--pcre2` (use PCRE2 always) or `--auto-hybrid-regex`). */
const MAX_GAP = 40;
/** A link's target (`](https://…)`), a parenthesis (`(use PCRE2 always)`), code and emphasis marks: not words of the sentence. */
const MARKUP = /\]\([^)\s]*\)|\([^()]*\)|[`*_[\]]/g;
/** All that may stand between two items of an enumeration once the markup is gone: a comma, a slash or bar, `or`, `and`. */
const CONNECTOR = /^\s*(?:,|\/|\||(?:,\s*)?(?:or|and|nor))\s*$/;

/**
 * Where an article enumerates `needed` of `terms` in one sentence (`enabled with `--pcre2` or
 * `--auto-hybrid-regex``, "`bash`, `zsh` and `fish`"): the 1-based line of the enumeration's
 * first name, else undefined. Such a sentence lists the ways or the choices as a table would,
 * so a sibling the change adds belongs in it. Names are read within a paragraph (lines up to
 * a blank one), each pair joined by nothing but a connector (`,`, `/`, `or`, `and`), markup and
 * a parenthesis aside.
 */
export function inlineEnumeration(
  lines: readonly string[],
  terms: readonly string[],
  needed: number,
): number | undefined {
  if (needed < 2 || terms.length < needed) return undefined;
  let start = 0;
  while (start < lines.length) {
    if (lines[start]!.trim() === "") {
      start += 1;
      continue;
    }
    let end = start;
    while (end < lines.length && lines[end]!.trim() !== "") end += 1;
    const found = enumerationIn(lines.slice(start, end), terms, needed);
    if (found !== undefined) return start + found + 1;
    start = end;
  }
  return undefined;
}

/** In one paragraph: the 0-based line of the first name of an enumeration of `needed` terms. */
function enumerationIn(
  paragraph: readonly string[],
  terms: readonly string[],
  needed: number,
): number | undefined {
  const text = paragraph.join("\n");
  if (!terms.some((term) => text.includes(term))) return undefined;
  const hits: { term: string; start: number; end: number }[] = [];
  for (const term of terms) {
    for (let at = text.indexOf(term); at >= 0; at = text.indexOf(term, at + 1)) {
      if (isWordChar(text.charCodeAt(at - 1)) || isWordChar(text.charCodeAt(at + term.length))) continue;
      hits.push({ term, start: at, end: at + term.length });
    }
  }
  hits.sort((a, b) => a.start - b.start);
  for (let first = 0; first < hits.length; first++) {
    const seen = new Set([hits[first]!.term]);
    for (let next = first + 1; next < hits.length && seen.size < needed; next++) {
      const gap = text.slice(hits[next - 1]!.end, hits[next]!.start).replace(/\]\([^)\s]*\)/g, "");
      if (gap.length > MAX_GAP || !CONNECTOR.test(gap.replace(MARKUP, ""))) break;
      seen.add(hits[next]!.term);
    }
    if (seen.size >= needed) return text.slice(0, hits[first]!.start).split("\n").length - 1;
  }
  return undefined;
}
