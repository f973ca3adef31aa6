import { describe, expect, it } from "vitest";
import { droppedVersions } from "../../../../cli/plan/detect/versions.js";
import { parseUnifiedDiff } from "../../../../shared/diff/parse.js";

const diff = (path: string, lines: string[], header: string) =>
  parseUnifiedDiff(
    [`diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`, header, ...lines, ""].join("\n"),
  );

describe("versions a source file's version line dropped", () => {
  it("drops a release the version line bumped", () => {
    const files = diff(
      "src/version.py",
      ['-__version__ = "0.18.2"', '+__version__ = "0.19.0"'],
      "@@ -1 +1 @@",
    );
    expect(droppedVersions(files).map((dropped) => dropped.version)).toEqual(["0.18.2", "0.18"]);
  });

  it("keeps a version the file still writes on another line, version line or not (a protocol's HTTP/1.1)", () => {
    const files = diff(
      "httpx/_models.py",
      [
        "     def http_version(self) -> str:",
        '-        return self.ext.get("http_version", "HTTP/1.1")',
        "+        try:",
        '+            return self.extensions["http_version"].decode("ascii")',
        "+        except KeyError:",
        '+            return "HTTP/1.1"',
      ],
      "@@ -1,2 +1,5 @@",
    );
    expect(droppedVersions(files)).toEqual([]);
  });
});
