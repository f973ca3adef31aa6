import { describe, expect, it } from "vitest";
import { gitRepo } from "../../../helpers/git-repo.js";
import { expectFlaggedFor, flagged, planJson } from "../../../helpers/plan-json.js";

describe("a target the change removed from a task runner's file", { timeout: 120_000 }, () => {
  it("flags the page telling the reader to run a make target or npm script the change removed", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      Makefile:
        ".PHONY: docs\ndocs:\n\tmkdocs build\n\n.PHONY: docs-deps\ndocs-deps:\n\tpip install -r requirements.txt\n",
      "package.json": JSON.stringify(
        { name: "tool", scripts: { "docs:dev": "vitepress dev", lint: "biome check ." } },
        null,
        2,
      ),
      "docs/contributing.md":
        "# Contributing\n\n```sh\n# install documentation dependencies\nmake docs-deps\n```\n\nThen preview with `npm run docs:dev`.\n",
      // Names the target without running it.
      "docs/about.md": "# About\n\nThe docs-deps target once installed mkdocs.\n",
    });
    repo.commit({
      Makefile:
        ".PHONY: docs\ndocs:\n\tmkdocs build\n\n.PHONY: ensure-mkdocs\nensure-mkdocs:\n\tpip install -r requirements.txt\n",
    });
    let plan = await planJson(repo);
    expectFlaggedFor(plan, "docs/contributing.md", {
      detail: "runs make docs-deps (target, removed)",
      line: 5,
    });
    repo.commit({
      "package.json": JSON.stringify(
        { name: "tool", scripts: { "docs:serve": "vitepress dev", lint: "biome check ." } },
        null,
        2,
      ),
    });
    plan = await planJson(repo);
    expectFlaggedFor(plan, "docs/contributing.md", {
      detail: "runs npm run docs:dev (target, removed)",
      line: 8,
    });
    // A recipe changed, the target kept: nothing the page runs is gone.
    repo.commit({
      Makefile:
        ".PHONY: docs\ndocs:\n\tmkdocs build --strict\n\n.PHONY: ensure-mkdocs\nensure-mkdocs:\n\tpip install -r requirements.txt\n",
    });
    expect(flagged(await planJson(repo))).toEqual([]);
  });
});
