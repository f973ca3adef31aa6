import { describe, expect, it } from "vitest";
import { proposeConfig } from "../../../cli/plan/propose-config.js";
import { DEFAULT_IGNORE_GLOBS } from "../../../shared/config.js";

describe("impact init", () => {
  it("leaves out records, test data and blogs, and maps only folders with enough namesakes", () => {
    const { config } = proposeConfig({
      files: [
        "readme.md",
        "HISTORY.md",
        "docs/index.rst",
        "docs/api.rst",
        "docs/blog/2020-launch.rst",
        "docs/migration-guide.rst",
        "tests/fixtures/readme.md",
        ".github/PULL_REQUEST_TEMPLATE.md",
        "crates/core/README.md",
        "crates/cli/README.md",
        "crates/core/Cargo.toml",
        "crates/core/src/lib.rs",
        "crates/cli/src/main.rs",
        "src/api.py",
        "src/index.py",
      ],
      history: [],
    });
    expect(config).toEqual({
      docs: ["*.md", "docs/**/*.rst", "**/README.md"],
      // The defaults already leave out HISTORY.md and the migration guide: only the blog is added.
      ignore: [...DEFAULT_IGNORE_GLOBS, "docs/blog/**"],
      mappings: [],
    });
  });

  it("proposes AsciiDoc folders as it does reStructuredText ones", () => {
    const { config } = proposeConfig({
      files: [
        "README.adoc",
        "docs/modules/ROOT/pages/index.adoc",
        "docs/modules/ROOT/pages/usage.adoc",
        "docs/antora.yml",
        "src/main/java/App.java",
      ],
      history: [],
    });
    expect(config.docs).toEqual(["*.adoc", "docs/**/*.adoc"]);
  });
});
