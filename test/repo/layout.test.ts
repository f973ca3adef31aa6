import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

/** The repository's folders of code; a test of their code sits at the same path under test/. */
const SOURCE_ROOTS = ["backend", "bench", "cli", "examples", "shared"];
/** Tests with no one home in the source (CONTRIBUTING's "Set up and test" says which go where). */
const OWN_FOLDERS = ["e2e", "hostile", "repo"];
/** What else test/ holds: shared test code, test data, and vitest's setup. */
const SUPPORT_FOLDERS = ["fixtures", "helpers"];
const SUPPORT_FILES = ["global-setup.ts", "sequencer.ts", "summary-reporter.ts"];
/** How a test asks for the built package (written so this file does not match it itself). */
const STARTS_BUILT = /\binject\(\s*"builtPackage"\s*\)/;

/**
 * Why `path` (relative to test/, with `/`) breaks the test layout, or null when it keeps it.
 * `isSourceFolder` says whether a folder exists in the repository.
 */
function misplaced(
  path: string,
  isSourceFolder: (folder: string) => boolean,
  startsBuilt = false,
): string | null {
  const folder = dirname(path);
  const top = path.split("/")[0]!;
  if (SUPPORT_FOLDERS.includes(top)) return null;
  if (!path.endsWith(".test.ts")) {
    return folder === "." && SUPPORT_FILES.includes(path)
      ? null
      : `${path}: not a test file; shared test code goes in test/helpers/, data in test/fixtures/`;
  }
  if (folder === ".")
    return `${path}: move it into the folder of the code it tests (test/cli/…, test/shared/…)`;
  if (OWN_FOLDERS.includes(top)) {
    if (folder !== top) return `${path}: test/${top}/ has no subfolders`;
    if (startsBuilt && top === "repo") return `${path}: starts the built package, so it belongs in test/e2e/`;
    return null;
  }
  if (startsBuilt) return `${path}: starts the built package, so it belongs in test/e2e/`;
  if (SOURCE_ROOTS.includes(top) && isSourceFolder(folder)) return null;
  return `${path}: there is no folder ${folder}/ in the source; mirror the tested code's folder, or use test/e2e/, test/hostile/ or test/repo/`;
}

/** Every file under test/ but the contents of its support folders, relative to test/ with `/`. */
function testTreeFiles(): string[] {
  return readdirSync(join(ROOT, "test"), { recursive: true, encoding: "utf8" })
    .map((path) => path.split(sep).join("/"))
    .filter((path) => !SUPPORT_FOLDERS.includes(path.split("/")[0]!))
    .filter((path) => statSync(join(ROOT, "test", path)).isFile());
}

describe("the test layout", () => {
  it("keeps every test file in the mirror of a source folder or in e2e/, hostile/ or repo/", () => {
    const files = testTreeFiles();
    const problems = files
      .map((path) =>
        misplaced(
          path,
          (folder) => existsSync(join(ROOT, folder)) && statSync(join(ROOT, folder)).isDirectory(),
          path.endsWith(".test.ts") && STARTS_BUILT.test(readFileSync(join(ROOT, "test", path), "utf8")),
        ),
      )
      .filter((problem) => problem !== null);
    expect(problems).toEqual([]);
    // The walk is real: it sees the files of every kind of folder.
    for (const path of [
      "cli/plan/plan-gate.test.ts",
      "shared/edit/edit-engine.test.ts",
      "e2e/package.test.ts",
    ]) {
      expect(files).toContain(path);
    }
  });

  it("names what is out of place and why", () => {
    const sourceFolders = new Set(["cli", "cli/plan", "shared", "shared/render"]);
    const isSourceFolder = (folder: string) => sourceFolders.has(folder);
    const verdicts = (paths: string[]) => paths.map((path) => misplaced(path, isSourceFolder) === null);
    expect(
      verdicts([
        "cli/plan/history.test.ts",
        "shared/render/html.test.ts",
        "e2e/serve.test.ts",
        "hostile/hostile-reads.test.ts",
        "repo/layout.test.ts",
        "helpers/git-repo.ts",
        "fixtures/formats/x.test.ts",
        "sequencer.ts",
      ]),
    ).toEqual([true, true, true, true, true, true, true, true]);
    expect(misplaced("plan.test.ts", isSourceFolder)).toMatch(/move it into the folder of the code it tests/);
    expect(misplaced("cli/planner/plan.test.ts", isSourceFolder)).toMatch(
      /no folder cli\/planner\/ in the source/,
    );
    expect(misplaced("docs/plan.test.ts", isSourceFolder)).toMatch(/no folder docs\/ in the source/);
    expect(misplaced("e2e/serve/restart.test.ts", isSourceFolder)).toMatch(/test\/e2e\/ has no subfolders/);
    expect(misplaced("cli/util.ts", isSourceFolder)).toMatch(/not a test file/);
    expect(misplaced("cli/plan/built.test.ts", isSourceFolder, true)).toMatch(/belongs in test\/e2e\//);
    expect(misplaced("e2e/built.test.ts", isSourceFolder, true)).toBeNull();
  });
});
