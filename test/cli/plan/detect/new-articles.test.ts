import { describe, expect, it } from "vitest";
import { main } from "../../../../cli/main.js";
import { newArticles } from "../../../../cli/plan/detect/new-articles.js";
import { failLinksToMissingArticles } from "../../../../cli/run/new-article-links.js";
import type { AuditArticle } from "../../../../shared/audit.js";
import type { ChangedFile } from "../../../../shared/changeset.js";
import { ImpactPlanSchema } from "../../../../shared/plan.js";
import { captureIo } from "../../../helpers/io.js";
import { CONFIG, NEW_PATH, rulesRepo } from "../../../helpers/rules-repo.js";

describe("new code, new docs", () => {
  it("plans the README of an added rule as new, with its siblings as models", async () => {
    const repo = rulesRepo();
    const io = captureIo(repo.dir);
    expect(await main(["plan", "--json"], io)).toBe(0);
    const plan = ImpactPlanSchema.parse(JSON.parse(io.out));
    const fresh = plan.articles.find((article) => article.path === NEW_PATH);
    expect(fresh).toMatchObject({
      status: "new",
      tier: "new",
      models: [
        "lib/rules/color-no-invalid-hex/README.md",
        "lib/rules/font-family-no-duplicate-names/README.md",
      ],
      files: ["lib/rules/selector-no-invalid/index.js"],
    });
    expect(plan.articles.map((article) => article.path)).toContain("docs/user-guide/rules.md");
    // --explain of the page that does not exist yet says why the change calls for it.
    const explained = captureIo(repo.dir);
    expect(await main(["plan", "--explain", NEW_PATH], explained)).toBe(0);
    expect(explained.out).toContain(
      `${NEW_PATH} does not exist; the change calls for it as a new article: score 0.80`,
    );
    expect(explained.out).toContain("0.80   mapping  relevance  lib/rules/selector-no-invalid/index.js");

    const human = captureIo(repo.dir);
    expect(await main(["plan"], human)).toBe(0);
    expect(human.out).toMatch(/impacted, 0 touched, 1 new by the change/);
    expect(human.out).toContain(
      `New articles (impact run --allow-create writes them, following their models):\n  ${NEW_PATH} (like lib/rules/color-no-invalid-hex/README.md, lib/rules/font-family-no-duplicate-names/README.md)`,
    );
  });
});

describe("newArticles", () => {
  const added = (path: string): ChangedFile => ({
    path,
    status: "added",
    binary: false,
    hunks: [],
    patch: "",
  });
  const input = {
    mappings: CONFIG.mappings,
    articlePaths: new Set(["lib/rules/a/README.md"]),
    sortedArticles: ["lib/rules/a/README.md"],
    isArticlePath: (path: string) => path.endsWith(".md"),
  };

  it("needs an added file, a missing article under the docs globs and an existing sibling", () => {
    expect(newArticles({ ...input, evidence: [added("lib/rules/b/index.js")] }).map((a) => a.path)).toEqual([
      "lib/rules/b/README.md",
    ]);
    // A modified file calls for no new page; nor does a mapping none of whose pages exist.
    expect(
      newArticles({ ...input, evidence: [{ ...added("lib/rules/b/index.js"), status: "modified" }] }),
    ).toEqual([]);
    expect(
      newArticles({
        ...input,
        sortedArticles: [],
        articlePaths: new Set(),
        evidence: [added("lib/rules/b/index.js")],
      }),
    ).toEqual([]);
    expect(
      newArticles({ ...input, isArticlePath: () => false, evidence: [added("lib/rules/b/index.js")] }),
    ).toEqual([]);
    // The siblings most like the new page come first as models.
    const siblings = [
      "lib/rules/alpha-value/README.md",
      "lib/rules/a/README.md",
      "lib/rules/selector-max-id/README.md",
    ];
    expect(
      newArticles({
        ...input,
        articlePaths: new Set(siblings),
        sortedArticles: [...siblings].sort(),
        evidence: [added("lib/rules/selector-no-invalid/index.js")],
      })[0]?.models,
    ).toEqual([
      "lib/rules/selector-max-id/README.md",
      "lib/rules/a/README.md",
      "lib/rules/alpha-value/README.md",
    ]);
    // Dismissed for that file: not proposed.
    expect(
      newArticles({ ...input, evidence: [added("lib/rules/b/index.js")], isDismissed: () => true }),
    ).toEqual([]);
  });
});

describe("failLinksToMissingArticles", () => {
  const usage = { turns: 1, llmCalls: 1, promptTokens: 0, completionTokens: 0, toolCalls: {}, toolErrors: 0 };
  const linking: AuditArticle = {
    path: "docs/rules.md",
    status: "updated",
    impact: [],
    edits: [{ kind: "replace", reason: "link the rule", startLine: 2, endLine: 2, evidence: [] }],
    editReasons: ["link the rule"],
    patch: "--- a/docs/rules.md\n+++ b/docs/rules.md\n@@ -1 +1,2 @@\n # Rules\n+- [b](../lib/b/README.md)\n",
    hashBefore: "aaaa",
    hashAfter: "bbbb",
    summary: "linked",
    usage,
  };

  it("fails an article whose patch links to a planned new article that was not created", () => {
    const [result] = failLinksToMissingArticles([linking], ["lib/b/README.md"]);
    expect(result).toMatchObject({
      status: "failed",
      patch: "",
      hashAfter: "aaaa",
      error: {
        code: "link_to_missing_article",
        message:
          "an edit links to lib/b/README.md, the new article this run was to create, which was not created; the edits were dropped",
      },
    });
    const created: AuditArticle = { ...linking, path: "lib/b/README.md", created: true, hashBefore: null };
    expect(failLinksToMissingArticles([created, linking], ["lib/b/README.md"])[1]).toBe(linking);
  });
});
