import { describe, expect, it } from "vitest";
import { gitRepo } from "../../../helpers/git-repo.js";
import { flagged, planJson, related } from "../../../helpers/plan-json.js";

/** Bytes git reads as binary (a NUL among them), standing for an image. */
const image = (seed: number) => new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, seed, 0, 1, 2, 3]);

describe("a binary file the change deleted", { timeout: 120_000 }, () => {
  it("flags the article embedding it, and not the one embedding an image that only changed", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.rst", "README.md"] }),
      "docs/_static/logo.png": image(1),
      "docs/_static/icon.png": image(2),
      "docs/index.rst": "Tool\n====\n\n.. image:: _static/logo.png\n    :scale: 50%\n",
      "README.md":
        '# Tool\n\n<img src="https://example.com/tool/blob/main/docs/_static/icon.png?raw=true" />\n',
    });
    repo.commit({ "docs/_static/logo.png": null, "docs/_static/icon.png": image(3) });
    const plan = await planJson(repo);
    expect(flagged(plan)).toEqual(["docs/index.rst"]);
    expect(plan.articles[0]!.impact).toContainEqual(
      expect.objectContaining({
        kind: "reference",
        source: "docs/_static/logo.png",
        detail: "mentions the path docs/_static/logo.png (deleted)",
        stale: true,
        line: 4,
      }),
    );
    expect(related(plan)).not.toContain("README.md");
  });
});
