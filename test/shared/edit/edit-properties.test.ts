import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyEdits } from "../../../shared/edit/engine.js";
import type { Edit, ReplaceEdit } from "../../../shared/edit/schema.js";
import { applyWithGit } from "../../helpers/git-apply.js";

const words = ["alpha", "beta", "gamma", "delta", "naïve", "日本", "tab\there", "$&", "`code`", "—", "x"];
const lineArbitrary = fc.oneof(
  fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 5 }).map((parts) => parts.join(" ")),
  fc.constantFrom("", "# Title", "## Usage", "- [ ] todo", "```", "| a | b |"),
);
const eolArbitrary = fc.constantFrom("\n", "\r\n");

/** An article with random line endings, maybe a BOM, maybe no final newline. */
const articleArbitrary = fc
  .record({
    lines: fc.array(fc.tuple(lineArbitrary, eolArbitrary), { minLength: 1, maxLength: 30 }),
    bom: fc.boolean(),
    finalNewline: fc.boolean(),
  })
  .map(({ lines, bom, finalNewline }) => {
    let text = lines.map(([line, eol]) => line + eol).join("");
    if (!finalNewline) text = text.replace(/\r?\n$/, "");
    return (bom ? "\uFEFF" : "") + text;
  });

/** Up to 4 replace edits of substrings that are unique at the time they apply. */
function uniqueEdits(article: string, picks: [number, number, string][]): ReplaceEdit[] {
  const edits: ReplaceEdit[] = [];
  let current = article;
  for (const [at, length, replacement] of picks) {
    if (current.length === 0) break;
    const start = at % current.length;
    const old = current.slice(start, start + 1 + (length % 12));
    if (current.indexOf(old) !== current.lastIndexOf(old) || old === replacement) continue;
    // Keep fences balanced and CRLF pairs whole so the structure checks and EOL rules stay out of the way.
    if (/[`\r\n\uFEFF]/.test(old) || replacement.includes("`")) continue;
    // A new_string that wraps its old_string and already stands there is refused as already applied.
    if (replacement.includes(old)) continue;
    edits.push({ old_string: old, new_string: replacement, reason: "property" });
    const index = current.indexOf(old);
    current = current.slice(0, index) + replacement + current.slice(index + old.length);
  }
  return edits;
}

const picksArbitrary = fc.array(
  fc.tuple(fc.nat(), fc.nat(), fc.constantFrom("", "NEW", "new words", "$1 $$", "é")),
  {
    minLength: 1,
    maxLength: 4,
  },
);

describe("edit engine properties", () => {
  it("changes only the targeted bytes: the result equals plain indexOf + slice", () => {
    fc.assert(
      fc.property(articleArbitrary, picksArbitrary, (article, picks) => {
        const edits = uniqueEdits(article, picks);
        fc.pre(edits.length > 0);
        let expected = article;
        for (const edit of edits) {
          const index = expected.indexOf(edit.old_string);
          expected =
            expected.slice(0, index) + edit.new_string + expected.slice(index + edit.old_string.length);
        }
        const outcome = applyEdits(article, edits);
        expect(outcome.ok ? outcome.content : outcome.error.message).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("a batch with one failing edit fails as a whole and names that edit", () => {
    fc.assert(
      fc.property(articleArbitrary, picksArbitrary, fc.nat(), (article, picks, position) => {
        const edits: Edit[] = uniqueEdits(article, picks);
        const failing = position % (edits.length + 1);
        edits.splice(failing, 0, { old_string: "\u0000absent\u0000", new_string: "x", reason: "property" });
        const outcome = applyEdits(article, edits);
        expect(outcome.ok).toBe(false);
        if (!outcome.ok) expect(outcome.error.index).toBe(failing);
      }),
      { numRuns: 200 },
    );
  });

  it("section appends and prepends insert exactly the reported lines", () => {
    const sectioned = fc
      .tuple(articleArbitrary, articleArbitrary, eolArbitrary)
      .map(([first, second, eol]) => {
        // Section bodies without headings or fences, so the two sections are exactly One and Two.
        const body = (text: string) => text.replace(/^\uFEFF/, "").replace(/^(#|```)/gm, "x");
        return `# One${eol}${body(first)}${eol}# Two${eol}${body(second)}${eol}`;
      });
    fc.assert(
      fc.property(
        sectioned,
        fc.constantFrom("append", "prepend") as fc.Arbitrary<"append" | "prepend">,
        fc.constantFrom("One", "Two"),
        (article, mode, section) => {
          const outcome = applyEdits(article, [
            { section, mode, content: "Inserted line.", reason: "property" },
          ]);
          if (!outcome.ok) throw new Error(outcome.error.message);
          const lines = outcome.content.split("\n");
          const [edit] = outcome.applied;
          expect(
            lines.slice(edit!.startLine - 1, edit!.endLine).map((line) => line.replace(/\r$/, "")),
          ).toEqual(["Inserted line."]);
          lines.splice(edit!.startLine - 1, 1);
          expect(lines.join("\n")).toBe(article);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("a not-found old_string that differs only in case and line endings gets its exact text back", () => {
    fc.assert(
      fc.property(articleArbitrary, fc.nat(), fc.nat(), (article, at, length) => {
        const start = at % Math.max(1, article.length);
        const exact = article.slice(start, start + 8 + (length % 40)).trim();
        fc.pre(exact.length >= 8 && !/^\uFEFF/.test(exact) && /\S$/.test(exact) && /^\S/.test(exact));
        // Only one place may match loosely, or the engine rightly reports the first of several.
        const loose = (text: string) =>
          text
            .toLowerCase()
            .replace(/\r\n/g, "\n")
            .replace(/[\u2010-\u2015\u2212]/g, "-")
            .replace(/[ \t]+/g, " ")
            .replace(/ ?\n[ \n]*/g, "\n");
        fc.pre(loose(article).indexOf(loose(exact)) === loose(article).lastIndexOf(loose(exact)));
        const wanted = exact.replace(/\r\n/g, "\n").toUpperCase();
        fc.pre(
          wanted !== exact &&
            !article.includes(wanted) &&
            wanted.length === exact.length - (exact.match(/\r\n/g)?.length ?? 0),
        );
        const outcome = applyEdits(article, [
          { old_string: wanted, new_string: "replacement", reason: "property" },
        ]);
        expect(outcome.ok).toBe(false);
        if (outcome.ok) return;
        const block = /----- exact text -----\n([\s\S]*?)\n----- end -----/.exec(outcome.error.message);
        expect(block?.[1]).toBe(exact);
      }),
      { numRuns: 300 },
    );
  });

  it("the emitted patch, applied by git, gives the same bytes as the edits", () => {
    const changeArbitrary = fc.tuple(articleArbitrary, picksArbitrary).map(([article, picks]) => {
      const edits = uniqueEdits(article, picks);
      const outcome = edits.length > 0 ? applyEdits(article, edits) : undefined;
      if (outcome && !outcome.ok) throw new Error(outcome.error.message);
      return { before: article, after: outcome?.content ?? article };
    });
    // Articles go to git in batches of 8 to 10, one process a batch.
    fc.assert(
      fc.property(fc.array(changeArbitrary, { minLength: 8, maxLength: 10 }), (changes) => {
        const edited = changes.filter(({ before, after }) => before !== after);
        fc.pre(edited.length > 0);
        expect(applyWithGit(edited)).toEqual(edited.map(({ after }) => after));
      }),
      { numRuns: 5 },
    );
  });
});
