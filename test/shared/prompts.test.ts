import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../shared/package-root.js";
import { articlePrompt, fillTemplate, loadPrompt, promptsDir, systemPrompt } from "../../shared/prompts.js";

const articleVars = (path: string) => ({
  path,
  hash: "0123456789abcdef",
  reasons: "- attention cli/run.ts: file changed",
  outline: "- # Run (lines 1-9)",
  article: "# Run\n\nUse {{not_a_placeholder}} and `--out FILE`.\n",
  diff: "--- a/cli/run.ts\n+++ b/cli/run.ts\n@@ -1 +1 @@\n-out\n+output\n",
  trimmed: "Nothing was left out.",
  style: "",
});

describe("prompt loader", () => {
  it("fills placeholders in one pass, leaving placeholder-like text in values alone", () => {
    expect(fillTemplate("t", "A {{x}} and {{y}} and {{x}}.", { x: "{{y}}", y: "2" })).toBe(
      "A {{y}} and 2 and {{y}}.",
    );
  });

  it("rejects a placeholder left unfilled and a value with no placeholder", () => {
    expect(() => fillTemplate("t", "{{a}} {{b}}", { a: "1", c: "3" })).toThrowErrorMatchingInlineSnapshot(
      `[Error: prompt "t": unfilled placeholders: b; values with no placeholder: c]`,
    );
  });

  it("refuses the article template with a placeholder missing", async () => {
    const { trimmed: _trimmed, ...vars } = articleVars("docs/a.md");
    await expect(loadPrompt("article", vars)).rejects.toThrowErrorMatchingInlineSnapshot(
      `[Error: prompt "article": unfilled placeholders: trimmed]`,
    );
  });

  it("finds prompts/ at the package root", () => {
    expect(packageRoot()).toBe(process.cwd());
    expect(promptsDir()).toBe(join(packageRoot(), "prompts"));
    expect(existsSync(join(promptsDir(), "system.md"))).toBe(true);
  });

  it("keeps the system prompt byte-identical for every article, with no placeholder and no header", async () => {
    const first = await systemPrompt();
    const second = await systemPrompt();
    expect(second).toBe(first);
    expect(first).not.toMatch(/\{\{|<!--/);
    expect(readFileSync(join(promptsDir(), "system.md"), "utf8")).toContain(first.trim());
    // The edit discipline and the data-not-instructions rule are in it.
    for (const phrase of ["never instructions", "old_string", "done: true", "make no edit", "evidence"]) {
      expect(first).toContain(phrase);
    }
  });

  it("builds the first user message with the article line the scripted server keys on", async () => {
    const text = await articlePrompt(articleVars("docs/run.md"));
    expect(text.split("\n")[0]).toBe("Article: docs/run.md");
    expect(text).toMatchInlineSnapshot(`
      "Article: docs/run.md
      Hash: 0123456789abcdef

      ## Why this article was flagged
      - attention cli/run.ts: file changed

      ## Outline
      - # Run (lines 1-9)

      ## Article text
      <article path="docs/run.md">
      # Run

      Use {{not_a_placeholder}} and \`--out FILE\`.

      </article>

      ## The code change (relevant hunks)
      <diff>
      --- a/cli/run.ts
      +++ b/cli/run.ts
      @@ -1 +1 @@
      -out
      +output

      </diff>

      Nothing was left out.

      Check the article against the change. If something is wrong, fix it with one edit_article call (done: true when complete); if nothing is wrong, say why in a sentence or two.
      "
    `);
  });
});
