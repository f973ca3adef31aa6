import { describe, expect, it } from "vitest";
import { renderComment } from "../../../shared/render/comment.js";
import { renderHtmlReport } from "../../../shared/render/html.js";
import { renderReport } from "../../../shared/render/report.js";
import { auditArticle, auditOf } from "../../helpers/audit-fixture.js";

/** A created article, one whose model gave up after a refused edit, and a failure whose summary is its error. */
function reviewAudit() {
  return auditOf([
    auditArticle("lib/rules/b/README.md", {
      created: true,
      hashBefore: null,
      edits: [{ kind: "create", reason: "the change adds rule b", startLine: 1, endLine: 9, evidence: [] }],
    }),
    auditArticle("docs/rules.md", {
      status: "gave_up",
      summary: "The link was refused, so I stopped.",
      error: { code: "edit_refused", message: "Edit 0: line 5: the new link points at a missing file" },
    }),
    auditArticle("docs/failed.md", {
      status: "failed",
      summary: "turn cap reached: 8 turns",
      error: { code: "turn_cap", message: "turn cap reached: 8 turns" },
    }),
  ]);
}

describe("statuses people read", () => {
  it("shows a created article as new and a gave_up one as such, in the comment, Markdown and HTML", () => {
    const audit = reviewAudit();
    expect(audit.totals).toMatchObject({ updated: 1, gave_up: 1, failed: 1, unchanged: 0 });
    const { body } = renderComment(audit);
    expect(body).toContain("| `lib/rules/b/README.md` | 🆕 new article | 1 |");
    expect(body).toContain("| `docs/rules.md` | ⚠️ gave up after a refused edit | 0 |");
    expect(body).not.toContain("✅ unchanged");
    expect(body).toContain(
      "**Gave up after a refused edit** (`edit_refused`): Edit 0: line 5: the new link points at a missing file",
    );
    expect(body).toContain("2 impacted articles could not be updated automatically");
    // Each failure's reason once; the dismiss hint names the article and its one changed file.
    expect(body.split("turn cap reached: 8 turns")).toHaveLength(2);
    expect(body).toContain(
      '`impact dismiss docs/rules.md --for src/auth.ts --reason "…"` records it in impact.config.json',
    );

    const markdown = renderReport(audit);
    expect(markdown).toContain("## `lib/rules/b/README.md` — new");
    expect(markdown).toContain("| `docs/rules.md` | gave_up | 0 |");
    expect(markdown).toContain("3 articles: 1 failed, 1 gave_up, 1 updated");
    expect(markdown.split("turn cap reached: 8 turns")).toHaveLength(2);

    const html = renderHtmlReport(audit);
    expect(html).toContain('<span class="badge status-new">new</span>');
    expect(html).toContain('<span class="badge status-gave_up">gave_up</span>');
    expect(html).toContain("1 article left as it was after a refused edit");
  });
});
