import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, inject, it } from "vitest";
import { main } from "../../cli/main.js";
import { readDeclarations } from "../../cli/plan/symbols/extract-symbols.js";
import { MAX_CODE_NESTING } from "../../shared/limits.js";
import { nestingProblem } from "../../shared/nesting.js";
import { gitRepo, type TestRepo } from "../helpers/git-repo.js";
import { captureIo } from "../helpers/io.js";
import { runWithScript } from "../helpers/run-impact.js";

// Red-team round 3, item 5: code nested deep enough to crash a parser (the native TS/JS
// parser dies with SIGSEGV, the tree walks overflow the stack) costs that file its
// declarations, with a warning; the process goes on.

/** 20,000 nested `[`, one a line (lines stay short, so the file is not taken for minified code). */
const TS_BOMB = `export const deep = ${"[\n".repeat(20_000)}${"]\n".repeat(20_000)};\nexport function kept() {}\n`;
/** 20,000 nested `if` blocks: no brackets, and no declarations (whose nesting the walk bounds on its own). */
const RUBY_BOMB = `${"if true\n".repeat(20_000)}${"end\n".repeat(20_000)}`;
const WATCHING = (path: string) =>
  `---\nattention:\n  - op: file\n    path: ${path}\n---\n# Guide\n\nAbout ${path}.\n`;

function bombRepo(path: string, bomb: string): TestRepo {
  const repo = gitRepo({ [path]: "export const a = 1;\n", "docs/guide.md": WATCHING(path) });
  repo.commit({ [path]: bomb });
  return repo;
}

describe("parsers never take the process down", { timeout: 120_000 }, () => {
  it("the built impact plan reads a change holding 20,000 nested brackets: a warning, no crash", () => {
    const repo = bombRepo("src/deep.ts", TS_BOMB);
    const result = spawnSync(process.execPath, [join(inject("builtPackage"), "cli", "bin.js"), "plan"], {
      cwd: repo.dir,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
    });
    expect(result.signal).toBeNull();
    expect(result.stderr).toContain(
      `warning: src/deep.ts nests 20000 levels deep (Impact parses up to ${MAX_CODE_NESTING}); its declarations were not read`,
    );
    // The plan went on: the article watching the file is flagged.
    expect(result.stdout).toContain("docs/guide.md");
    expect(result.status).toBe(0);
    repo.cleanup();
  });

  it("20,000 nested Ruby blocks (no brackets) are refused by the walk's own bound, not a stack overflow", async () => {
    const repo = bombRepo("lib/deep.rb", RUBY_BOMB);
    const io = captureIo(repo.dir);
    expect(await main(["plan"], io)).toBe(0);
    expect(io.err).toMatch(/warning: lib\/deep\.rb nests more than \d+ syntax levels deep/);
    expect(io.out).toContain("docs/guide.md");
    repo.cleanup();
  });

  it("the built impact mcp answers outline_article on a 200 KB bracket bomb with an error result and keeps serving", async () => {
    const big = `export const deep = ${"[".repeat(50_000)}${"]".repeat(50_000)};\n`.repeat(2);
    const repo = gitRepo({ "src/deep.ts": big, "docs/guide.md": "# Guide\n" });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(inject("builtPackage"), "cli", "bin.js"), "mcp", "--repo", repo.dir],
      cwd: repo.dir,
      stderr: "pipe",
    });
    const client = new Client({ name: "impact-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const outline = await client.callTool({ name: "outline_article", arguments: { path: "src/deep.ts" } });
      expect(outline.isError).toBe(true);
      expect(JSON.stringify(outline.content)).toContain("src/deep.ts nests 50000 levels deep");
      const symbol = await client.callTool({
        name: "read_file",
        arguments: { path: "src/deep.ts", symbol: "deep" },
      });
      expect(symbol.isError).toBe(true);
      const after = await client.callTool({ name: "outline_article", arguments: { path: "docs/guide.md" } });
      expect(after.isError).toBeFalsy();
    } finally {
      await client.close();
      repo.cleanup();
    }
  });

  it("impact run: the model asking for the outline of a bomb gets a tool error, and the audit is written", async () => {
    const repo = bombRepo("src/deep.ts", TS_BOMB);
    // The article names a file the change touched but quotes nothing it made false: related, run on request.
    const { code, audit, server } = await runWithScript(
      repo.dir,
      [
        { toolCalls: [{ name: "outline_article", arguments: { path: "src/deep.ts" } }] },
        { content: "Nothing to change." },
      ],
      ["--include", "related"],
    );
    expect(code).toBe(0);
    const results = server.requests[1]?.body.messages?.filter((message) => message.role === "tool") ?? [];
    expect(String(results[0]?.content)).toMatch(/^Error: src\/deep\.ts nests 20000 levels deep/);
    expect(audit?.articles.map((article) => article.status)).toEqual(["unchanged"]);
    repo.cleanup();
  });

  it("frontmatter nested thousands deep in two articles is a warning each, and the plan goes on (a YAML stack overflow left the next parse to kill the process)", async () => {
    const deep = (n: number) =>
      `---\nattention: []\nx: ${"[".repeat(n)}${"]".repeat(n)}\n---\n# Deep\n\nUses src/app.ts.\n`;
    const repo = bombRepo("src/app.ts", "export const a = 2;\n");
    repo.commit({ "docs/deep-1.md": deep(1_000), "docs/deep-2.md": deep(20_000) });
    repo.commit({ "src/app.ts": "export const a = 3;\n" });
    const io = captureIo(repo.dir);
    expect(await main(["plan"], io)).toBe(0);
    expect(io.err).toContain("docs/deep-1.md");
    expect(io.err).toContain("the frontmatter nests 20000 levels deep (Impact parses up to 64)");
    expect(io.out).toContain("docs/guide.md");
    // Editing such frontmatter is refused, not attempted.
    const edit = captureIo(repo.dir);
    expect(await main(["edit", "docs/deep-2.md", "--set", "title=x"], edit)).toBe(1);
    expect(edit.err).toContain("nests 20000 levels deep");
    repo.cleanup();
  });

  it("the scan sees through strings, comments, regular expressions and templates, and bounds operator chains", () => {
    const nested = (depth: number) => `x = ${"(".repeat(depth)}1${")".repeat(depth)};\n`;
    expect(nestingProblem(nested(MAX_CODE_NESTING), "javascript")).toBeUndefined();
    expect(nestingProblem(nested(MAX_CODE_NESTING + 1), "javascript")).toMatch(/^nests 1001 levels deep/);
    // Closers hidden in a string, a comment, a regular expression or a template do not lower the count.
    for (const hider of ['"]"', "/* ] */", "/]/", "`]`", "'  ]  '"])
      expect(nestingProblem(`x = ${`[${hider},`.repeat(1_500)}`, "javascript")).toMatch(/^nests 1500 levels/);
    expect(nestingProblem(`x = \`${"${`".repeat(1_500)}\`;`, "javascript")).toMatch(/^nests 1500 levels/);
    // Recursive chains without brackets: arrows, ternaries, unary operators.
    expect(nestingProblem(`x = ${"a => ".repeat(5_000)}1;`, "javascript")).toMatch(
      /^chains 500[01] operators/,
    );
    expect(nestingProblem(`x = ${"(a) => ".repeat(5_000)}1;`, "javascript")).toMatch(
      /^chains 500[01] operators/,
    );
    expect(nestingProblem(`x = ${"a ? b : ".repeat(5_000)}c;`, "javascript")).toMatch(
      /^chains 500[01] operators/,
    );
    // Long lists are no chain; comparisons and optional chaining count as nothing more.
    expect(nestingProblem(`x = [${"-1, ".repeat(50_000)}];`, "javascript")).toBeUndefined();
    expect(nestingProblem(`x = a?.b ?? c == d;\n`.repeat(10_000), "javascript")).toBeUndefined();
    // A comment of `-` and `*` lines is no chain.
    expect(nestingProblem(`/**\n${" * ----\n".repeat(5_000)}*/\nx = 1;`, "javascript")).toBeUndefined();
    expect(nestingProblem(`${"def f():\n    return [\n".repeat(2)}`, "hash")).toBeUndefined();
  });

  it("nested Java classes: the outer 32 levels are read with their paths, deeper ones are not (paths would grow quadratically)", async () => {
    const depth = 900;
    const java = `${Array.from({ length: depth }, (_, index) => `/** C${index} */\nclass C${index} {\n  void m${index}() {}\n`).join("")}${"}\n".repeat(depth)}`;
    const declarations = (await readDeclarations("src/Deep.java", java)) ?? [];
    const names = declarations.map((declaration) => declaration.name);
    expect(names).toContain("C32");
    expect(names).not.toContain("C33");
    expect(Math.max(...declarations.map((declaration) => declaration.path.split("::").length))).toBe(33);
    // The doc comment above each class belongs to its segment (found among its siblings).
    const last = declarations.find((declaration) => declaration.name === "C32");
    expect(last?.startLine).toBe(last!.line - 1);
  });
});
