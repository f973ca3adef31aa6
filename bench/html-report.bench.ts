import type { Audit, AuditArticle } from "../shared/audit.js";
import { computeTotals } from "../shared/merge.js";
import { renderHtmlReport } from "../shared/render/html.js";
import { renderReport } from "../shared/render/report.js";

/**
 * `npm run bench -- html-report`: renders a 200-article audit (every article updated with
 * three edits and a 40-line diff) as the HTML page, beside the Markdown report of the
 * same audit as the baseline. Goal: the page in under 200 ms.
 */
const ARTICLES = 200;
const ROUNDS = 10;

function article(index: number): AuditArticle {
  const path = `docs/section-${index % 12}/article-${index}.md`;
  const removed = Array.from(
    { length: 20 },
    (_, line) => `-Line ${line} of article ${index} says the limit is 10 and the port is 8080 today.`,
  );
  const added = Array.from(
    { length: 20 },
    (_, line) => `+Line ${line} of article ${index} says the limit is 20 and the port is 9090 today.`,
  );
  const patch = `--- a/${path}\n+++ b/${path}\n@@ -10,22 +10,22 @@\n # Article ${index}\n \n${removed.join("\n")}\n${added.join("\n")}\n`;
  const edits = Array.from({ length: 3 }, (_, edit) => ({
    kind: "replace" as const,
    reason: `LIMIT_${index % 20} changed from 10 to 20 in src/module-${index % 20}.ts (edit ${edit + 1})`,
    startLine: 10 + edit * 5,
    endLine: 12 + edit * 5,
    evidence: [`src/module-${index % 20}.ts:${2 + edit}`],
  }));
  return {
    path,
    status: "updated",
    impact: [
      {
        kind: "attention",
        source: `src/module-${index % 20}.ts`,
        detail: `${path} watches src/module-${index % 20}.ts`,
      },
      { kind: "reference", source: `src/module-${index % 20}.ts`, detail: `names LIMIT_${index % 20}` },
    ],
    edits,
    editReasons: edits.map((edit) => edit.reason),
    patch,
    hashBefore: "0123456789abcdef",
    hashAfter: "fedcba9876543210",
    summary: `Updated the limit and the port of article ${index}.`,
    usage: {
      turns: 1,
      llmCalls: 1,
      promptTokens: 2400,
      completionTokens: 300,
      toolCalls: { edit_article: 1 },
      toolErrors: 0,
      costUsd: 0.00144,
    },
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(render: () => string): { ms: number; bytes: number } {
  let bytes = 0;
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    bytes = render().length;
    samples.push(performance.now() - started);
  }
  return { ms: median(samples), bytes };
}

export async function run(): Promise<void> {
  const articles = Array.from({ length: ARTICLES }, (_, index) => article(index));
  const audit: Audit = {
    version: 1,
    runId: "bench",
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:05:00.000Z",
    base: "a".repeat(40),
    head: "b".repeat(40),
    model: "gpt-4.1-mini",
    applied: false,
    articles,
    totals: computeTotals(articles, 300_000),
  };
  const html = time(() => renderHtmlReport(audit, { repository: "acme/widgets" }));
  const markdown = time(() => renderReport(audit));
  console.log(`${ARTICLES} articles, 3 edits and a 40-line diff each; median of ${ROUNDS} renders`);
  console.log(
    `HTML page      ${html.ms.toFixed(1)} ms (${(html.bytes / 1024).toFixed(0)} KiB) (goal < 200 ms) ${html.ms < 200 ? "✓" : "✗"}`,
  );
  console.log(
    `Markdown       ${markdown.ms.toFixed(1)} ms (${(markdown.bytes / 1024).toFixed(0)} KiB) (baseline)`,
  );
  console.log(`ratio          ${(html.ms / markdown.ms).toFixed(2)}× the Markdown report's time`);
}
