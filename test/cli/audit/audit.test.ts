import { describe, expect, it } from "vitest";
import { AuditTrail } from "../../../cli/audit/audit-trail.js";
import { AuditSchema } from "../../../shared/audit.js";
import { auditArticle } from "../../helpers/audit-fixture.js";

describe("AuditTrail", () => {
  it("keeps plan order whatever finishes first, computes totals, and redacts secrets from every field", () => {
    const trail = new AuditTrail({
      runId: "run-1",
      startedAt: new Date("2026-01-01T00:00:00Z"),
      base: "a".repeat(40),
      head: "b".repeat(40),
      model: "gpt-test",
      shard: { index: 1, count: 2 },
      env: { MY_SERVICE_TOKEN: "hunter2hunter2" },
    });
    for (const path of ["docs/a.md", "docs/b.md", "docs/c.md"]) trail.plan(path);
    trail.record(auditArticle("docs/c.md", { summary: "Leaked sk-test-not-a-real-key and hunter2hunter2." }));
    trail.recordWithoutRun("docs/b.md", "touched", [], "the change already edits this article");
    trail.record(
      auditArticle("docs/a.md", {
        status: "failed",
        error: { code: "model_api", message: "401 for Bearer abcdefghijklmnop" },
      }),
    );
    const audit = trail.build(new Date("2026-01-01T00:00:02.5Z"), false);
    expect(AuditSchema.parse(audit)).toEqual(audit);
    expect(audit.articles.map((article) => [article.path, article.status])).toEqual([
      ["docs/a.md", "failed"],
      ["docs/b.md", "touched"],
      ["docs/c.md", "updated"],
    ]);
    expect(audit.totals).toEqual({
      articles: 3,
      updated: 1,
      unchanged: 0,
      failed: 1,
      skipped: 0,
      touched: 1,
      cancelled: 0,
      gave_up: 0,
      promptTokens: 200,
      completionTokens: 40,
      durationMs: 2500,
    });
    expect(audit.shard).toEqual({ index: 1, count: 2 });
    expect(audit.articles[2]?.summary).toBe("Leaked [redacted] and [redacted].");
    expect(audit.articles[0]?.error?.message).toBe("401 for Bearer [redacted]");
  });
});
