import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../../cli/main.js";
import { type Audit, AuditSchema } from "../../../shared/audit.js";
import { mergeAudits } from "../../../shared/merge.js";
import { ImpactPlanSchema } from "../../../shared/plan.js";
import { renderComment } from "../../../shared/render/comment.js";
import { renderHtmlReport } from "../../../shared/render/html.js";
import { renderReport } from "../../../shared/render/report.js";
import { sweepTitle } from "../../../shared/render/sweep.js";
import { type FileTree, gitRepo, type TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";
import { runWithScript } from "../../helpers/run-impact.js";

async function plan(repo: TestRepo, args: string[]) {
  const io = captureIo(repo.dir);
  const code = await main(["plan", ...args], io);
  return { code, out: io.out.replace(/\b[0-9a-f]{12}\b/g, "<sha>"), err: io.err };
}

const source = (file: number, renamed: boolean) =>
  `export function ${renamed ? "fetch" : "load"}Unit${file}(input: string): string {\n  return input;\n}\n`;

/**
 * `count` source files each exporting one function, one article naming each, and an article
 * that also writes a function whose signature the change alters (stale for another reason).
 */
function renameRepo(count: number): TestRepo {
  const files: FileTree = {
    "src/other.ts": "export function keepShape(a: number): number {\n  return a;\n}\n",
    "docs/mixed.md": "# Mixed\n\nCall `loadUnit0()` and `keepShape(a)`.\n",
  };
  for (let file = 0; file < count; file += 1) {
    files[`src/unit${file}.ts`] = source(file, false);
    files[`docs/unit${file}.md`] =
      `# Unit ${file}\n\nSome words.\n\nCall \`loadUnit${file}()\` to load it.\n`;
  }
  const repo = gitRepo(files);
  const change: FileTree = {
    "src/other.ts": "export function keepShape(a: number, b: number): number {\n  return a + b;\n}\n",
  };
  for (let file = 0; file < count; file += 1) change[`src/unit${file}.ts`] = source(file, true);
  repo.commit(change, "rename every loader");
  return repo;
}

describe("a big rename is one sweep", () => {
  it("groups the articles naming an old name under one sweep in --json, flagging every one of them", async () => {
    const repo = renameRepo(12);
    const { code, out } = await plan(repo, ["--json"]);
    expect(code).toBe(0);
    const parsed = ImpactPlanSchema.parse(JSON.parse(out));
    // Every article naming an old name is still flagged (and so checked and run).
    const flagged = parsed.articles.filter((article) => article.status === "impacted").map((a) => a.path);
    expect(flagged.sort()).toEqual(
      ["docs/mixed.md", ...Array.from({ length: 12 }, (_, i) => `docs/unit${i}.md`)].sort(),
    );
    expect(parsed.sweeps).toHaveLength(1);
    const sweep = parsed.sweeps![0]!;
    expect(sweep.changes).toEqual([{ change: "renamed", kind: "function", count: 12 }]);
    expect(sweep.files).toHaveLength(12);
    expect(sweep.articles).toHaveLength(13);
    expect(sweep.articles.find((article) => article.path === "docs/unit3.md")).toEqual({
      path: "docs/unit3.md",
      names: ["loadUnit3"],
      line: 5,
    });
    expect(sweepTitle(sweep)).toBe("renamed 12 functions; 13 articles name an old name");
    // The reasons say which sweep they belong to; the signature change in mixed.md does not.
    const mixed = parsed.articles.find((article) => article.path === "docs/mixed.md")!;
    expect(
      mixed.impact.filter((reason) => reason.stale).map((reason) => [reason.source, reason.sweep]),
    ).toEqual(
      expect.arrayContaining([
        ["src/unit0.ts", "names"],
        ["src/other.ts", undefined],
      ]),
    );
  });

  it("prints one sweep line with its articles under it instead of a row each, and --check still fails on them", async () => {
    const repo = renameRepo(12);
    const { code, out } = await plan(repo, []);
    expect(code).toBe(0);
    const lines = out.split("\n");
    expect(lines[0]).toBe("13 articles impacted, 0 touched by the change (<sha>..<sha>)");
    // Only the article with other stale evidence keeps a row in the table.
    expect(lines.filter((line) => line.startsWith("docs/"))).toEqual([
      expect.stringMatching(/^docs\/mixed\.md\s+impacted/),
    ]);
    expect(out).toContain(
      "Sweep: renamed 12 functions; 13 articles name an old name (declared in src/unit0.ts, src/unit1.ts, src/unit10.ts, and 9 more):",
    );
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}docs\/unit3\.md:5\s+loadUnit3$/));
    expect(lines.filter((line) => line.startsWith("  docs/"))).toHaveLength(13);
    const check = await plan(repo, ["--check"]);
    expect(check.code).toBe(3);
    expect(check.err).toContain(
      "13 articles probably need an update that this change did not make: docs/mixed.md, docs/unit0.md, docs/unit1.md, docs/unit10.md, docs/unit11.md and 8 more; 13 of them under one sweep (renamed 12 functions; 13 articles name an old name)",
    );
  });

  it("says under --explain that the article is listed under the sweep", async () => {
    const repo = renameRepo(12);
    const { code, out } = await plan(repo, ["--explain", "docs/unit3.md"]);
    expect(code).toBe(0);
    expect(out).toContain(
      "Sweep: renamed 12 functions; 13 articles name an old name; this article writes loadUnit3 (listed under the sweep)",
    );
  });

  it("keeps a small rename as rows of its own", async () => {
    const repo = renameRepo(3);
    const { out } = await plan(repo, ["--json"]);
    const parsed = ImpactPlanSchema.parse(JSON.parse(out));
    expect(parsed.sweeps).toBeUndefined();
    expect(
      parsed.articles.every((article) => article.impact.every((reason) => reason.sweep === undefined)),
    ).toBe(true);
    const text = await plan(repo, []);
    expect(text.out).not.toContain("Sweep:");
    expect(text.out).toMatch(/^docs\/unit1\.md\s+impacted/m);
  });
});

describe("a sweep through impact run and its renderers", () => {
  it("carries each shard's sweep articles into its audit; merged, the comment and both reports list them under one sweep", async () => {
    const repo = renameRepo(12);
    const audits: Audit[] = [];
    for (const shard of ["1/2", "2/2"]) {
      const out = `.impact/audit-${shard.replace("/", "-")}.json`;
      const run = await runWithScript(repo.dir, () => ({ content: "Nothing to change." }), [
        "--shard",
        shard,
        "--out",
        out,
      ]);
      expect(run.code).toBe(0);
      const audit = AuditSchema.parse(JSON.parse(readFileSync(join(repo.dir, out), "utf8")));
      const inSweep = audit.articles.filter((article) =>
        article.impact.some((reason) => reason.sweep === "names"),
      );
      expect(audit.sweeps?.[0]?.articles.map((article) => article.path).sort()).toEqual(
        inSweep.map((article) => article.path).sort(),
      );
      audits.push(audit);
    }
    const merged = mergeAudits(audits);
    expect(merged.sweeps?.[0]?.articles).toHaveLength(13);

    const comment = renderComment(merged).body;
    expect(comment).toContain(
      "<summary><b>Sweep</b>: renamed 12 functions; 13 articles name an old name — 13 ✅ unchanged</summary>",
    );
    expect(comment).toContain("- `docs/unit3.md` — ✅ unchanged (writes `loadUnit3`)");
    // The table keeps a row only for the article with other stale evidence.
    expect(comment).toContain("| `docs/mixed.md` |");
    expect(comment).not.toContain("| `docs/unit3.md` |");

    const report = renderReport(merged);
    expect(report).toContain("Sweep: renamed 12 functions; 13 articles name an old name:");
    expect(report).toContain("- `docs/unit3.md` — unchanged (writes `loadUnit3`)");
    expect(report).not.toContain("| `docs/unit3.md` |");

    const html = renderHtmlReport(merged);
    expect(html).toContain("<h2>Sweep: renamed 12 functions; 13 articles name an old name</h2>");
    expect(html).not.toMatch(/<td class="path"><a href="#article-\d+">docs\/unit3\.md<\/a>/);
    expect(html).toMatch(
      /<li><a href="#article-\d+">docs\/unit3\.md<\/a> <span class="badge status-unchanged">/,
    );
  });
});
