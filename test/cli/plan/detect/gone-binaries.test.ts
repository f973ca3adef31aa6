import { describe, expect, it } from "vitest";
import { main } from "../../../../cli/main.js";
import { ImpactPlanSchema } from "../../../../shared/plan.js";
import { gitRepo } from "../../../helpers/git-repo.js";
import { captureIo } from "../../../helpers/io.js";

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
    const io = captureIo(repo.dir);
    expect(await main(["plan", "--json"], io), io.err).toBe(0);
    const plan = ImpactPlanSchema.parse(JSON.parse(io.out));
    const flagged = plan.articles.filter((article) => article.status === "impacted");
    expect(flagged.map((article) => article.path)).toEqual(["docs/index.rst"]);
    expect(flagged[0]!.impact).toContainEqual(
      expect.objectContaining({
        kind: "reference",
        source: "docs/_static/logo.png",
        detail: "mentions the path docs/_static/logo.png (deleted)",
        stale: true,
        line: 4,
      }),
    );
    expect(plan.related.map((article) => article.path)).not.toContain("README.md");
  });
});
