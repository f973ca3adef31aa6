import { describe, expect, it } from "vitest";
import { causedTally, countMisses, emptyMisses, indexLabels, type Label } from "../../bench/truth.js";
import { openBenchJudge } from "../../bench/truth-judge.js";
import { buildPlan } from "../../cli/plan/build-plan.js";
import { gitRepo } from "../helpers/git-repo.js";
import { startScriptedModelServer } from "../helpers/scripted-model-server.js";

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

describe("truth bench --judge", () => {
  it("says in one line what to set when no model is configured", async () => {
    const judge = await openBenchJudge({});
    expect(judge).toMatch(/^bench:truth: --judge needs a model: set OPENAI_API_KEY/);
  });

  it("judges a replayed plan's related articles with the model from the environment, leaving the plan as it was", async () => {
    const repo = gitRepo({
      "src/limits.ts": "export function limit(count: number) {\n  return Math.min(count, 10);\n}\n",
      "docs/limits.md":
        "---\ntitle: Limits\nattention:\n  - op: file\n    path: src/limits.ts\n---\n# Limits\n\nA limit is never more than ten.\n",
    });
    repo.commit({
      "src/limits.ts": "export function limit(count: number) {\n  return Math.min(count, 20);\n}\n",
    });
    const server = await startScriptedModelServer([
      {
        content: JSON.stringify({
          stale: true,
          line: 9,
          quote: "A limit is never more than ten.",
          why: "the cap became 20",
        }),
      },
    ]);
    try {
      const built = await buildPlan({ repo: repo.dir, readStdin: async () => "", env: {} });
      expect(built.plan.related.map((article) => article.path)).toEqual(["docs/limits.md"]);
      const judge = await openBenchJudge({
        OPENAI_API_KEY: "sk-test-not-a-real-key",
        OPENAI_BASE_URL: server.url,
        IMPACT_MODEL: "test-model",
      });
      if (typeof judge === "string") throw new Error(judge);
      const { flagged, verdicts } = await judge.judge({
        repoRoot: repo.dir,
        plan: built.plan,
        changeSet: built.changeSet,
      });
      expect(flagged).toEqual(["docs/limits.md"]);
      expect(verdicts).toEqual([
        expect.objectContaining({ path: "docs/limits.md", verdict: "stale", line: 9 }),
      ]);
      expect(built.plan.related.map((article) => article.path)).toEqual(["docs/limits.md"]);
      expect(judge.totals).toMatchObject({ judged: 1, promoted: 1, notJudged: 0 });
      expect(judge.model).toBe("test-model");
    } finally {
      await server.close();
    }
  });
});
