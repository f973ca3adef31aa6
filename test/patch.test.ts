import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createFilePatch } from "../shared/patch.js";
import { gitRepo } from "./helpers/git-repo.js";

/** Applies `patch` with real git to a repo holding `before` and returns the file's bytes after. */
function gitApply(path: string, before: string | null, patch: string): string | null {
  const repo = gitRepo(before === null ? { "README.md": "base\n" } : { [path]: before });
  writeFileSync(join(repo.dir, "change.patch"), patch);
  repo.git("apply", "--check", "change.patch");
  repo.git("apply", "change.patch");
  try {
    return readFileSync(join(repo.dir, path), "utf8");
  } catch {
    return null;
  }
}

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
    for (const path of ["docs/my guide.md", "docs/café.md"]) {
      const repo = gitRepo({ [path]: "a\nb\n" });
      writeFileSync(join(repo.dir, "change.patch"), createFilePatch(path, "a\nb\n", "a\nB\n"));
      repo.git("apply", "change.patch");
      expect(readFileSync(join(repo.dir, path), "utf8")).toBe("a\nB\n");
    }
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
  for (const [name, before, after] of cases) {
    it(`applies with git apply: ${name}`, () => {
      const patch = createFilePatch("docs/a.md", before, after);
      expect(patch).not.toBe("");
      expect(gitApply("docs/a.md", before, patch)).toBe(after);
    });
  }

  it("round-trips random line changes through git apply, repeated lines and odd endings included", () => {
    const repo = gitRepo({ "README.md": "base\n" });
    const file = join(repo.dir, "docs/a.md");
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
    fc.assert(
      fc.property(textArbitrary, textArbitrary, (before, after) => {
        fc.pre(before !== after);
        repo.write({ "docs/a.md": before });
        writeFileSync(join(repo.dir, "change.patch"), createFilePatch("docs/a.md", before, after));
        repo.git("apply", "change.patch");
        expect(readFileSync(file, "utf8")).toBe(after);
      }),
      { numRuns: 60 },
    );
  });
});
