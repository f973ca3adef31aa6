import { describe, expect, it } from "vitest";
import { fileDeclarations } from "../../../../cli/plan/detect/declared-names.js";
import { dependencyChanges } from "../../../../cli/plan/detect/dependencies.js";
import { docstringNotes } from "../../../../cli/plan/detect/docstring-notes.js";
import { removedLinks } from "../../../../cli/plan/detect/links.js";
import { perChangeSet, perFile } from "../../../../cli/plan/detect/per-file.js";
import { proseWords } from "../../../../cli/plan/detect/prose.js";
import { quotedBlocks } from "../../../../cli/plan/detect/quoted-code.js";
import { removedPrograms } from "../../../../cli/plan/detect/removed-programs.js";
import { findSweeps } from "../../../../cli/plan/detect/sweeps.js";
import { droppedVersions } from "../../../../cli/plan/detect/versions.js";
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

/** A diff deleting `path`, whose lines were `lines`. */
const deletion = (path: string, lines: readonly string[]) =>
  [
    `diff --git a/${path} b/${path}`,
    "deleted file mode 100644",
    `--- a/${path}`,
    "+++ /dev/null",
    `@@ -1,${lines.length} +0,0 @@`,
    ...lines.map((line) => `-${line}`),
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

describe("perChangeSet", () => {
  it("reads a change once for every call over lists of its files built apart, and another change again", () => {
    const read: string[][] = [];
    const paths = perChangeSet((evidence) => {
      read.push(evidence.map((file) => file.path));
      return evidence.map((file) => file.path).join(" ");
    });
    const files = parseUnifiedDiff(diff("a.ts", "old()", "new()") + diff("b.ts", "old()", "new()"));
    expect(paths(files)).toBe("a.ts b.ts");
    // selectEvidence builds a new list for the lookups and for the signals: the same files.
    expect(paths([...files])).toBe("a.ts b.ts");
    expect(read).toEqual([["a.ts", "b.ts"]]);
    // Fewer files, or the same files in another order, are another change.
    expect(paths([files[0]!])).toBe("a.ts");
    expect(paths([files[1]!, files[0]!])).toBe("b.ts a.ts");
    paths(parseUnifiedDiff(diff("a.ts", "old()", "new()") + diff("b.ts", "old()", "new()")));
    expect(read).toEqual([["a.ts", "b.ts"], ["a.ts"], ["b.ts", "a.ts"], ["a.ts", "b.ts"]]);
  });

  it.each([
    [
      "removed programs",
      removedPrograms,
      deletion("cmd/gen/main.go", ["package main", "", "func main() {}"]) + diff("tool.go", "old()", "new()"),
    ],
    [
      "prose words",
      proseWords,
      diff("src/help.ts", "// Shows the automatic help option.", "// Shows the generated usage banner."),
    ],
    [
      "dependency changes",
      dependencyChanges,
      diff("package.json", '    "left-pad": "^1.3.0",', '    "pad": "^2.0.0",'),
    ],
    [
      "docstring notes",
      docstringNotes,
      diff("src/core.py", "    .. versionchanged:: 8.0 ``flag_value`` is required.", "    pass"),
    ],
    [
      "sweeps",
      findSweeps,
      ["a.ts", "b.ts", "c.ts", "d.ts"].map((path) => diff(path, "old()", "new()")).join(""),
    ],
    [
      "removed links",
      removedLinks,
      diff(
        "src/site.ts",
        'const home = "https://old.example.org/home";',
        'const home = "https://example.org/";',
      ),
    ],
    [
      "declared names",
      fileDeclarations,
      diff(
        "cmd/flags.go",
        'cmd.Flags().String("output-dir", "", "where")',
        'cmd.Flags().String("out-dir", "", "where")',
      ),
    ],
    [
      "dropped versions",
      droppedVersions,
      diff("src/version.py", '__version__ = "0.18.2"', '__version__ = "0.19.0"'),
    ],
  ] as const)(
    "hands the second call for %s (the signals, after the lookups) the facts of the first",
    (_, rule, text) => {
      const files = parseUnifiedDiff(text);
      const first = [...rule(files).values()];
      expect(first).not.toEqual([]);
      // The very facts, not a second reading of the diff.
      expect([...rule([...files]).values()][0]).toBe(first[0]);
    },
  );
});
