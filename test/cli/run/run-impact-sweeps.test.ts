import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Audit } from "../../../shared/audit.js";
import { mergeAudits } from "../../../shared/merge.js";
import { renderComment } from "../../../shared/render/comment.js";
import { renderHtmlReport } from "../../../shared/render/html.js";
import { renderReport } from "../../../shared/render/report.js";
import { readAuditAt } from "../../helpers/audit-fixture.js";
import { renameRepo } from "../../helpers/rename-repo.js";
import { runWithScript } from "../../helpers/run-impact.js";

describe("a sweep through impact run and its renderers", () => {
  it("carries each shard's sweep articles into its audit; merged, the comment and both reports list them under one sweep", async () => {
    const repo = renameRepo(12);
    const audits: Audit[] = [];
    for (const shard of ["1/2", "2/2"]) {
      const out = `.impact/audit-${shard.replace("/", "-")}.json`;
      const run = await runWithScript(repo.dir, () => ({ content: "Nothing to change." }), [
        "--shard",
        shard,
        "--out",
        out,
      ]);
      expect(run.code).toBe(0);
      const audit = readAuditAt(join(repo.dir, out));
      const inSweep = audit.articles.filter((article) =>
        article.impact.some((reason) => reason.sweep === "names"),
      );
      expect(audit.sweeps?.[0]?.articles.map((article) => article.path).sort()).toEqual(
        inSweep.map((article) => article.path).sort(),
      );
      audits.push(audit);
    }
    const merged = mergeAudits(audits);
    expect(merged.sweeps?.[0]?.articles).toHaveLength(13);

    const comment = renderComment(merged).body;
    expect(comment).toContain(
      "<summary><b>Sweep</b>: renamed 12 functions; 13 articles name an old name — 13 ✅ unchanged</summary>",
    );
    expect(comment).toContain("- `docs/unit3.md` — ✅ unchanged (writes `loadUnit3`)");
    // The table keeps a row only for the article with other stale evidence.
    expect(comment).toContain("| `docs/mixed.md` |");
    expect(comment).not.toContain("| `docs/unit3.md` |");

    const report = renderReport(merged);
    expect(report).toContain("Sweep: renamed 12 functions; 13 articles name an old name:");
    expect(report).toContain("- `docs/unit3.md` — unchanged (writes `loadUnit3`)");
    expect(report).not.toContain("| `docs/unit3.md` |");

    const html = renderHtmlReport(merged);
    expect(html).toContain("<h2>Sweep: renamed 12 functions; 13 articles name an old name</h2>");
    expect(html).not.toMatch(/<td class="path"><a href="#article-\d+">docs\/unit3\.md<\/a>/);
    expect(html).toMatch(
      /<li><a href="#article-\d+">docs\/unit3\.md<\/a> <span class="badge status-unchanged">/,
    );
  });
});
