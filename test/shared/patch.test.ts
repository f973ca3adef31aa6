import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createFilePatch } from "../../shared/patch.js";
import { applyWithGit } from "../helpers/git-apply.js";

describe("createFilePatch", () => {
  it("is empty when nothing changed", () => {
    expect(createFilePatch("docs/a.md", "same\n", "same\n")).toBe("");
  });

  it("writes a git-style patch with a/ and b/ prefixes", () => {
    expect(createFilePatch("docs/a.md", "one\ntwo\nthree\n", "one\n2\nthree\n")).toMatchInlineSnapshot(`
      "diff --git a/docs/a.md b/docs/a.md
      --- a/docs/a.md
      +++ b/docs/a.md
      @@ -1,3 +1,3 @@
       one
      -two
      +2
       three
      "
    `);
  });

  it("creates new files from /dev/null", () => {
    expect(createFilePatch("docs/new.md", null, "# New\n")).toMatchInlineSnapshot(`
      "diff --git a/docs/new.md b/docs/new.md
      new file mode 100644
      --- /dev/null
      +++ b/docs/new.md
      @@ -0,0 +1,1 @@
      +# New
      "
    `);
  });

  it("applies to paths with spaces and non-ASCII names", () => {
    const paths = ["docs/my guide.md", "docs/café.md"];
    const change = { before: "a\nb\n", after: "a\nB\n" };
    expect(applyWithGit([change, change], (index) => paths[index]!)).toEqual(["a\nB\n", "a\nB\n"]);
  });

  const cases: [string, string | null, string | null][] = [
    ["LF", "a\nb\nc\n", "a\nB\nc\n"],
    ["CRLF", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n"],
    ["mixed endings", "a\r\nb\nc\r\nd\n", "a\r\nb\nC\r\nd\n"],
    ["no final newline, last line changed", "a\nb\nc", "a\nb\nC"],
    ["no final newline, earlier line changed", "a\nb\nc", "A\nb\nc"],
    ["final newline removed", "a\nb\n", "a\nb"],
    ["final newline added", "a\nb", "a\nb\n"],
    ["CRLF without final newline", "a\r\nb\r\nc", "a\r\nB\r\nc"],
    ["BOM", "\uFEFF# T\nx\n", "\uFEFF# T\ny\n"],
    ["BOM removed", "\uFEFF# T\nx\n", "# T\nx\n"],
    ["non-ASCII and tabs", "é\tü\n—\n", "é\tü\n–\n"],
    ["new file", null, "# New\r\nline"],
    ["deleted file", "gone\n", null],
    ["emptied file", "x\n", ""],
  ];
  it(`applies with git apply: ${cases.map(([name]) => name).join(", ")}`, () => {
    for (const [, before, after] of cases) expect(createFilePatch("docs/a.md", before, after)).not.toBe("");
    // One combined patch, one git process: each case is a file of its own.
    const applied = applyWithGit(cases.map(([, before, after]) => ({ before, after })));
    expect(Object.fromEntries(cases.map(([name], index) => [name, applied[index]]))).toEqual(
      Object.fromEntries(cases.map(([name, , after]) => [name, after])),
    );
  });

  it("round-trips random line changes through git apply, repeated lines and odd endings included", () => {
    const lineArbitrary = fc.tuple(
      fc.constantFrom("a", "b", "same", "", "- [ ] x", "é"),
      fc.constantFrom("\n", "\r\n"),
    );
    const textArbitrary = fc
      .tuple(fc.array(lineArbitrary, { maxLength: 25 }), fc.boolean())
      .map(([lines, final]) => {
        const text = lines.map(([line, eol]) => line + eol).join("");
        return final ? text : text.replace(/\r?\n$/, "");
      });
    const changeArbitrary = fc
      .record({ before: textArbitrary, after: textArbitrary })
      .filter(({ before, after }) => before !== after);
    // Changes go to git in batches of 15 to 20 files, one process a batch: 60 changes or more.
    fc.assert(
      fc.property(fc.array(changeArbitrary, { minLength: 15, maxLength: 20 }), (changes) => {
        expect(applyWithGit(changes)).toEqual(changes.map(({ after }) => after));
      }),
      { numRuns: 4 },
    );
  });
});
