import { execFileSync, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, inject, it } from "vitest";
import { buildRepository } from "../../bench/plan.bench.js";
import { main } from "../../cli/main.js";
import { ImpactPlanSchema } from "../../shared/plan.js";
import { gitRepo, makeTempDir } from "../helpers/git-repo.js";
import { captureIo } from "../helpers/io.js";

/**
 * `impact plan --json <args>` from the built package, as users start it: its cli/bin.js in a
 * process of its own, which runs the bundle (.ci/bundle.mjs) with the symbol worker thread.
 * Returns the exit code and the output.
 */
async function builtPlan(
  dir: string,
  args: string[] = [],
): Promise<{ code: number; out: string; err: string }> {
  const result = spawnSync(
    process.execPath,
    [join(inject("builtPackage"), "cli", "bin.js"), "plan", "--json", ...args],
    {
      cwd: dir,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return { code: result.status ?? 1, out: result.stdout, err: result.stderr };
}

/**
 * `impact plan --json <args>` in `dir` from the built CLI and from the sources: the same
 * bytes on stdout, the same exit code. Returns the plan.
 */
async function expectSamePlan(dir: string, args: string[] = []): Promise<{ articles: { path: string }[] }> {
  const built = await builtPlan(dir, args);
  expect(built.err).toBe("");
  expect(built.code).toBe(0);
  const io = captureIo(dir);
  expect(await main(["plan", "--json", ...args], io)).toBe(0);
  expect(built.out).toBe(io.out);
  return ImpactPlanSchema.parse(JSON.parse(built.out));
}

/**
 * The built CLI extracts symbols on a worker thread (cli/plan/symbols/worker.ts, bundled
 * only); the sources, as vitest runs them, extract in-process. Both must plan the same.
 */
describe("impact plan, built (symbols on a worker thread) and from source", { timeout: 120_000 }, () => {
  it("gives the same plan, found through the changed symbols", async () => {
    const repo = gitRepo({
      "src/auth.ts":
        "export function loginUser(name: string): boolean {\n  return name.length > 0;\n}\n" +
        "export class SessionStore {\n  open(): void {}\n}\nexport const SESSION_TTL_SECONDS = 3600;\n",
      "src/util.py": "def parse_token(raw):\n    return raw\n",
      "docs/login.md": "# Login\n\nCall `loginUser(name)` to sign in.\n",
      "docs/sessions.md": "# Sessions\n\nA `SessionStore` keeps sessions for `SESSION_TTL_SECONDS`.\n",
      "docs/tokens.md": "# Tokens\n\n`parse_token` reads a token.\n",
      "docs/unrelated.md": "# Unrelated\n\nNothing here.\n",
    });
    repo.commit({
      "src/auth.ts":
        "export function loginUser(name: string, password: string): boolean {\n  return name.length > 0 && password.length > 0;\n}\n" +
        "export class SessionCache {\n  open(): void {}\n}\nexport const SESSION_TTL_SECONDS = 3600;\n",
      "src/util.py": "def parse_token(raw, strict=False):\n    return raw\n",
    });

    // The whole bar at 0.3: every article the changed symbols reach, not the ranking among them.
    const built = await builtPlan(repo.dir, ["--min-score", "0.3"]);
    expect(built.err).toBe("");
    expect(built.code).toBe(0);
    const io = captureIo(repo.dir);
    expect(await main(["plan", "--json", "--min-score", "0.3"], io)).toBe(0);
    expect(ImpactPlanSchema.parse(JSON.parse(built.out))).toEqual(ImpactPlanSchema.parse(JSON.parse(io.out)));
    expect(
      JSON.parse(built.out)
        .articles.map((article: { path: string }) => article.path)
        .sort(),
    ).toEqual(["docs/login.md", "docs/sessions.md", "docs/tokens.md"]);
  });

  it("gives the same plan on the benchmark's kind of repository (many articles, many changed files)", async () => {
    const dir = makeTempDir();
    buildRepository(dir, { articles: 400, files: 40 });
    const plan = await expectSamePlan(dir);
    // The article generator names a changed symbol in one article in 50.
    expect(plan.articles.length).toBeGreaterThan(0);
  });

  it("gives the same plan on the demo repository, its change and a doc-neutral one", async () => {
    const dir = makeTempDir();
    const demo = pathToFileURL(join(import.meta.dirname, "..", "..", "examples", "demo", "demo.mjs")).href;
    const { buildDemoRepository } = (await import(demo)) as { buildDemoRepository: (dir: string) => void };
    buildDemoRepository(dir);
    expect((await expectSamePlan(dir)).articles.length).toBeGreaterThan(0);
    writeFileSync(join(dir, "build.txt"), "no article watches or names this\n");
    const git = (...args: string[]) =>
      execFileSync("git", args, {
        cwd: dir,
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: "T",
          GIT_AUTHOR_EMAIL: "t@example.invalid",
          GIT_COMMITTER_NAME: "T",
          GIT_COMMITTER_EMAIL: "t@example.invalid",
        },
      });
    git("add", "build.txt");
    git("commit", "-q", "-m", "doc-neutral");
    expect((await expectSamePlan(dir)).articles).toEqual([]);
    // The demo's own change again, read from the revisions rather than the working tree.
    expect(
      (await expectSamePlan(dir, ["--base", "HEAD~2", "--head", "HEAD~1"])).articles.length,
    ).toBeGreaterThan(0);
  });

  it("gives the same plan with config rules, history, renames, deletions, untracked articles and --diff", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({
        docs: ["docs/**/*.md", "guides/*.md"],
        mappings: [{ code: "src/rules/:name.ts", docs: "docs/rules/:name.md" }],
      }),
      "src/rules/no-eval.ts": "export const NO_EVAL = 'no-eval';\n",
      "src/rules/semi.ts": "export function semi(): void {}\n",
      "src/cli.ts":
        "const options = { '--verbose': true };\nexport function runCli(argv: string[]): number {\n  return argv.length + Number(process.env.APP_TOKEN ?? 0);\n}\n",
      "lib/go/server.go": "package server\n\nfunc Serve(port int) error {\n\treturn nil\n}\n",
      "docs/rules/no-eval.md": "# no-eval\n\nThe `NO_EVAL` rule.\n",
      "docs/rules/semi.md": "# semi\n",
      "docs/cli.md":
        "---\nattention:\n  - op: file\n    path: src/cli.ts\n---\n# CLI\n\n`runCli` reads `APP_TOKEN` and `--verbose`.\n",
      "docs/server.md": "# Server\n\nCall `Serve(port)`.\n",
      "guides/old.md": "# Old\n\nMentions `semi()`.\n",
    });
    for (let round = 0; round < 3; round += 1) {
      repo.commit({
        "src/cli.ts": `const options = { '--verbose': true };\nexport function runCli(argv: string[]): number {\n  return argv.length + ${round};\n}\n`,
        "docs/server.md": `# Server\n\nCall \`Serve(port)\` (${round}).\n`,
      });
    }
    repo.commit({
      "src/rules/no-eval.ts":
        "export const NO_EVAL = 'no-eval-strict';\nexport function check(): boolean { return true; }\n",
      "src/rules/semi.ts": null,
      "src/rules/semicolons.ts": "export function semi(): void {}\n",
      "src/cli.ts":
        "const options = { '--verbose': true, '--dry-run': false };\nexport function runCli(argv: string[], strict = false): number {\n  return argv.length + Number(process.env.APP_SECRET_TOKEN ?? 0);\n}\n",
      "lib/go/server.go": "package server\n\nfunc Serve(port int, host string) error {\n\treturn nil\n}\n",
      "guides/old.md": null,
    });
    repo.write({ "docs/new.md": "# New\n\nAbout `runCli` and `check`.\n" });
    const plan = await expectSamePlan(repo.dir);
    expect(plan.articles.length).toBeGreaterThan(2);
    await expectSamePlan(repo.dir, ["--base", "HEAD~3"]);
    const diff = join(makeTempDir(), "change.diff");
    writeFileSync(diff, `${repo.git("diff", "HEAD~1", "HEAD")}\n`);
    await expectSamePlan(repo.dir, ["--diff", diff]);
  });
});
