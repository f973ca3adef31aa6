import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG, NEW_PATH, RULE_README, RULES_LIST, rulesRepo } from "../../../helpers/rules-repo.js";
import { runWithScript } from "../../../helpers/run-impact.js";
import type { ScriptStep } from "../../../helpers/scripted-model-server.js";

// The plan's side (the new article planned, with its siblings as models) is in
// new-articles.test.ts; here each test is a whole `impact run` that creates the article or not.

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
