import { describe, expect, it } from "vitest";
import { dependencyChanges } from "../../../../cli/plan/detect/dependencies.js";
import type { ChangedFile } from "../../../../shared/changeset.js";

/** One changed file whose single hunk holds `lines` (each with its ` `, `+` or `-`). */
function changed(path: string, lines: string[]): ChangedFile {
  return {
    path,
    status: "modified",
    binary: false,
    patch: "",
    hunks: [
      {
        oldStart: 1,
        oldLines: lines.length,
        newStart: 1,
        newLines: lines.length,
        header: "@@ -1 +1 @@",
        lines,
      },
    ],
  };
}

describe("dependencies a manifest adds or removes", () => {
  it("reads each manifest's dependency lines, not its own version, toolchain or profile settings", () => {
    const changes = dependencyChanges([
      changed("Cargo.toml", [
        ' serde = "1.0"',
        ' clap = { version = "4", features = ["derive"] }',
        '+bstr = "1.9"',
        '-version = "0.3.2"',
        '+version = "0.3.3"',
        '-opt-level = "3"',
        '-rust-version = "1.70"',
      ]),
      changed("pyproject.toml", [
        '-requires-python = ">=3.8"',
        '+requires-python = ">=3.9"',
        '-dependencies = ["six>=1.0"]',
      ]),
      changed("package.json", [
        '   "chalk": "^5.0.0",',
        '   "ky": "^1.0.0",',
        '+  "nock": "^13.0.0",',
        '-  "version": "1.0.0",',
      ]),
    ]);
    expect(changes.map((change) => [change.file, change.name, change.change, change.siblings])).toEqual([
      ["Cargo.toml", "bstr", "added", ["serde", "clap"]],
      ["pyproject.toml", "six", "removed", []],
      ["package.json", "nock", "added", ["chalk", "ky"]],
    ]);
  });
});
