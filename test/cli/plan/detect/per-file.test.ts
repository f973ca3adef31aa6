import { describe, expect, it } from "vitest";
import { perFile } from "../../../../cli/plan/detect/per-file.js";
import { quotedBlocks } from "../../../../cli/plan/detect/quoted-code.js";
import { parseUnifiedDiff } from "../../../../shared/diff/parse.js";

const diff = (path: string, removed: string, added: string) =>
  [
    `diff --git a/${path} b/${path}`,
    `--- a/${path}`,
    `+++ b/${path}`,
    "@@ -1,3 +1,3 @@",
    " const greeting = formatGreeting(name);",
    `-${removed}`,
    `+${added}`,
    " return greeting;",
    "",
  ].join("\n");

describe("perFile", () => {
  it("reads each changed file once for every call over the same change, and a new change again", () => {
    const read: string[] = [];
    const paths = perFile((file) => {
      read.push(file.path);
      return [file.path];
    });
    const files = parseUnifiedDiff(diff("a.ts", "old()", "new()") + diff("b.ts", "old()", "new()"));
    expect(paths(files)).toEqual(["a.ts", "b.ts"]);
    expect(paths([files[1]!])).toEqual(["b.ts"]);
    expect(paths(files)).toEqual(["a.ts", "b.ts"]);
    expect(read).toEqual(["a.ts", "b.ts"]);
    // Another parse of the same diff is another change: its files are read.
    paths(parseUnifiedDiff(diff("a.ts", "old()", "new()")));
    expect(read).toEqual(["a.ts", "b.ts", "a.ts"]);
  });

  it("hands the quoted-code rule's second call (the signals, after the lookups) the blocks of the first", () => {
    const files = parseUnifiedDiff(
      diff(
        "src/greet.ts",
        'const message = "Hello, " + name + "!"; // the greeting',
        'const message = "Hi, " + name + "!";',
      ),
    );
    const first = quotedBlocks(files);
    expect(first.map((block) => block.lines)).toContainEqual([
      "const greeting = formatGreeting(name);",
      'const message = "Hello, " + name + "!"; // the greeting',
    ]);
    // The very blocks, not a second reading of the diff.
    expect(quotedBlocks(files)[0]).toBe(first[0]);
  });
});
