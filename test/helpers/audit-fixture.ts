import type { Audit, AuditArticle } from "../../shared/audit.js";
import { computeTotals } from "../../shared/merge.js";

/** A realistic audit article; `overrides` replace fields. */
export function auditArticle(path: string, overrides: Partial<AuditArticle> = {}): AuditArticle {
  const status = overrides.status ?? "updated";
  const updated = status === "updated";
  return {
    path,
    status,
    impact: [{ kind: "attention", source: "src/auth.ts", detail: `${path} watches src/auth.ts` }],
    edits: updated
      ? [
          {
            kind: "replace",
            reason: "The login flag was renamed from --user to --account.",
            startLine: 3,
            endLine: 3,
            evidence: ["src/auth.ts:12"],
          },
        ]
      : [],
    editReasons: updated ? ["The login flag was renamed from --user to --account."] : [],
    patch: updated
      ? `--- a/${path}\n+++ b/${path}\n@@ -1,3 +1,3 @@\n # Login\n \n-Run \`impact login --user NAME\`.\n+Run \`impact login --account NAME\`.\n`
      : "",
    hashBefore: "0123456789abcdef",
    hashAfter: updated ? "fedcba9876543210" : "0123456789abcdef",
    summary: updated ? "Renamed the flag." : "Nothing in this article is affected.",
    usage: {
      turns: 1,
      llmCalls: 1,
      promptTokens: 100,
      completionTokens: 20,
      toolCalls: updated ? { edit_article: 1 } : {},
      toolErrors: 0,
    },
    ...overrides,
  };
}

/** An audit over `articles` with totals computed from them. */
export function auditOf(articles: AuditArticle[], overrides: Partial<Audit> = {}): Audit {
  return {
    version: 1,
    runId: "run-1",
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:00:05.000Z",
    base: "a".repeat(40),
    head: "b".repeat(40),
    model: "gpt-test",
    applied: false,
    articles,
    totals: computeTotals(articles, 5000),
    ...overrides,
  };
}
