import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseConfig } from "../../cli/config.js";
import { parseToolArguments } from "../../cli/run/tools/define.js";
import { editArticleSpec } from "../../shared/tools/edit-article.js";
import { describeFirstIssue, formatIssuePath, issueLines, listIssues } from "../../shared/zod-issues.js";

describe("the one zod-issue formatter", () => {
  it("writes paths as JavaScript would, quoting keys that are no identifiers", () => {
    expect(formatIssuePath([])).toBe("");
    expect(formatIssuePath(["mappings", 2, "docs"])).toBe("mappings[2].docs");
    expect(formatIssuePath(["articles", "docs/a.md", 0])).toBe('articles["docs/a.md"][0]');
    expect(formatIssuePath([0, "x"])).toBe("[0].x");
  });

  it("reports a union's closest branch, names unknown keys, and drops zod's preamble", () => {
    const schema = z.strictObject({
      edit: z.union([z.object({ a: z.string() }), z.object({ b: z.number(), c: z.number() })]),
    });
    const parsed = schema.safeParse({ edit: { a: 1 }, extra: 1, other: 2 });
    expect(parsed.success).toBe(false);
    expect(issueLines(parsed.error!.issues)).toEqual([
      { path: "edit.a", message: "expected string, received number" },
      { path: "", message: 'unknown keys "extra", "other"' },
    ]);
    expect(describeFirstIssue(parsed.error!.issues)).toBe(
      "edit.a: expected string, received number (and 1 more)",
    );
    expect(listIssues(parsed.error!.issues, { root: "(arguments)" })).toBe(
      '- edit.a: expected string, received number\n- (arguments): unknown keys "extra", "other"',
    );
  });

  it("gives the config and the tool arguments the same path for the same kind of field", () => {
    const config = (() => {
      try {
        parseConfig(JSON.stringify({ mappings: [{ code: "a", docs: 3 }] }));
      } catch (error) {
        return (error as Error).message;
      }
    })();
    const tool = parseToolArguments(
      editArticleSpec,
      JSON.stringify({ path: "docs/a.md", edits: [{ old_string: "a", new_string: "b" }] }),
    );
    expect(config).toContain("mappings[0].docs: ");
    expect(tool.ok ? "" : tool.message).toContain("- edits[0].reason: ");
  });
});
