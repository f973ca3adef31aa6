import { describe, expect, it } from "vitest";
import { countMisses, emptyMisses } from "../bench/truth.js";

describe("truth bench: why changed articles were missed", () => {
  it("counts each missed article once, under the first category that applies", () => {
    const misses = emptyMisses();
    // A source change: one article found, one below the bar, one with no reason.
    countMisses(misses, {
      truth: new Set(["docs/a.md", "docs/b.md", "docs/c.md"]),
      flagged: ["docs/a.md", "docs/x.md"],
      weak: ["docs/b.md"],
      evidence: ["src/client.py", "pyproject.toml"],
    });
    // A docs-theme change with no source file: its miss is noSource, even when weak elsewhere.
    countMisses(misses, {
      truth: new Set(["docs/d.md"]),
      flagged: [],
      weak: [],
      evidence: ["docs/_templates/sidebar.html"],
    });
    // A site rewrite of six articles: all its misses are manyArticles, weak or not.
    countMisses(misses, {
      truth: new Set(["1", "2", "3", "4", "5", "6"].map((name) => `docs/${name}.md`)),
      flagged: ["docs/1.md"],
      weak: ["docs/2.md"],
      evidence: ["mkdocs.yml"],
    });
    expect(misses).toEqual({ manyArticles: 5, belowBar: 1, noSource: 1, noReason: 1 });
  });
});
