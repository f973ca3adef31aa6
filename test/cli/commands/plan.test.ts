import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderPlan } from "../../../cli/commands/plan.js";
import { main } from "../../../cli/main.js";
import { buildPlan } from "../../../cli/plan/build-plan.js";
import { ImpactPlanSchema } from "../../../shared/plan.js";
import { gitRepo, makeTempDir, type TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";

async function plan(repo: TestRepo, args: string[], stdin?: string) {
  const io = captureIo(repo.dir, {}, { stdin });
  const code = await main(["plan", ...args], io);
  const normalise = (text: string) =>
    text
      .replace(/\b[0-9a-f]{40}\b/g, "<sha>")
      .replace(/\b[0-9a-f]{12}\b/g, "<sha>")
      .replaceAll(repo.dir, "<repo>");
  return { code, out: normalise(io.out), err: normalise(io.err), raw: io.out };
}

/** A small project whose docs exercise every reason kind. */
function project(): TestRepo {
  return gitRepo({
    "impact.config.json": JSON.stringify({
      mappings: [{ code: "src/rules/:name.ts", docs: "docs/rules/:name.md" }],
    }),
    "src/auth.ts": "export function loginUser(name: string) {\n  return name;\n}\n",
    "src/rules/semi.ts": "export const semiRule = { severity: 'warn' };\n",
    "src/cli.ts": 'program.option("--dry-run", "print only");\nconst model = process.env.IMPACT_MODEL;\n',
    "src/legacy.ts": "export function legacyThing() {}\n",
    "docs/auth.md": "---\ntitle: Auth\nattention:\n  - op: file\n    path: src/auth.ts\n---\n# Auth\n",
    "docs/login.md": "# Login\n\nCall `loginUser(name)`.\n",
    "docs/rules/semi.md": "# semi\n",
    "docs/cli.md": "# CLI\n\nUse `--dry-run`, or set `IMPACT_MODEL`.\n",
    "docs/legacy.md": "# Legacy\n\nSee `src/legacy.ts`.\n",
    "docs/unrelated.md": "# Unrelated\n\nNothing to see.\n",
    "README.md": "# Project\n",
    "notes/ignored.md": "loginUser\n",
  });
}

describe("impact plan", () => {
  it("prints a table with every reason kind, touched articles and relevant files", async () => {
    const repo = project();
    repo.commit({
      "src/auth.ts": "export function loginUser(name: string, password: string) {\n  return name;\n}\n",
      "src/rules/semi.ts": "export const semiRule = { severity: 'error' };\n",
      "src/cli.ts":
        'program.option("--preview", "print only");\nconst model = process.env.IMPACT_MODEL_NAME;\n',
      "src/legacy.ts": null,
      "README.md": "# Project\n\nNow with passwords.\n",
    });
    const result = await plan(repo, ["--min-score", "0.3"]);
    expect(result.code).toBe(0);
    expect(result.out).toMatchInlineSnapshot(`
      "5 articles impacted, 1 touched by the change (<sha>..<sha>)

      ARTICLE             STATUS    SCORE  REASON     FILE               DETAIL
      docs/cli.md         impacted  0.96   reference  src/cli.ts         mentions --dry-run (flag, removed), IMPACT_MODEL (env, removed) (0.96)
      docs/auth.md        impacted  0.90   attention  src/auth.ts        attention file src/auth.ts (0.90)
      docs/rules/semi.md  impacted  0.80   mapping    src/rules/semi.ts  mapping src/rules/:name.ts → docs/rules/:name.md (name=semi) (0.80)
      docs/legacy.md      impacted  0.60   reference  src/legacy.ts      mentions the path src/legacy.ts (deleted) (0.60)
      docs/login.md       impacted  0.40   reference  src/auth.ts        mentions loginUser (function, changed) (0.40)
      README.md           touched   -      -          README.md          changed by the diff
      "
    `);
    expect(result.err).toBe("");
  });

  it("prints one zod-valid JSON object with --json, and exits 3 with --check", async () => {
    const repo = project();
    repo.commit({ "src/auth.ts": "export function loginUser(user: User) {\n  return user;\n}\n" });
    const json = await plan(repo, ["--json", "--min-score", "0.3"]);
    expect(json.code).toBe(0);
    const parsed = ImpactPlanSchema.parse(JSON.parse(json.raw));
    expect(parsed.head).toBe(repo.git("rev-parse", "HEAD"));
    expect(
      parsed.articles.map((article) => `${article.path} ${article.status} ${article.files.join(",")}`),
    ).toEqual(["docs/auth.md impacted src/auth.ts", "docs/login.md impacted src/auth.ts"]);
    const check = await plan(repo, ["--check", "--min-score", "0.3"]);
    expect(check.code).toBe(3);
    expect(check.err).toMatchInlineSnapshot(`
      "impact plan: 2 articles probably need an update that this change did not make: docs/auth.md, docs/login.md
      "
    `);
  });

  it("passes --check when the change updated its docs, and is quiet when nothing is impacted", async () => {
    const repo = project();
    repo.commit({
      "src/auth.ts": "export function loginUser(user: User) {\n  return user;\n}\n",
      "docs/auth.md":
        "---\ntitle: Auth\nattention:\n  - op: file\n    path: src/auth.ts\n---\n# Auth\n\nNew.\n",
      "docs/login.md": "# Login\n\nCall `loginUser(user)`.\n",
    });
    expect((await plan(repo, ["--check"])).code).toBe(0);
    repo.commit({ "src/constants.ts": "export const x = 1;\n" });
    const quiet = await plan(repo, ["--check"]);
    expect([quiet.code, quiet.out]).toEqual([0, "No article is impacted by <sha>..<sha>.\n"]);
  });

  it("finds articles naming a renamed file by its old path", async () => {
    const repo = project();
    repo.git("mv", "src/legacy.ts", "src/modern.ts");
    repo.commit({});
    const result = ImpactPlanSchema.parse(JSON.parse((await plan(repo, ["--json"])).raw));
    expect(result.articles).toEqual([
      {
        path: "docs/legacy.md",
        status: "impacted",
        // The old path is a statement the move made false: stale, on the line that writes it.
        tier: "stale",
        impact: [
          {
            kind: "reference",
            source: "src/modern.ts",
            detail: "mentions the path src/legacy.ts (renamed)",
            score: 0.6,
            stale: true,
            line: 3,
          },
        ],
        files: ["src/modern.ts"],
        score: 0.6,
      },
    ]);
  });

  it("reads --diff from a file and from standard input, and refuses what is not a diff", async () => {
    const repo = project();
    const diff = [
      "diff --git a/src/auth.ts b/src/auth.ts",
      "--- a/src/auth.ts",
      "+++ b/src/auth.ts",
      "@@ -1,3 +1,3 @@",
      "-export function loginUser(name: string) {",
      "+export function signInUser(name: string) {",
      "   return name;",
      " }",
      "",
    ].join("\n");
    const file = join(makeTempDir(), "change.diff");
    writeFileSync(file, diff);
    const fromFile = JSON.parse((await plan(repo, ["--json", "--diff", file])).raw);
    expect(fromFile.base).toMatch(/^diff:[0-9a-f]{16}$/);
    expect(fromFile.articles.map((article: { path: string }) => article.path)).toEqual([
      "docs/auth.md",
      "docs/login.md",
    ]);
    const fromStdin = JSON.parse((await plan(repo, ["--json", "--diff", "-"], diff)).raw);
    expect(fromStdin).toEqual(fromFile);
    const bad = await plan(repo, ["--diff", "-"], "just some text\n");
    expect([bad.code, bad.err]).toEqual([
      2,
      "impact plan: not a unified diff: no file headers (`diff --git` or `---`/`+++`) found\n",
    ]);
    const missing = await plan(repo, ["--diff", "nowhere.diff"]);
    expect([missing.code, missing.err]).toEqual([
      2,
      "impact plan: --diff <repo>/nowhere.diff: cannot read the diff file (ENOENT); check the path\n",
    ]);
  });

  it("exits 2 with one line for a bad config, an unknown revision and a non-repository", async () => {
    const repo = project();
    repo.commit({ "impact.config.json": JSON.stringify({ mappings: [{ code: "a", docs: 3 }] }) });
    const bad = await plan(repo, []);
    expect([bad.code, bad.err]).toEqual([
      2,
      "impact plan: impact.config.json: mappings[0].docs: expected string, received number\n",
    ]);
    repo.commit({ "impact.config.json": "{}" });
    const unknown = await plan(repo, ["--base", "v9.9.9"]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('unknown revision "v9.9.9" for --base');
    const elsewhere = await plan(repo, ["--repo", makeTempDir()]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.err).toMatch(/^impact plan: not a git repository: .*pass --repo DIR\)\n$/);
  });

  it("warns about broken frontmatter on stderr, naming the file and line", async () => {
    const repo = project();
    repo.commit({ "docs/broken.md": "---\nattention: [\n---\nCalls loginUser.\n" });
    repo.commit({ "src/auth.ts": "export function loginUser() {}\n" });
    const result = await plan(repo, []);
    expect(result.code).toBe(0);
    expect(result.out).toContain("docs/broken.md");
    expect(result.err).toMatch(/^warning: docs\/broken\.md:2: frontmatter is not valid YAML/);
  });

  it("does not follow a symlinked article out of the repository", async () => {
    const outside = makeTempDir();
    writeFileSync(join(outside, "secret.md"), "loginUser lives here\n");
    const repo = project();
    symlinkSync(join(outside, "secret.md"), join(repo.dir, "docs", "linked.md"));
    repo.commit({ "src/auth.ts": "export function loginUser(a: number) {}\n" });
    const result = ImpactPlanSchema.parse(
      JSON.parse((await plan(repo, ["--json", "--min-score", "0.3"])).raw),
    );
    expect(result.articles.map((article) => article.path)).toEqual(["docs/auth.md", "docs/login.md"]);
  });

  it("reads the docs of --head from that commit, and the working tree for the default head", async () => {
    const repo = project();
    const first = repo.commit({ "src/auth.ts": "export function loginUser(a: number) {}\n" });
    repo.commit({ "docs/login.md": "# Login\n\nNo names here any more.\n" });
    // At `first`, docs/login.md still named loginUser.
    const atFirst = await buildPlan({
      repo: repo.dir,
      head: first,
      minScore: 0.3,
      readStdin: async () => "",
    });
    expect(atFirst.articleSource).toEqual({ kind: "revision", revision: first });
    expect(atFirst.plan.articles.map((article) => article.path)).toContain("docs/login.md");
    // An uncommitted edit of the working tree is what the default head sees.
    repo.commit({ "src/auth.ts": "export function loginUser(b: string) {}\n" });
    repo.write({ "docs/login.md": "# Login\n\nloginUser again.\n" });
    const worktree = await buildPlan({ repo: repo.dir, minScore: 0.3, readStdin: async () => "" });
    expect(worktree.articleSource).toEqual({ kind: "worktree" });
    expect(worktree.plan.articles.map((article) => article.path)).toContain("docs/login.md");
  });
});

describe("the plan table", () => {
  it("groups an article's reasons by kind and file, and counts what does not fit", () => {
    const attention = Array.from({ length: 60 }, (_, index) => ({
      kind: "attention" as const,
      source: `src/file-${index % 10}.ts`,
      detail: `attention glob src/** (${index})`,
    }));
    const text = renderPlan({
      base: "a".repeat(40),
      head: "b".repeat(40),
      articles: [{ path: "docs/all.md", status: "touched", impact: attention, files: [] }],
      related: [],
      skipped: [],
      dropped: [],
      warnings: [],
    });
    expect(text.split("\n").filter((line) => line.includes("src/file-0.ts"))).toEqual([
      "docs/all.md  touched  -      attention  src/file-0.ts  attention glob src/** (0) (and 5 more)",
    ]);
    expect(text).toContain("       …          2 more files   all of them: impact plan --json");
    expect(text.split("\n")).toHaveLength(13);
  });
});
