import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../../cli/main.js";
import { renderReport } from "../../../shared/render/report.js";
import { auditArticle, auditOf } from "../../helpers/audit-fixture.js";
import { makeTempDir } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";

const audit = auditOf([
  auditArticle("docs/unchanged.md", { status: "unchanged" }),
  auditArticle("docs/login.md"),
  auditArticle("docs/broken.md", {
    status: "failed",
    error: {
      code: "turn_cap",
      message: "turn cap reached: the article was not finished in 12 turns (--max-turns)",
    },
    summary: "turn cap reached",
  }),
]);

describe("renderReport", () => {
  it("renders a summary table, then reasons, edits with evidence and the diff per article", () => {
    expect(renderReport(audit)).toMatchInlineSnapshot(`
      "# Impact report

      Change \`aaaaaaaaaaaa\`..\`bbbbbbbbbbbb\` · model \`gpt-test\` · patches not applied.

      3 articles: 1 failed, 1 updated, 1 unchanged; 360 tokens.

      | Article | Status | Edits | Tokens |
      |---|---|---:|---:|
      | \`docs/broken.md\` | failed | 0 | 120 |
      | \`docs/login.md\` | updated | 1 | 120 |
      | \`docs/unchanged.md\` | unchanged | 0 | 120 |

      ## \`docs/broken.md\` — failed

      Why it was checked:

      - attention \`src/auth.ts\`: docs/broken.md watches src/auth.ts

      **Error (\`turn_cap\`):** turn cap reached: the article was not finished in 12 turns (--max-turns)

      > turn cap reached

      ## \`docs/login.md\` — updated

      Why it was checked:

      - attention \`src/auth.ts\`: docs/login.md watches src/auth.ts

      Edits:

      1. replace, line 3: The login flag was renamed from --user to --account.
         Evidence: \`src/auth.ts:12\`

      > Renamed the flag.

      \`\`\`diff
      --- a/docs/login.md
      +++ b/docs/login.md
      @@ -1,3 +1,3 @@
       # Login
       
      -Run \`impact login --user NAME\`.
      +Run \`impact login --account NAME\`.
      \`\`\`

      ## \`docs/unchanged.md\` — unchanged

      Why it was checked:

      - attention \`src/auth.ts\`: docs/unchanged.md watches src/auth.ts

      > Nothing in this article is affected.
      "
    `);
  });

  it("fences a patch that itself contains backticks so it cannot close the fence", () => {
    const patch = "--- a/docs/x.md\n+++ b/docs/x.md\n@@ -1 +1 @@\n-```js\n+````js\n";
    const text = renderReport(auditOf([auditArticle("docs/x.md", { patch })]));
    expect(text).toContain("`````diff\n--- a/docs/x.md");
  });
});

describe("impact report", () => {
  it("prints the Markdown report of an audit file, or the audit with --format json", async () => {
    const dir = makeTempDir();
    writeFileSync(join(dir, "audit.json"), JSON.stringify(audit));
    const io = captureIo(dir);
    expect(await main(["report", "audit.json"], io)).toBe(0);
    expect(io.out).toBe(renderReport(audit));
    const json = captureIo(dir);
    expect(await main(["report", "audit.json", "--format", "json"], json)).toBe(0);
    expect(JSON.parse(json.out).articles).toHaveLength(3);
  });

  it("refuses a file that is not an audit with one line and exit 2", async () => {
    const dir = makeTempDir();
    writeFileSync(join(dir, "bad.json"), JSON.stringify({ version: 1, articles: "nope" }));
    writeFileSync(join(dir, "text.json"), "not json");
    const bad = captureIo(dir);
    expect(await main(["report", "bad.json"], bad)).toBe(2);
    const text = captureIo(dir);
    expect(await main(["report", "text.json"], text)).toBe(2);
    const missing = captureIo(dir);
    expect(await main(["report", "missing.json"], missing)).toBe(2);
    const format = captureIo(dir);
    expect(await main(["report", "bad.json", "--format", "pdf"], format)).toBe(2);
    expect(
      [bad.err, text.err, missing.err, format.err].join("").replaceAll(dir, "<dir>"),
    ).toMatchInlineSnapshot(`
      "impact report: <dir>/bad.json is not an audit: runId: expected string, received undefined (and 8 more)
      impact report: <dir>/text.json is not an audit: not valid JSON
      impact report: cannot read audit <dir>/missing.json: no such file
      impact report: --format takes markdown, html or json, got "pdf"
      "
    `);
  });
});
