import { describe, expect, it } from "vitest";
import { renderPlan } from "../../../cli/commands/plan.js";
import { main } from "../../../cli/main.js";
import { ImpactPlanSchema } from "../../../shared/plan.js";
import { sweepTitle } from "../../../shared/render/sweep.js";
import type { TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";
import { renameRepo } from "../../helpers/rename-repo.js";

async function plan(repo: TestRepo, args: string[]) {
  const io = captureIo(repo.dir);
  const code = await main(["plan", ...args], io);
  return { code, out: io.out.replace(/\b[0-9a-f]{12}\b/g, "<sha>"), err: io.err };
}

describe("a big rename is one sweep", () => {
  it("groups the articles naming an old name under one sweep in --json, flagging every one of them", async () => {
    const repo = renameRepo(12);
    const { code, out } = await plan(repo, ["--json"]);
    expect(code).toBe(0);
    const parsed = ImpactPlanSchema.parse(JSON.parse(out));
    // Every article naming an old name is still flagged (and so checked and run).
    const flagged = parsed.articles.filter((article) => article.status === "impacted").map((a) => a.path);
    expect(flagged.sort()).toEqual(
      ["docs/mixed.md", ...Array.from({ length: 12 }, (_, i) => `docs/unit${i}.md`)].sort(),
    );
    expect(parsed.sweeps).toHaveLength(1);
    const sweep = parsed.sweeps![0]!;
    expect(sweep.changes).toEqual([{ change: "renamed", kind: "function", count: 12 }]);
    expect(sweep.files).toHaveLength(12);
    expect(sweep.articles).toHaveLength(13);
    expect(sweep.articles.find((article) => article.path === "docs/unit3.md")).toEqual({
      path: "docs/unit3.md",
      names: ["loadUnit3"],
      line: 5,
    });
    expect(sweepTitle(sweep)).toBe("renamed 12 functions; 13 articles name an old name");
    // The reasons say which sweep they belong to; the signature change in mixed.md does not.
    const mixed = parsed.articles.find((article) => article.path === "docs/mixed.md")!;
    expect(
      mixed.impact.filter((reason) => reason.stale).map((reason) => [reason.source, reason.sweep]),
    ).toEqual(
      expect.arrayContaining([
        ["src/unit0.ts", "names"],
        ["src/other.ts", undefined],
      ]),
    );
  });

  it("prints one sweep line with its articles under it instead of a row each, and --check still fails on them", async () => {
    const repo = renameRepo(12);
    const { code, out } = await plan(repo, []);
    expect(code).toBe(0);
    const lines = out.split("\n");
    expect(lines[0]).toBe("13 articles impacted, 0 touched by the change (<sha>..<sha>)");
    // Only the article with other stale evidence keeps a row in the table.
    expect(lines.filter((line) => line.startsWith("docs/"))).toEqual([
      expect.stringMatching(/^docs\/mixed\.md\s+impacted/),
    ]);
    expect(out).toContain(
      "Sweep: renamed 12 functions; 13 articles name an old name (declared in src/unit0.ts, src/unit1.ts, src/unit10.ts, and 9 more):",
    );
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}docs\/unit3\.md:5\s+loadUnit3$/));
    expect(lines.filter((line) => line.startsWith("  docs/"))).toHaveLength(13);
    const check = await plan(repo, ["--check"]);
    expect(check.code).toBe(3);
    expect(check.err).toContain(
      "13 articles probably need an update that this change did not make: docs/mixed.md, docs/unit0.md, docs/unit1.md, docs/unit10.md, docs/unit11.md and 8 more; 13 of them under one sweep (renamed 12 functions; 13 articles name an old name)",
    );
  });

  it("keeps every row when the plan names no sweep its reasons point at (a plan cut down by hand)", async () => {
    const repo = renameRepo(12);
    const parsed = ImpactPlanSchema.parse(JSON.parse((await plan(repo, ["--json"])).out));
    const { sweeps: _dropped, ...withoutSweeps } = parsed;
    const text = renderPlan(withoutSweeps);
    expect(text).not.toContain("Sweep:");
    expect(text).toMatch(/^docs\/unit3\.md\s+impacted/m);
  });

  it("says under --explain that the article is listed under the sweep", async () => {
    const repo = renameRepo(12);
    const { code, out } = await plan(repo, ["--explain", "docs/unit3.md"]);
    expect(code).toBe(0);
    expect(out).toContain(
      "Sweep: renamed 12 functions; 13 articles name an old name; this article writes loadUnit3 (listed under the sweep)",
    );
  });

  it("keeps a small rename as rows of its own", async () => {
    const repo = renameRepo(3);
    const { out } = await plan(repo, ["--json"]);
    const parsed = ImpactPlanSchema.parse(JSON.parse(out));
    expect(parsed.sweeps).toBeUndefined();
    expect(
      parsed.articles.every((article) => article.impact.every((reason) => reason.sweep === undefined)),
    ).toBe(true);
    const text = await plan(repo, []);
    expect(text.out).not.toContain("Sweep:");
    expect(text.out).toMatch(/^docs\/unit1\.md\s+impacted/m);
  });
});
