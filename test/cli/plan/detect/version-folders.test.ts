import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { main } from "../../../../cli/main.js";
import { olderVersionArticles, versionOfFolder } from "../../../../cli/plan/detect/version-folders.js";
import { ImpactPlanSchema } from "../../../../shared/plan.js";
import { gitRepo, type TestRepo } from "../../../helpers/git-repo.js";
import { captureIo } from "../../../helpers/io.js";

async function plan(repo: TestRepo, args: string[] = []) {
  const io = captureIo(repo.dir);
  const code = await main(["plan", ...args], io);
  expect(code, io.err).toBe(0);
  return io.out;
}

const planJson = async (repo: TestRepo) => ImpactPlanSchema.parse(JSON.parse(await plan(repo, ["--json"])));

const impacted = (found: z.infer<typeof ImpactPlanSchema>) =>
  found.articles.filter((article) => article.status === "impacted").map((article) => article.path);

const docs = (greet: string) => ({
  "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
  "docs/v1/greet.md": `# Greeting (v1)\n\nCall \`${greet}\` with a name.\n`,
  "docs/v2/greet.md": `# Greeting\n\nCall \`${greet}\` with a name.\n`,
});

describe("docs kept per major version", { timeout: 120_000 }, () => {
  it("lists the older version's article as related, so only the newest version's is flagged, cold and warm", async () => {
    const repo = gitRepo({
      ...docs("SayHello"),
      "greet.go": "package greet\n\nfunc SayHello(name string) string { return name }\n",
    });
    repo.commit({ "greet.go": "package greet\n\nfunc Greet(name string) string { return name }\n" });
    for (const run of ["cold", "warm"]) {
      const found = await planJson(repo);
      expect(impacted(found), run).toEqual(["docs/v2/greet.md"]);
      expect(found.related.map((article) => article.path)).toEqual(["docs/v1/greet.md"]);
    }
    expect(await plan(repo, ["--explain", "docs/v1/greet.md"])).toContain(
      "docs/v1/greet.md is related, not flagged: docs/v1 is an older version than docs/v2 (config versions); versions.editOlder: true makes it a candidate",
    );
    // With versions.editOlder the older article is a candidate again, at half its score.
    repo.write({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"], versions: { editOlder: true } }),
    });
    const found = await planJson(repo);
    const newest = found.articles.find((article) => article.path === "docs/v2/greet.md")!;
    expect(found.weak).toEqual([{ path: "docs/v1/greet.md", score: (newest.score ?? 0) / 2 }]);
    const explained = await plan(repo, ["--explain", "docs/v1/greet.md"]);
    expect(explained).toContain("docs/v1/greet.md is left out");
    expect(explained).toContain(
      "Scored at 0.5 of its reasons: docs/v1 documents an older version than docs/v2",
    );
  });

  it("keeps the older version's score when the change edits code kept under a folder of that version", async () => {
    const repo = gitRepo({
      ...docs("SayHello"),
      "v1/greet.go": "package greet\n\nfunc SayHello(name string) string { return name }\n",
    });
    repo.commit({ "v1/greet.go": "package greet\n\nfunc Greet(name string) string { return name }\n" });
    const found = await planJson(repo);
    expect(impacted(found).sort()).toEqual(["docs/v1/greet.md", "docs/v2/greet.md"]);
  });

  it("reads version folders, not dates or chapters, and compares only sibling folders", () => {
    expect(["v2", "v2.x", "version-3.x", "2.x", "V10"].map(versionOfFolder)).toEqual([2, 2, 3, 2, 10]);
    expect(["2024", "3", "v2beta", "api", "vendor"].map(versionOfFolder)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    const older = olderVersionArticles(
      ["docs/v1/a.md", "docs/v3/a.md", "docs/v2.x/b.md", "api/v1/users.md", "blog/2023/post.md", "README.md"],
      [],
    );
    expect([...older.keys()].sort()).toEqual(["docs/v1/a.md", "docs/v2.x/b.md"]);
    expect(older.get("docs/v2.x/b.md")).toEqual({ factor: 0.5, folder: "docs/v2.x", newest: "docs/v3" });
  });
});
