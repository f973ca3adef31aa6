import { describe, expect, it } from "vitest";
import { type BacktestReplay, minScoreRows, pickMinScore } from "../../../cli/plan/backtest.js";
import type { PlannedArticle } from "../../../shared/plan.js";

describe("calibrating minScore (impact init --target-precision)", () => {
  const flagged = (path: string, score: number, fields: Partial<PlannedArticle> = {}): PlannedArticle => ({
    path,
    status: "impacted",
    tier: "stale",
    score,
    impact: [{ kind: "reference", source: "src/a.ts", detail: "mentions a", score }],
    files: ["src/a.ts"],
    ...fields,
  });
  const replay = (sha: string, truth: string[], articles: PlannedArticle[]) =>
    ({
      sha,
      truth: new Set(truth),
      plan: { base: "b", head: sha, articles, related: [], dropped: [], warnings: [], skipped: [] },
    }) as unknown as BacktestReplay;
  const replays = [
    replay("1", ["docs/a.md"], [flagged("docs/a.md", 0.9), flagged("docs/b.md", 0.4)]),
    replay(
      "2",
      ["docs/c.md"],
      [
        flagged("docs/c.md", 0.8),
        flagged("docs/d.md", 0.3),
        // Related articles and touched ones are not flags, whatever their score.
        flagged("docs/e.md", 0.95, { tier: "related" }),
        flagged("docs/f.md", 0.95, { status: "touched" }),
      ],
    ),
  ];
  const rows = minScoreRows("head", replays, new Map([["1", "one"]]));

  it("scores each minimum of the grid over the same commits", () => {
    const at = (minScore: number) => rows.find((row) => row.minScore === minScore)!.report;
    expect(at(0.1).precision).toEqual({ hits: 2, of: 4, rate: 0.5 });
    expect(at(0.35).precision).toEqual({ hits: 2, of: 3, rate: 2 / 3 });
    expect(at(0.45).precision).toEqual({ hits: 2, of: 2, rate: 1 });
    expect(at(0.85).recall).toEqual({ hits: 1, of: 2, rate: 0.5 });
    expect(at(0.9).flaggedPerCommit).toBe(0.5);
    expect(new Set(rows.map((row) => row.report.commits.length))).toEqual(new Set([2]));
    expect(at(0.1).commits[0]!.subject).toBe("one");
  });

  it("picks the lowest minimum reaching the target, else the most precise", () => {
    expect(pickMinScore(rows, 0.6)).toMatchObject({ row: { minScore: 0.35 }, reached: true });
    expect(pickMinScore(rows, 0.9)).toMatchObject({ row: { minScore: 0.45 }, reached: true });
    const noisy = minScoreRows(
      "head",
      [replay("1", ["docs/a.md"], [flagged("docs/a.md", 0.5), flagged("docs/b.md", 0.5)])],
      new Map(),
    );
    expect(pickMinScore(noisy, 0.6)).toMatchObject({ row: { minScore: 0.1 }, reached: false });
    expect(
      pickMinScore(minScoreRows("head", [replay("1", ["docs/a.md"], [])], new Map()), 0.6),
    ).toBeUndefined();
  });
});
