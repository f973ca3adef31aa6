import { describe, expect, it } from "vitest";
import { causedTally, countMisses, emptyMisses, indexLabels, type Label } from "../../bench/truth.js";

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

describe("truth bench: recall over the edits that follow from the change", () => {
  const sha = (digit: string) => digit.repeat(40);
  const label = (repository: string, commit: string, article: string, kind: Label["label"]): Label => ({
    repository,
    sha: commit,
    article,
    label: kind,
    why: "test",
  });

  it("takes the articles labelled unrelated out, counts unsure and unlabelled ones as caused", () => {
    const commits = [
      // found; missed and unrelated; missed and caused; one false flag
      { repository: "a", sha: sha("1"), truth: ["x.md", "y.md", "z.md"], impact: ["x.md", "w.md"] },
      // found although unrelated (a false flag here); missed, unsure; missed with no label
      { repository: "a", sha: sha("2"), truth: ["x.md", "y.md", "z.md"], impact: ["x.md"] },
      // the same commit and article in another repository has no label
      { repository: "b", sha: sha("1"), truth: ["y.md"], impact: ["y.md"] },
    ];
    const labels = [
      label("a", sha("1"), "x.md", "caused"),
      label("a", sha("1"), "y.md", "unrelated"),
      label("a", sha("1"), "z.md", "caused"),
      label("a", sha("2"), "x.md", "unrelated"),
      label("a", sha("2"), "y.md", "unsure"),
    ];
    expect(causedTally(commits, indexLabels(labels))).toEqual({
      commits: 3,
      changed: 7,
      unrelated: 2,
      unlabelled: 2,
      caused: 5,
      found: 2,
      flagged: 4,
    });
  });
});
