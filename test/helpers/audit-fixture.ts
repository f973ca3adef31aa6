import { readFileSync } from "node:fs";
import { type Audit, type AuditArticle, AuditSchema } from "../../shared/audit.js";
import { computeTotals } from "../../shared/merge.js";
import { gitRepo, type TestRepo } from "./git-repo.js";
import type { Script } from "./scripted-model-server.js";

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

const doc = (title: string, line: string) => `---
title: ${title}
attention:
  - op: file
    path: src/server.ts
---
# ${title}

${line}
`;

/** The last commit changes the default port; every doc that states it becomes wrong. */
export function portRepo(names: string[]): TestRepo {
  const files: Record<string, string> = { "src/server.ts": "export const DEFAULT_PORT = 8080;\n" };
  for (const name of names)
    files[`docs/${name}.md`] = doc(name, `The server listens on port 8080 by default.`);
  const repo = gitRepo(files);
  repo.commit({ "src/server.ts": "export const DEFAULT_PORT = 9090;\n" });
  return repo;
}

/** Per article: one call that fixes the port and says it is done. */
export function fixScript(names: string[]): Script {
  return Object.fromEntries(
    names.map((name) => [
      `docs/${name}.md`,
      [
        {
          toolCalls: [
            {
              name: "edit_article",
              arguments: {
                path: `docs/${name}.md`,
                edits: [
                  {
                    old_string: "port 8080 by default",
                    new_string: "port 9090 by default",
                    reason: "DEFAULT_PORT changed from 8080 to 9090 in src/server.ts",
                    evidence: ["src/server.ts:1"],
                  },
                ],
                done: true,
              },
            },
          ],
        },
      ],
    ]),
  );
}

export { captureIo } from "./io.js";

/** The audit file at `path`, read back through its schema (throws when it is missing or does not match). */
export function readAuditAt(path: string): Audit {
  return AuditSchema.parse(JSON.parse(readFileSync(path, "utf8")));
}
