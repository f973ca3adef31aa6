import { describe, expect, it } from "vitest";
import { renderProposal } from "../../../cli/commands/init.js";
import { proposeConfig } from "../../../cli/plan/propose-config.js";
import { DEFAULT_IGNORE_GLOBS } from "../../../shared/config.js";

describe("impact init", () => {
  it("says when the proposal trades recall for precision against the defaults, and is silent when it is no worse", () => {
    const scores = (recall: [number, number], precision: [number, number]) => ({
      commits: Array.from({ length: 4 }, () => ({}) as never),
      recall: { hits: recall[0], of: recall[1], rate: recall[0] / recall[1] },
      precision: { hits: precision[0], of: precision[1], rate: precision[0] / precision[1] },
      flaggedPerCommit: precision[1] / 4,
      shallow: false,
    });
    const proposal = { config: { docs: [], ignore: [...DEFAULT_IGNORE_GLOBS], mappings: [] }, proposals: [] };
    const render = (mine: ReturnType<typeof scores>, defaults: ReturnType<typeof scores>) =>
      renderProposal(proposal, 10, "{}\n", { proposal: mine, defaults, worse: false });
    const traded = render(scores([2, 4], [2, 2]), scores([4, 4], [4, 8]));
    expect(traded).toContain(
      "The proposal scores lower than the defaults on recall and higher on precision on these commits: write it if precision matters more to you, else keep the defaults.",
    );
    expect(render(scores([4, 4], [4, 8]), scores([2, 4], [2, 2]))).toContain(
      "lower than the defaults on precision and higher on recall",
    );
    const better = render(scores([4, 4], [4, 4]), scores([2, 4], [2, 4]));
    expect(better).not.toContain("The proposal scores");
  });

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
