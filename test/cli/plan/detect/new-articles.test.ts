import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../../../cli/main.js";
import { newArticles } from "../../../../cli/plan/detect/new-articles.js";
import { failLinksToMissingArticles } from "../../../../cli/run/new-article-links.js";
import type { AuditArticle } from "../../../../shared/audit.js";
import type { ChangedFile } from "../../../../shared/changeset.js";
import { ImpactPlanSchema } from "../../../../shared/plan.js";
import { gitRepo, type TestRepo } from "../../../helpers/git-repo.js";
import { captureIo } from "../../../helpers/io.js";
import { runWithScript } from "../../../helpers/run-impact.js";
import type { ScriptStep } from "../../../helpers/scripted-model-server.js";

const RULE_README = (name: string) => `# ${name}

Disallow ${name.replace(/-/g, " ")}.

## Options

### \`true\`

The rule is on.
`;

const RULES_LIST = `# Rules

- [color-no-invalid-hex](../../lib/rules/color-no-invalid-hex/README.md): Disallow invalid hex colors.
- [font-family-no-duplicate-names](../../lib/rules/font-family-no-duplicate-names/README.md): Disallow duplicate font family names.
`;

const CONFIG = {
  docs: ["docs/**/*.md", "lib/rules/*/README.md"],
  mappings: [
    { code: "lib/rules/:name/index.js", docs: "lib/rules/:name/README.md" },
    { code: "lib/rules/*/index.js", docs: "docs/user-guide/rules.md" },
  ],
};

/** stylelint's layout: one folder per rule with its code and README, and a list of all rules. */
function rulesRepo(config: object = CONFIG): TestRepo {
  const repo = gitRepo({
    "impact.config.json": JSON.stringify(config),
    "lib/rules/color-no-invalid-hex/index.js": "module.exports = function colorNoInvalidHex() {};\n",
    "lib/rules/color-no-invalid-hex/README.md": RULE_README("color-no-invalid-hex"),
    "lib/rules/font-family-no-duplicate-names/index.js":
      "module.exports = function fontFamilyNoDuplicateNames() {};\n",
    "lib/rules/font-family-no-duplicate-names/README.md": RULE_README("font-family-no-duplicate-names"),
    "docs/user-guide/rules.md": RULES_LIST,
  });
  repo.commit({
    "lib/rules/selector-no-invalid/index.js":
      "// Disallow invalid selectors.\nmodule.exports = function selectorNoInvalid() {};\n",
  });
  return repo;
}

const NEW_PATH = "lib/rules/selector-no-invalid/README.md";

const createCall = {
  name: "create_article",
  arguments: {
    path: NEW_PATH,
    content: RULE_README("selector-no-invalid"),
    reason: "lib/rules/selector-no-invalid/index.js adds the rule; every rule has a README",
  },
};

const linkCall = {
  name: "edit_article",
  arguments: {
    path: "docs/user-guide/rules.md",
    edits: [
      {
        old_string:
          "- [font-family-no-duplicate-names](../../lib/rules/font-family-no-duplicate-names/README.md): Disallow duplicate font family names.\n",
        new_string:
          "- [font-family-no-duplicate-names](../../lib/rules/font-family-no-duplicate-names/README.md): Disallow duplicate font family names.\n- [selector-no-invalid](../../lib/rules/selector-no-invalid/README.md): Disallow invalid selectors.\n",
        reason: "the change adds the rule selector-no-invalid",
      },
    ],
    done: true,
  },
};

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

  it("creates the README and links it from the list in one run; --apply writes both", async () => {
    const repo = rulesRepo();
    const steps: Record<string, ScriptStep[]> = {
      [NEW_PATH]: [{ toolCalls: [createCall] }, { content: "Wrote the rule's README after its siblings." }],
      "docs/user-guide/rules.md": [{ toolCalls: [linkCall] }],
    };
    const run = await runWithScript(repo.dir, steps, ["--allow-create", "--apply"]);
    expect(run.io.err).toBe("");
    expect(run.code).toBe(0);
    const byPath = new Map(run.audit!.articles.map((article) => [article.path, article]));
    expect(byPath.get(NEW_PATH)).toMatchObject({ status: "updated", created: true, hashBefore: null });
    expect(byPath.get("docs/user-guide/rules.md")?.status).toBe("updated");
    expect(run.io.out).toMatch(/^new +lib\/rules\/selector-no-invalid\/README.md \(1 edit\)$/m);
    // The new article ran first, to the end: its first message shows the models, not a text to check.
    const first = run.server.requests[0]!;
    expect(first.article).toBe(NEW_PATH);
    const message = JSON.stringify(first.body.messages);
    expect(message).toContain("Status: new (this file does not exist yet)");
    expect(message).toContain('<model path=\\"lib/rules/color-no-invalid-hex/README.md\\">');
    expect(readFileSync(join(repo.dir, NEW_PATH), "utf8")).toBe(RULE_README("selector-no-invalid"));
    expect(readFileSync(join(repo.dir, "docs/user-guide/rules.md"), "utf8")).toContain(
      "[selector-no-invalid](../../lib/rules/selector-no-invalid/README.md)",
    );
  });

  it("takes allowCreate from the config, and without it leaves the new article skipped, saying how", async () => {
    const allowed = rulesRepo({ ...CONFIG, allowCreate: true });
    const run = await runWithScript(allowed.dir, {
      [NEW_PATH]: [{ toolCalls: [createCall] }, { content: "Done." }],
      "docs/user-guide/rules.md": [{ content: "The list is generated elsewhere." }],
    });
    expect(run.code).toBe(0);
    expect(run.audit!.articles.find((article) => article.path === NEW_PATH)?.created).toBe(true);

    const refused = rulesRepo();
    const plain = await runWithScript(refused.dir, {
      "docs/user-guide/rules.md": [{ content: "The list is generated elsewhere." }],
    });
    expect(plain.code).toBe(0);
    expect(plain.audit!.articles.find((article) => article.path === NEW_PATH)).toMatchObject({
      status: "skipped",
      summary:
        'a new article the change calls for; creating it needs --allow-create (or "allowCreate": true in impact.config.json)',
    });
    expect(plain.server.requests.every((request) => request.article !== NEW_PATH)).toBe(true);
  });

  it("refuses a link to a new article that was not created; the article whose model then stopped gave up", async () => {
    const repo = rulesRepo();
    const run = await runWithScript(
      repo.dir,
      {
        [NEW_PATH]: [{ content: "This rule needs no page of its own." }],
        "docs/user-guide/rules.md": [
          { toolCalls: [linkCall] },
          { content: "The link was refused, so I stopped." },
        ],
      },
      ["--allow-create", "--apply"],
    );
    const list = run.audit!.articles.find((article) => article.path === "docs/user-guide/rules.md");
    // The after-edit check saw no such file: the model heard it, and nothing was written.
    const toolResult = JSON.stringify(run.server.requests.at(-1)!.body.messages);
    expect(toolResult).toContain("points at lib/rules/selector-no-invalid/README.md, which does not exist");
    expect(list?.patch).toBe("");
    // Honest status: the edit was refused and the model stopped, so the list may still be wrong.
    expect(list).toMatchObject({
      status: "gave_up",
      summary: "The link was refused, so I stopped.",
      error: { code: "edit_refused" },
    });
    expect(list?.error?.message).toMatch(
      /^Edit 0: .*points at lib\/rules\/selector-no-invalid\/README.md, which does not exist/,
    );
    expect(run.code).toBe(1);
    expect(run.io.out).toMatch(/gave_up\s+docs\/user-guide\/rules.md: Edit 0: line 5: the new link/);
    expect(run.io.out).toContain("1 gave up");
    expect(existsSync(join(repo.dir, NEW_PATH))).toBe(false);
    expect(readFileSync(join(repo.dir, "docs/user-guide/rules.md"), "utf8")).toBe(RULES_LIST);
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
