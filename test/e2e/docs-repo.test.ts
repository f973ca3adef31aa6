import { execFile } from "node:child_process";
import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { parse } from "yaml";
import { tokenAuth } from "../../backend/github-auth.js";
import { main } from "../../cli/main.js";
import { SandboxPolicy } from "../../cli/run/sandbox.js";
import { Workspace } from "../../cli/run/workspace.js";
import { renderHtmlReport } from "../../shared/render/html.js";
import { renderReport } from "../../shared/render/report.js";
import { actionStepEnv, fakeGh } from "../helpers/action-step.js";
import { auditArticle, auditOf } from "../helpers/audit-fixture.js";
import { startPullRequestBot } from "../helpers/bot.js";
import { startFakeGitHub } from "../helpers/fake-github.js";
import { gitRepo, makeTempDir, type TestRepo } from "../helpers/git-repo.js";
import { captureIo } from "../helpers/io.js";
import { runWithScript, TEST_KEY } from "../helpers/run-impact.js";
import { type ScriptStep, startScriptedModelServer } from "../helpers/scripted-model-server.js";
import { testToolHost } from "../helpers/tool-host.js";
import { pullRequestPayload } from "../helpers/webhook-delivery.js";

/** An article of the docs repository that watches the code repository's src/server.ts. */
const SERVER_DOC = `---
attention:
  - op: file
    path: src/server.ts
---
# Server

It listens on port 8080 by default.
`;

/**
 * A code repository whose change moves the default port from 8080 to 9090, and a separate
 * docs repository (folder `website`) with the article that states it. The code repository
 * also has a README.md, as does the docs repository: same path, two files.
 */
function codeAndDocs(config: object = {}): { code: TestRepo; docs: TestRepo; base: string } {
  const docs = gitRepo({
    "content/server.md": SERVER_DOC,
    "README.md": "# Website\n",
  });
  const code = gitRepo({
    "src/server.ts": "export const DEFAULT_PORT = 8080;\n",
    "README.md": "# Server\n",
    "impact.config.json": JSON.stringify({
      docs: ["content/**/*.md", "*.md"],
      docsRepoName: "website",
      ...config,
    }),
  });
  const base = code.git("rev-parse", "HEAD");
  code.commit({ "src/server.ts": "export const DEFAULT_PORT = 9090;\n", "README.md": "# Server 2\n" });
  return { code, docs, base };
}

async function impact(cwd: string, args: string[], env: Record<string, string> = {}) {
  const io = captureIo(cwd, env);
  const code = await main(args, io);
  return { code, io };
}

describe("plan --docs-repo", () => {
  it("reads the change from the code repository and the articles from the docs repository, named website:PATH", async () => {
    const { code, docs } = codeAndDocs();
    const { code: exit, io } = await impact(code.dir, ["plan", "--json", "--docs-repo", docs.dir]);
    expect(io.err).toBe("");
    expect(exit).toBe(0);
    const plan = JSON.parse(io.out);
    expect(plan.docsRepository).toEqual({ name: "website", head: docs.git("rev-parse", "HEAD") });
    expect(
      plan.articles.map((article: { path: string; status: string }) => [article.path, article.status]),
    ).toEqual([["website:content/server.md", "impacted"]]);
    expect(plan.articles[0].files).toEqual(["src/server.ts"]);
    // The code's README.md changed too: not the docs repository's README.md, so nothing is touched.
    expect(io.out).not.toContain("touched");

    const explained = await impact(code.dir, [
      "plan",
      "--json",
      "--docs-repo",
      docs.dir,
      "--explain",
      "website:content/server.md",
    ]);
    expect(explained.code).toBe(0);
    expect(JSON.parse(explained.io.out)).toMatchObject({
      path: "website:content/server.md",
      status: "impacted",
    });
  });
});

/** A child process run asynchronously (the scripted model server answers in this process), with a clean git config. */
function spawnAsync(file: string, args: string[], cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolvePromise) => {
    execFile(
      file,
      args,
      {
        cwd,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          GIT_CONFIG_NOSYSTEM: "1",
          GIT_CONFIG_GLOBAL: "/dev/null",
          ...env,
        },
        encoding: "utf8",
      },
      (error, stdout, stderr) =>
        resolvePromise({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The built CLI as a child process. */
function builtImpact(cwd: string, args: string[], env: Record<string, string> = {}) {
  return spawnAsync(process.execPath, [join(inject("builtPackage"), "cli", "bin.js"), ...args], cwd, env);
}

/** The model's answer for the docs repository's article: one exact edit, then done. */
const EDIT_WEBSITE_ARTICLE: ScriptStep[] = [
  {
    toolCalls: [
      { name: "read_file", arguments: { path: "src/server.ts" } },
      { name: "outline_article", arguments: { path: "website:content/server.md" } },
    ],
  },
  {
    toolCalls: [
      {
        name: "edit_article",
        arguments: {
          path: "website:content/server.md",
          edits: [
            {
              old_string: "port 8080 by default",
              new_string: "port 9090 by default",
              reason: "DEFAULT_PORT is 9090",
              evidence: ["src/server.ts:1"],
            },
          ],
          done: true,
        },
      },
    ],
  },
];

describe("a code repository and a separate docs repository, end to end through the built CLI", () => {
  it("plans, runs with --apply into the docs repository only, reports, comments (dry run) and applies again", async () => {
    const { code, docs } = codeAndDocs();
    const server = await startScriptedModelServer(EDIT_WEBSITE_ARTICLE);
    onTestFinished(() => server.close());
    const env = { OPENAI_API_KEY: TEST_KEY, OPENAI_BASE_URL: server.url, IMPACT_MODEL: "test-model" };

    const plan = await builtImpact(code.dir, ["plan", "--json", "--docs-repo", docs.dir]);
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.stdout).articles.map((article: { path: string }) => article.path)).toEqual([
      "website:content/server.md",
    ]);

    const run = await builtImpact(code.dir, ["run", "--apply", "--docs-repo", docs.dir], env);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    // The first message says how the two repositories' paths are told apart.
    const first = server.requests[0]!.body.messages!.find((message) => message.role === "user");
    expect(String(first?.content)).toContain(
      'The docs are in the repository "website", whose paths start with `website:`',
    );
    // The model read code from the code repository and the article from the docs repository.
    const toolResults = server.requests[1]!.body.messages!.filter((message) => message.role === "tool");
    expect(String(toolResults[0]!.content)).toContain("export const DEFAULT_PORT = 9090;");
    expect(String(toolResults[1]!.content)).toContain("Server");
    // The edit landed in the docs repository; the code repository's tree is as it was.
    expect(readFileSync(join(docs.dir, "content/server.md"), "utf8")).toContain("port 9090 by default");
    expect(code.git("status", "--porcelain")).toBe("");
    const audit = JSON.parse(readFileSync(join(code.dir, ".impact/audit.json"), "utf8"));
    // The docs repository's commit the articles were read at.
    expect(audit.docsRepository).toEqual({ name: "website", head: docs.git("rev-parse", "HEAD") });
    expect(audit.applied).toBe(true);
    expect(
      audit.articles.map((article: { path: string; status: string }) => [article.path, article.status]),
    ).toEqual([["website:content/server.md", "updated"]]);
    // The patch names the docs repository's own path, so git apply takes it there.
    expect(audit.articles[0].patch).toMatch(
      /^diff --git a\/content\/server\.md b\/content\/server\.md\n--- a\/content\/server\.md\n/,
    );
    expect(readFileSync(join(code.dir, ".impact/impact.patch"), "utf8")).toBe(audit.articles[0].patch);

    const report = await builtImpact(code.dir, ["report", ".impact/audit.json"]);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain("website:content/server.md");
    expect(report.stdout).toContain("website");
    const html = await builtImpact(code.dir, ["report", ".impact/audit.json", "--format", "html"]);
    expect(html.code).toBe(0);
    expect(html.stdout).toContain("website:content/server.md");

    const dryRunComment = ["comment", ".impact/audit.json", "--pr", "7", "--dry-run"];
    const comment = await builtImpact(code.dir, dryRunComment);
    expect(comment.code).toBe(0);
    expect(comment.stdout).toContain("website:content/server.md");
    expect(comment.stdout).toContain("The articles are in the docs repository `website` (paths `website:…`)");
    // With the docs repository's GitHub name, the comment links it.
    const named = await builtImpact(code.dir, [...dryRunComment, "--docs-repo", "acme/website"]);
    expect(named.stdout).toContain(
      "The articles are in the docs repository `website` on GitHub, [acme/website](https://github.com/acme/website)",
    );

    // impact apply of the same audit on a fresh docs checkout: the docs repository again.
    docs.git("checkout", "--", "content/server.md");
    const apply = await builtImpact(code.dir, ["apply", ".impact/audit.json", "--docs-repo", docs.dir]);
    expect([apply.code, apply.stderr]).toEqual([0, ""]);
    expect(apply.stdout).toBe("applied website:content/server.md\n");
    expect(readFileSync(join(docs.dir, "content/server.md"), "utf8")).toContain("port 9090 by default");
    expect(code.git("status", "--porcelain")).toBe("");

    // Shards of a docs repository's run merge into one audit of it; mixed with a code audit, refused.
    const merged = await impact(code.dir, [
      "merge",
      ".impact/audit.json",
      ".impact/audit.json",
      "--out",
      ".impact/merged.json",
      "--patch",
      ".impact/merged.patch",
    ]);
    expect([merged.code, merged.io.err]).toEqual([0, ""]);
    expect(JSON.parse(readFileSync(join(code.dir, ".impact/merged.json"), "utf8")).docsRepository).toEqual(
      audit.docsRepository,
    );
    writeFileSync(
      join(code.dir, ".impact/code.json"),
      JSON.stringify({ ...audit, docsRepository: undefined }),
    );
    const mixed = await impact(code.dir, [
      "merge",
      ".impact/audit.json",
      ".impact/code.json",
      "--out",
      ".impact/x.json",
    ]);
    expect(mixed.code).toBe(2);
    expect(mixed.io.err).toContain("audits are of different docs repositories (website and none)");
  });
});

describe("report --docs-repo OWNER/NAME", () => {
  it("links evidence in the docs repository to its commit on GitHub, and code evidence to the code's head", () => {
    const head = "a".repeat(40);
    const docsHead = "b".repeat(40);
    const audit = auditOf(
      [
        auditArticle("website:content/server.md", {
          edits: [
            {
              kind: "replace",
              reason: "the port",
              startLine: 8,
              endLine: 8,
              evidence: ["src/server.ts:1", "website:content/intro.md:3"],
            },
          ],
        }),
      ],
      { head, docsRepository: { name: "website", head: docsHead } },
    );
    const html = renderHtmlReport(audit, { repository: "acme/server", docsRepository: "acme/website" });
    expect(html).toContain(`href="https://github.com/acme/server/blob/${head}/src/server.ts#L1"`);
    expect(html).toContain(`href="https://github.com/acme/website/blob/${docsHead}/content/intro.md#L3"`);
    expect(html).toContain(
      'on GitHub, <a href="https://github.com/acme/website" rel="noreferrer">acme/website</a>',
    );
    // Without the docs repository's name, its evidence is shown, never linked into the code repository.
    const unnamed = renderHtmlReport(audit, { repository: "acme/server" });
    expect(unnamed).not.toContain(`acme/server/blob/${head}/website:`);
    expect(unnamed).toContain("<code>website:content/intro.md:3</code>");
    expect(renderReport(audit, { docsRepository: { fullName: "acme/website" } })).toContain(
      "[acme/website](https://github.com/acme/website)",
    );
  });

  it("refuses a --docs-repo that is no OWNER/NAME, in one line", async () => {
    const { code } = codeAndDocs();
    writeFileSync(join(code.dir, "audit.json"), JSON.stringify(auditOf([])));
    for (const command of ["report", "comment"]) {
      const refused = await impact(code.dir, [
        command,
        "audit.json",
        "--docs-repo",
        "../website",
        ...(command === "comment" ? ["--dry-run"] : []),
      ]);
      expect(refused.code).toBe(2);
      expect(refused.io.err).toContain(
        '--docs-repo takes the docs repository on GitHub as OWNER/NAME, got "../website"',
      );
    }
  });
});

describe("the Vale check with a docs repository", () => {
  it("reads the docs repository's .vale.ini, where its articles' style lives", async () => {
    const { code, docs } = codeAndDocs();
    docs.commit({ ".vale.ini": "MinAlertLevel = suggestion\n\n[*.md]\nBasedOnStyles = Vale\n" });
    const bin = makeTempDir("impact-vale-");
    const log = join(bin, "calls.log");
    writeFileSync(join(bin, "vale"), `#!/bin/sh\necho "ARGS $*" >> '${log}'\ncat > /dev/null\necho '{}'\n`, {
      mode: 0o755,
    });
    const run = await runWithScript(code.dir, EDIT_WEBSITE_ARTICLE, ["--docs-repo", docs.dir], {
      PATH: `${bin}:${process.env.PATH ?? ""}`,
    });
    expect([run.code, run.io.err]).toEqual([0, ""]);
    expect(readFileSync(log, "utf8")).toContain(`ARGS --config=${join(docs.dir, ".vale.ini")} --output=JSON`);
  });
});

describe("impact dismiss with a docs repository", () => {
  it("takes the article as the plan names it (website:PATH) and records the docs repository's own path", async () => {
    const { code, docs } = codeAndDocs();
    const config = {
      docs: ["content/**/*.md"],
      docsRepoName: "website",
      docsRepo: relative(code.dir, docs.dir),
    };
    writeFileSync(join(code.dir, "impact.config.json"), JSON.stringify(config));
    const dismissed = await impact(code.dir, [
      "dismiss",
      "website:content/server.md",
      "--reason",
      "the port is generated",
    ]);
    expect([dismissed.code, dismissed.io.err]).toEqual([0, ""]);
    expect(JSON.parse(readFileSync(join(code.dir, "impact.config.json"), "utf8")).dismissed).toEqual([
      { article: "content/server.md", reason: "the port is generated" },
    ]);
    const plan = await impact(code.dir, ["plan", "--json"]);
    expect(JSON.parse(plan.io.out).articles).toEqual([]);
  });
});

describe("plan --check with a docs repository", () => {
  it("fails strict on the docs repository's stale article; advisory annotations name it in the title, on no file of the PR", async () => {
    const { code, docs } = codeAndDocs();
    const strict = await impact(code.dir, ["plan", "--check", "--docs-repo", docs.dir]);
    expect(strict.code).toBe(3);
    expect(strict.io.out).toContain("website:content/server.md");
    expect(strict.io.out).toContain(
      "Articles named website:PATH are in the docs repository (--docs-repo); the change is this repository's.\n",
    );
    expect(strict.io.err).toContain("website:content/server.md");
    const advisory = await impact(code.dir, ["plan", "--check=advisory", "--docs-repo", docs.dir, "--quiet"]);
    expect(advisory.code).toBe(0);
    const annotations = advisory.io.out.split("\n").filter((line) => line.startsWith("::warning"));
    expect(annotations.length).toBeGreaterThan(0);
    for (const line of annotations) {
      // Workflow command properties escape ":" as %3A.
      expect(line).toMatch(/^::warning title=Impact%3A website%3Acontent\/server\.md(%3A\d+)?::/);
      expect(line).not.toContain("file=");
    }
  });
});

describe("bad --docs-repo input: one line, exit 2, nothing written", () => {
  it.each([
    [
      "a folder that does not exist",
      (dir: string) => ["--docs-repo", join(dir, "no-such-folder")],
      /no such directory/,
    ],
    [
      "a folder that is no git repository",
      () => ["--docs-repo", makeTempDir("impact-not-git-")],
      /not a git repository/,
    ],
    [
      "a git URL given as the flag",
      () => ["--docs-repo", "https://github.com/org/website.git"],
      /clone it first/,
    ],
    ["the code repository itself", (dir: string) => ["--docs-repo", dir], /the code repository itself/],
  ])("%s", async (_name, args, message) => {
    const { code } = codeAndDocs();
    for (const command of ["plan", "run"]) {
      const { code: exit, io } = await impact(code.dir, [command, ...args(code.dir)], {
        OPENAI_API_KEY: TEST_KEY,
      });
      expect([exit, io.out]).toEqual([2, ""]);
      expect(io.err).toMatch(message);
      expect(io.err.trim().split("\n")).toHaveLength(1);
      expect(existsSync(join(code.dir, ".impact"))).toBe(false);
    }
  });

  it("a config docsRepo URL in a local run without a checkout says to clone it and pass --docs-repo", async () => {
    const { code } = codeAndDocs({ docsRepo: "git@github.com:org/website.git" });
    const { code: exit, io } = await impact(code.dir, ["plan"]);
    expect(exit).toBe(2);
    expect(io.err).toBe(
      'impact plan: config docsRepo "git@github.com:org/website.git" is a git URL, which only the GitHub Action and the bot clone; clone it and pass the checkout\'s folder with --docs-repo DIR\n',
    );
    expect(existsSync(join(code.dir, ".impact"))).toBe(false);
  });

  it("a config docsRepo path, relative to the code repository, is used without a flag", async () => {
    const { code, docs } = codeAndDocs();
    writeFileSync(
      join(code.dir, "impact.config.json"),
      JSON.stringify({ docs: ["content/**/*.md"], docsRepo: relative(code.dir, docs.dir) }),
    );
    const { code: exit, io } = await impact(code.dir, ["plan", "--json"]);
    expect(exit).toBe(0);
    // No docsRepoName: the prefix is the docs repository's folder name.
    const name = basename(docs.dir);
    expect(JSON.parse(io.out).articles.map((article: { path: string }) => article.path)).toEqual([
      `${name}:content/server.md`,
    ]);
  });

  it("impact apply of a docs repository's audit needs its checkout, and a code audit refuses one", async () => {
    const { code, docs } = codeAndDocs();
    const audit = join(code.dir, "audit.json");
    writeFileSync(audit, JSON.stringify({ ...auditOf([]), docsRepository: { name: "website" } }));
    const missing = await impact(code.dir, ["apply", audit]);
    expect([missing.code, missing.io.err]).toEqual([
      2,
      'impact apply: this audit\'s articles are in the docs repository "website" (website:PATH); pass its checkout with --docs-repo DIR\n',
    ]);
    writeFileSync(audit, JSON.stringify(auditOf([])));
    const extra = await impact(code.dir, ["apply", audit, "--docs-repo", docs.dir]);
    expect(extra.code).toBe(2);
    expect(extra.io.err).toMatch(/this audit's articles are in the code repository/);
  });
});

describe("the tool host over a code repository and a docs repository", () => {
  function hostOver(code: TestRepo, docs: TestRepo) {
    const docsRepository = { name: "website", root: docs.dir };
    return testToolHost(code.dir, {
      workspace: new Workspace(code.dir, { docsRepository }),
      sandbox: new SandboxPolicy({ root: code.dir, docsRepository }),
      articlePath: "website:content/server.md",
      docsGlobs: ["content/**/*.md"],
      docsRepositoryName: "website",
      changedFiles: ["src/server.ts"],
    });
  }
  const signal = new AbortController().signal;
  let number = 0;
  const call = (name: string, args: object) => ({
    id: `call_${++number}`,
    type: "function" as const,
    function: { name, arguments: JSON.stringify(args) },
  });

  it("reads code by its path and articles as website:PATH, each through the sandbox on its own real paths", async () => {
    const { code, docs } = codeAndDocs();
    docs.write({ ".env": "TOKEN=sk-test-not-a-real-key\n", "secret.md": "# outside the docs globs\n" });
    symlinkSync(join(code.dir, "src/server.ts"), join(docs.dir, "content/escape.md"));
    symlinkSync(join(docs.dir, ".env"), join(docs.dir, "content/env.md"));
    const host = hostOver(code, docs);
    const results = await host.execute(
      [
        call("read_file", { path: "src/server.ts" }),
        call("read_file", { path: "website:content/server.md" }),
        call("read_file", { path: "website:.env" }),
        call("read_file", { path: `website:../${basename(code.dir)}/src/server.ts` }),
        call("read_file", { path: "website:content/escape.md" }),
        call("read_file", { path: "website:content/env.md" }),
        call("list_files", { glob: "website:content/**" }),
        call("search_repo", { pattern: "8080" }),
      ],
      signal,
    );
    expect(results[0]!.content).toContain("DEFAULT_PORT = 9090");
    expect(results[1]!.content).toMatch(/^website:content\/server\.md/);
    expect(results[2]!.ok).toBe(false);
    expect(results[2]!.content).toContain('Refused: "website:.env" matches the deny pattern ".env*"');
    expect(results[3]!.content).toContain('contains ".."');
    expect(results[4]!.content).toContain("outside the repository");
    expect(results[5]!.content).toContain("symlink to a path that matches the deny pattern");
    expect(results[6]!.content.split("\n")[0]).toBe("website:content/server.md");
    expect(results[6]!.content).not.toContain("escape.md\n");
    expect(results[7]!.content).toContain("website:content/server.md:");
  });

  it("edits only the article under work: a code file, or a docs-repository file outside the docs globs, is refused", async () => {
    const { code, docs } = codeAndDocs();
    const host = hostOver(code, docs);
    const edit = (path: string) =>
      call("edit_article", {
        path,
        edits: [{ old_string: "8080", new_string: "9090", reason: "the port" }],
      });
    const [codeEdit, otherEdit, articleEdit] = await host.execute(
      [edit("src/server.ts"), edit("website:README.md"), edit("website:content/server.md")],
      signal,
    );
    expect(codeEdit!.ok).toBe(false);
    expect(otherEdit!.ok).toBe(false);
    expect(articleEdit!.ok).toBe(true);
    host.finish();
  });
});

describe("impact init --docs-repo", () => {
  it("reads the docs repository's layout (a Docusaurus site with versions) and writes a config that plan then uses", async () => {
    const docs = gitRepo({
      "docs/server.md": SERVER_DOC,
      "docs/intro.md": "# Intro\n",
      "versioned_docs/version-1.0/server.md": SERVER_DOC,
      "versions.json": '["1.0"]\n',
      "CHANGELOG.md": "# Changelog\n",
    });
    const code = gitRepo({ "src/server.ts": "export const DEFAULT_PORT = 8080;\n" });
    code.commit({ "src/server.ts": "export const DEFAULT_PORT = 9090;\n" });
    const { code: exit, io } = await impact(code.dir, ["init", "--docs-repo", docs.dir, "--json", "--write"]);
    expect([exit, io.err]).toEqual([0, ""]);
    const docsRepo = relative(code.dir, docs.dir);
    const written = JSON.parse(readFileSync(join(code.dir, "impact.config.json"), "utf8"));
    expect(written).toEqual(JSON.parse(io.out).config);
    expect(written.docsRepo).toBe(docsRepo);
    expect(written.versions).toEqual({ current: "docs" });
    expect(written.docs).toContain("docs/**/*.md");
    // The code repository is left as it was but for the config asked for.
    expect(code.git("status", "--porcelain")).toBe("?? impact.config.json");

    const plan = await impact(code.dir, ["plan", "--json"]);
    expect(plan.code).toBe(0);
    const name = basename(docs.dir);
    const planned = JSON.parse(plan.io.out);
    expect(planned.articles.map((article: { path: string }) => article.path)).toEqual([
      `${name}:docs/server.md`,
    ]);
    // Only the current version is flagged; the older one is never edited.
    expect(JSON.stringify(planned.articles)).not.toContain("versioned_docs");
  });

  it("says so in words, without a backtest", async () => {
    const { code, docs } = codeAndDocs();
    const { code: exit, io } = await impact(code.dir, ["init", "--docs-repo", docs.dir]);
    expect(exit).toBe(0);
    expect(io.out).toContain(`docsRepo  ${relative(code.dir, docs.dir)}`);
    expect(io.out).toContain("No backtest:");
    expect(existsSync(join(code.dir, ".impact"))).toBe(false);
  });
});

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface Step {
  id?: string;
  name?: string;
  run?: string;
}

/** A step's bash script run as the runner would. */
function runStepScript(script: string, cwd: string, env: Record<string, string>) {
  return spawnAsync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd, env);
}

/** The action's "Run Impact" step with its inputs' defaults, and `inputs` over them. */
async function runAction(cwd: string, inputs: Record<string, string>) {
  const action = parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as { runs: { steps: Step[] } };
  const script = action.runs.steps.find((step) => step.id === "impact")!.run!;
  const temp = makeTempDir("impact-action-docs-");
  const output = join(temp, "output");
  writeFileSync(output, "");
  const result = await runStepScript(script, cwd, {
    GITHUB_OUTPUT: output,
    RUNNER_TEMP: temp,
    ...actionStepEnv(),
    ...inputs,
  });
  return { ...result, outputs: readFileSync(output, "utf8"), temp };
}

describe("the action and the post-merge recipe with a docs repository given as a URL", () => {
  it("clones the docs repository, applies the edits to the clone, and the recipe opens the pull request there", async () => {
    const { code, docs } = codeAndDocs();
    // The docs repository's origin: config docsRepo is its URL, which the action clones.
    writeFileSync(
      join(code.dir, "impact.config.json"),
      JSON.stringify({ docs: ["content/**/*.md"], docsRepoName: "website", docsRepo: `file://${docs.dir}` }),
    );
    code.commit({ "impact.config.json": readFileSync(join(code.dir, "impact.config.json"), "utf8") });
    const server = await startScriptedModelServer([...EDIT_WEBSITE_ARTICLE, ...EDIT_WEBSITE_ARTICLE]);
    onTestFinished(() => server.close());
    const base = code.git("rev-parse", "HEAD~2");
    const model = { OPENAI_API_KEY: TEST_KEY, OPENAI_BASE_URL: server.url, IMPACT_MODEL: "test-model" };

    // Without a model key: the plan only, over the cloned docs repository.
    const planOnly = await runAction(code.dir, { IMPACT_BASE: base });
    expect(planOnly.code).toBe(0);
    expect(planOnly.stdout).toContain("website:content/server.md");

    const run = await runAction(code.dir, { ...model, IMPACT_BASE: base, IMPACT_APPLY: "true" });
    expect([run.code, run.stderr]).toEqual([0, ""]);
    const clone = join(run.temp, "impact-docs", basename(docs.dir));
    expect(run.outputs).toContain(`docs-repo=${clone}\n`);
    expect(readFileSync(join(clone, "content/server.md"), "utf8")).toContain("port 9090 by default");
    // Neither the code repository nor the docs repository's own checkout was written.
    expect(code.git("status", "--porcelain")).toBe("");
    expect(docs.git("status", "--porcelain")).toBe("");

    // The recipe's last step, in the clone: a branch pushed to the docs repository, and its PR.
    const workflow = parse(
      readFileSync(join(ROOT, "docs/workflows/impact-post-merge-docs-repo.yml"), "utf8"),
    ) as { jobs: Record<string, { env?: Record<string, string>; steps: Step[] }> };
    const job = Object.values(workflow.jobs)[0]!;
    const openPr = job.steps.find((step) => step.name === "Open or update the docs pull request")!;
    const { bin, calls } = fakeGh();
    const opened = await runStepScript(openPr.run!, code.dir, {
      PATH: `${bin}:${process.env.PATH ?? ""}`,
      GH_TOKEN: "ghs_test-not-a-real-token",
      DOCS_DIR: clone,
      DOCS_REPOSITORY: job.env!.DOCS_REPOSITORY!,
      BRANCH: "impact/docs",
      AUDIT: ".impact/audit.json",
      REPORT: "",
      GITHUB_SHA: "c".repeat(40),
      GITHUB_REPOSITORY: "acme/server",
      RUNNER_TEMP: run.temp,
    });
    expect(opened.code).toBe(0);
    expect(opened.stderr + opened.stdout).not.toContain("ghs_");
    expect(docs.git("show", "impact/docs:content/server.md")).toContain("port 9090 by default");
    const recorded = readFileSync(calls, "utf8");
    expect(recorded).toContain(
      "gh pr create --repo acme/website --head impact/docs --title docs: keep the docs true to the code",
    );
    expect(recorded).toContain("Doc updates proposed by Impact for acme/server@cccccccccccc.");
    // The token never lands in the clone's config.
    expect(readFileSync(join(clone, ".git/config"), "utf8")).not.toContain("ghs_");
    expect(code.git("status", "--porcelain")).toBe("");
  });
});

describe("the PR bot with config docsRepo as a git URL", () => {
  it("clones the docs repository beside the code and comments on the code pull request with the edits proposed for it", async () => {
    const { code, docs } = codeAndDocs();
    // The base commit's config names the docs repository by URL; the PR then changes the port.
    const base = code.commit({
      "src/server.ts": "export const DEFAULT_PORT = 8080;\n",
      "impact.config.json": JSON.stringify({
        docs: ["content/**/*.md"],
        docsRepoName: "website",
        docsRepo: `file://${docs.dir}`,
      }),
    });
    const head = code.commit({ "src/server.ts": "export const DEFAULT_PORT = 9090;\n" });
    const model = await startScriptedModelServer({ "website:content/server.md": EDIT_WEBSITE_ARTICLE });
    onTestFinished(() => model.close());
    const github = await startFakeGitHub({ token: "ghs_docs_not_a_real_token_0000" });
    const bot = await startPullRequestBot({
      secret: "whsec-docs-not-a-real-secret",
      auth: tokenAuth("ghs_docs_not_a_real_token_0000"),
      githubUrl: github.url,
      modelUrl: model.url,
      modelKey: TEST_KEY,
    });
    expect(await bot.deliver(pullRequestPayload({ base, head, cloneUrl: code.dir }), "docs-1")).toBe(202);
    expect(bot.failures()).toEqual([]);
    const comments = github.comments("acme/widgets", 42);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain("website:content/server.md");
    expect(comments[0]!.body).toContain("The articles are in the docs repository `website`");
    expect(comments[0]!.body).toContain("+It listens on port 9090 by default.");
    // Proposed, not written: the docs repository itself is untouched.
    expect(docs.git("status", "--porcelain")).toBe("");
    expect(readFileSync(join(docs.dir, "content/server.md"), "utf8")).toContain("port 8080");
  });
});
