import { expect } from "vitest";
import { gitRepo, type TestRepo } from "./git-repo.js";
import { serverArticle } from "./port-change.js";
import { runWithScript } from "./run-impact.js";

export const GUIDE = serverArticle("Server", "The port is 8080.\n\nThe host is localhost.\n");

export const FAQ = serverArticle("FAQ", "Which port? 8080.\n");

/** A run whose model makes three edits to the guide (the third rewrites what the second wrote) and one to the FAQ. */
export async function auditedRepo(): Promise<TestRepo> {
  const repo = gitRepo({
    "src/server.ts": "export const PORT = 8080;\nexport const HOST = 'localhost';\n",
    "docs/guide.md": GUIDE,
    "docs/faq.md": FAQ,
  });
  repo.commit({ "src/server.ts": "export const PORT = 9090;\nexport const HOST = '0.0.0.0';\n" });
  const edit = (edits: object[], done = false) => ({
    toolCalls: [{ name: "edit_article", arguments: { path: "docs/guide.md", edits, done } }],
  });
  const run = await runWithScript(repo.dir, {
    "docs/guide.md": [
      edit([{ old_string: "The port is 8080.", new_string: "The port is 9090.", reason: "PORT is 9090" }]),
      edit(
        [
          {
            old_string: "The host is localhost.",
            new_string: "The host is 0.0.0.0.",
            reason: "HOST is 0.0.0.0",
          },
          {
            old_string: "The host is 0.0.0.0.",
            new_string: "The host is 0.0.0.0 (all interfaces).",
            reason: "say what 0.0.0.0 means",
          },
        ],
        true,
      ),
    ],
    "docs/faq.md": [
      {
        toolCalls: [
          {
            name: "edit_article",
            arguments: {
              path: "docs/faq.md",
              edits: [
                { old_string: "Which port? 8080.", new_string: "Which port? 9090.", reason: "PORT is 9090" },
              ],
              done: true,
            },
          },
        ],
      },
    ],
  });
  expect(run.code).toBe(0);
  expect(run.audit!.articles.flatMap((article) => article.edits.map((edit) => edit.id))).toEqual([
    "docs/faq.md#1",
    "docs/guide.md#1",
    "docs/guide.md#2",
    "docs/guide.md#3",
  ]);
  return repo;
}
