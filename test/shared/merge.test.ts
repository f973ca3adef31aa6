import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import { type Audit, AuditSchema } from "../../shared/audit.js";
import { combinedPatch, mergeAudits } from "../../shared/merge.js";
import { selectShard } from "../../shared/shard.js";
import { auditArticle, auditOf, readAuditAt } from "../helpers/audit-fixture.js";
import { makeTempDir } from "../helpers/git-repo.js";
import { captureIo } from "../helpers/io.js";

const PATHS = [
  "README.md",
  "docs/a.md",
  "docs/auth/login.md",
  "docs/b.md",
  "docs/cli.md",
  "docs/config.md",
  "docs/deep/nested/x.mdx",
  "docs/z.md",
];

function wholeRun(): Audit {
  return auditOf(
    PATHS.map((path, index) =>
      auditArticle(path, {
        status: index % 3 === 0 ? "unchanged" : index % 3 === 1 ? "updated" : "failed",
        ...(index % 3 === 2 ? { error: { code: "max_turns", message: "turn limit reached" } } : {}),
      }),
    ),
  );
}

function shardsOf(audit: Audit, count: number): Audit[] {
  const paths = audit.articles.map((article) => article.path);
  return Array.from({ length: count }, (_, i) => {
    const mine = new Set(selectShard(paths, i + 1, count));
    const articles = audit.articles.filter((article) => mine.has(article.path));
    return auditOf(articles, {
      runId: `run-shard-${i + 1}`,
      shard: { index: i + 1, count },
      startedAt: `2026-01-01T00:00:0${i}.000Z`,
      finishedAt: `2026-01-01T00:00:0${i + 5}.000Z`,
    });
  });
}

/** The parts of an audit that must not depend on how the run was split. */
function comparable(audit: Audit) {
  return {
    base: audit.base,
    head: audit.head,
    model: audit.model,
    applied: audit.applied,
    articles: [...audit.articles].sort((a, b) => a.path.localeCompare(b.path)),
    totals: { ...audit.totals, durationMs: 0 },
  };
}

describe("mergeAudits", () => {
  it.each([1, 2, 3, 5])("merges %i shards back into the unsharded run", (count) => {
    const whole = wholeRun();
    const shards = shardsOf(whole, count);
    expect(shards.reduce((sum, shard) => sum + shard.articles.length, 0)).toBe(PATHS.length);
    const merged = mergeAudits(shards);
    expect(AuditSchema.parse(merged)).toEqual(merged);
    expect(comparable(merged)).toEqual(comparable(whole));
    expect(merged.shard).toBeUndefined();
    expect(combinedPatch(merged)).toBe(combinedPatch({ ...whole, articles: comparable(whole).articles }));
  });

  it("keeps each article once: a finished result beats a cancelled one, else the later audit wins", () => {
    const first = auditOf([auditArticle("docs/a.md"), auditArticle("docs/b.md", { status: "unchanged" })]);
    const second = auditOf([
      auditArticle("docs/a.md", { status: "cancelled" }),
      auditArticle("docs/b.md", { status: "updated" }),
    ]);
    const merged = mergeAudits([first, second]);
    expect(merged.articles.map((article) => `${article.path}:${article.status}`)).toEqual([
      "docs/a.md:updated",
      "docs/b.md:updated",
    ]);
    expect(merged.totals).toMatchObject({ articles: 2, updated: 2, cancelled: 0, promptTokens: 200 });
    expect(merged.totals.durationMs).toBe(5000);
  });

  it("refuses audits of different changes", () => {
    const one = auditOf([auditArticle("docs/a.md")]);
    const other = auditOf([auditArticle("docs/b.md")], { head: "c".repeat(40) });
    expect(() => mergeAudits([one, other])).toThrowErrorMatchingInlineSnapshot(
      `[UsageError: audits are of different changes (aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb and aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..cccccccccccccccccccccccccccccccccccccccc); merge only the shards of one run]`,
    );
  });
});

describe("impact merge", () => {
  it("writes the merged audit and the combined patch", async () => {
    const dir = makeTempDir();
    const shards = shardsOf(wholeRun(), 3);
    const names = shards.map((shard, index) => {
      const name = `shard-${index + 1}.json`;
      writeFileSync(join(dir, name), JSON.stringify(shard));
      return name;
    });
    const io = captureIo(dir);
    const code = await main(
      ["merge", ...names, "--out", "out/audit.json", "--patch", "out/impact.patch"],
      io,
    );
    expect(io.err).toBe("");
    expect(code).toBe(0);
    expect(io.out).toMatchInlineSnapshot(`
      "merged 3 audits into out/audit.json: 8 articles (3 updated, 3 unchanged, 2 failed)
      "
    `);
    const merged = readAuditAt(join(dir, "out/audit.json"));
    expect(comparable(merged)).toEqual(comparable(wholeRun()));
    expect(readFileSync(join(dir, "out/impact.patch"), "utf8")).toBe(combinedPatch(merged));
  });

  it("refuses audits of different base/head with exit 2 and writes nothing", async () => {
    const dir = makeTempDir();
    writeFileSync(join(dir, "a.json"), JSON.stringify(auditOf([auditArticle("docs/a.md")])));
    writeFileSync(
      join(dir, "b.json"),
      JSON.stringify(auditOf([auditArticle("docs/b.md")], { base: "d".repeat(40) })),
    );
    const io = captureIo(dir);
    expect(await main(["merge", "a.json", "b.json", "--out", "merged.json", "--patch", "m.patch"], io)).toBe(
      2,
    );
    expect(io.err.split("\n").filter(Boolean)).toHaveLength(1);
    expect(io.err).toContain("audits are of different changes");
    expect(existsSync(join(dir, "merged.json"))).toBe(false);
    expect(existsSync(join(dir, "m.patch"))).toBe(false);
  });

  it("names the bad field of a file that is not an audit", async () => {
    const dir = makeTempDir();
    writeFileSync(join(dir, "a.json"), JSON.stringify({ ...auditOf([]), version: 2 }));
    const io = captureIo(dir);
    expect(await main(["merge", "a.json", "--out", "merged.json"], io)).toBe(2);
    expect(io.err).toMatchInlineSnapshot(`
      "impact merge: a.json is not an audit: version: expected 1
      "
    `);
    expect(await main(["merge", "a.json"], io)).toBe(2);
    expect(io.err).toContain("--out FILE is required");
  });
});
