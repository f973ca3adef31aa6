import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { VERSION } from "../../cli/version.js";
import { contentHash } from "../../shared/hash.js";
import { buildToolManifest } from "../../shared/tools/manifest.js";
import { gitRepo, type TestRepo } from "../helpers/git-repo.js";

const ARTICLE =
  "# Guide\n\n## Install\n\nRun `npm install impact`.\n\n## Usage\n\nRun impact run.\nRun impact run.\n";
const reason = "The change renames the command.";

function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  const content = result.content as { type: string; text: string }[];
  return content.map((part) => part.text).join("");
}

describe("impact mcp, through the SDK's client over stdio", () => {
  let repo: TestRepo;
  let client: Client;
  let stderr = "";
  const article = () => readFileSync(join(repo.dir, "docs/guide.md"), "utf8");

  beforeAll(async () => {
    repo = gitRepo({ "docs/guide.md": ARTICLE, "src/cli.ts": "export const x = 1;\n", ".env": "SECRET=1\n" });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(inject("builtPackage"), "cli", "bin.js"), "mcp", "--repo", repo.dir],
      cwd: repo.dir,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk) => {
      stderr += String(chunk);
    });
    client = new Client({ name: "impact-test", version: "1.0.0" });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    repo?.cleanup();
  });

  it("names itself impact and lists the agent's tools with the agent's schemas", async () => {
    expect(client.getServerVersion()).toEqual({
      name: "impact",
      version: VERSION,
    });
    const { tools } = await client.listTools();
    const manifest = buildToolManifest({ allowCreate: false }).map((tool) => {
      if (tool.type !== "function") throw new Error("the manifest holds function tools only");
      return tool.function;
    });
    expect(tools.map((tool) => tool.name)).toEqual(manifest.map((tool) => tool.name));
    for (const [index, tool] of tools.entries()) {
      expect(tool.inputSchema).toEqual(manifest[index]!.parameters);
      // Described for an MCP client, which works on the whole repository: no "article under work".
      expect(tool.description).not.toBe(manifest[index]!.description);
      expect(tool.description).not.toContain("under work");
    }
    const hints = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    expect(hints).toEqual({
      read_file: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      outline_article: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      search_repo: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      list_files: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      edit_article: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    });
    expect(tools.find((tool) => tool.name === "read_file")?.description).toContain("symbol");
    expect(stderr).toContain("impact mcp: serving");
  });

  it("reads and outlines an article", async () => {
    const read = await client.callTool({ name: "read_file", arguments: { path: "docs/guide.md" } });
    expect(read.isError).toBeFalsy();
    expect(textOf(read)).toContain(contentHash(ARTICLE));
    expect(textOf(read)).toContain("Run `npm install impact`.");
    const outline = await client.callTool({ name: "outline_article", arguments: { path: "docs/guide.md" } });
    expect(textOf(outline)).toContain("Guide::Usage");
  });

  it("applies an edit on disk, refuses a stale hash, a near miss and a non-unique match, writing nothing then", async () => {
    const before = article();
    const refusals = [
      {
        expected_hash: "0000000000000000",
        edit: { old_string: "npm install impact", new_string: "npm install impact-docs" },
        says: `current hash ${contentHash(before)}`,
      },
      {
        edit: { old_string: "Run `npm  install impact`.", new_string: "x" },
        says: "Closest near-miss at line 5",
      },
      {
        edit: { old_string: "Run impact run.", new_string: "Run impact." },
        says: "old_string matches 2 times (lines 9, 10)",
      },
    ];
    for (const { edit, says, ...hash } of refusals) {
      const refused = await client.callTool({
        name: "edit_article",
        arguments: { path: "docs/guide.md", ...hash, edits: [{ ...edit, reason }] },
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain(says);
      expect(article()).toBe(before);
    }

    const applied = await client.callTool({
      name: "edit_article",
      arguments: {
        path: "docs/guide.md",
        expected_hash: contentHash(before),
        edits: [
          { old_string: "npm install impact`", new_string: "npm install impact-docs`", reason },
          { frontmatter: { status: "current" }, reason },
        ],
      },
    });
    expect(applied.isError).toBeFalsy();
    const after = article();
    expect(after).toBe(
      `---\nstatus: current\n---\n${before.replace("npm install impact`", "npm install impact-docs`")}`,
    );
    expect(textOf(applied)).toContain(`New hash: ${contentHash(after)}`);
  });

  it("refuses paths outside the sandbox and files that are not articles", async () => {
    const outside = await client.callTool({
      name: "edit_article",
      arguments: { path: "../outside.md", edits: [{ old_string: "a", new_string: "b", reason }] },
    });
    expect(outside.isError).toBe(true);
    expect(textOf(outside)).toMatch(/^Error: Refused/);
    const secret = await client.callTool({ name: "read_file", arguments: { path: ".env" } });
    expect(secret.isError).toBe(true);
    expect(textOf(secret)).not.toContain("SECRET=1");
    const code = await client.callTool({
      name: "edit_article",
      arguments: { path: "src/cli.ts", edits: [{ old_string: "x", new_string: "y", reason }] },
    });
    expect(code.isError).toBe(true);
    // The rule in words, not the five default ignore globs.
    expect(textOf(code)).toBe(
      'Error: "src/cli.ts" is not an article: edit_article changes only files under the "docs" globs of impact.config.json (docs/**/*.{md,mdx,rst,adoc}, *.{md,rst,adoc}) that its "ignore" globs (changelogs, release notes, migration guides by default) leave out. Use impact edit to change another file.',
    );
    expect(readFileSync(join(repo.dir, "src/cli.ts"), "utf8")).toBe("export const x = 1;\n");
    expect(readFileSync(join(repo.dir, ".env"), "utf8")).toBe("SECRET=1\n");
  });

  it("answers wrong argument types, unknown tools and create_article without --allow-create as tool errors", async () => {
    const before = article();
    const wrongType = await client.callTool({
      name: "edit_article",
      arguments: { path: "docs/guide.md", edits: "all" },
    });
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toContain("Invalid arguments for edit_article");
    const unknown = await client.callTool({ name: "delete_everything", arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('There is no tool named "delete_everything"');
    const create = await client.callTool({
      name: "create_article",
      arguments: { path: "docs/new.md", content: "# New\n", reason },
    });
    expect(create.isError).toBe(true);
    expect(textOf(create)).toContain("needs --allow-create");
    expect(article()).toBe(before);
  });
});

/** Raw JSON-RPC lines to a spawned server: what a broken client might send. */
describe("impact mcp under malformed input", () => {
  it("answers every bad line with a JSON-RPC error, keeps serving, and exits 0 when stdin closes", async () => {
    const repo = gitRepo({ "docs/guide.md": ARTICLE });
    const child = spawn(process.execPath, [join(inject("builtPackage"), "cli", "bin.js"), "mcp"], {
      cwd: repo.dir,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += String(chunk);
    });
    const answers = () =>
      out
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map(
          (line) =>
            JSON.parse(line) as { id: unknown; error?: { code: number; message: string }; result?: unknown },
        );
    const waitFor = async (count: number) => {
      while (answers().length < count) await new Promise((resolve) => child.stdout.once("data", resolve));
    };
    const send = (line: string) => child.stdin.write(`${line}\n`);

    send("{not json");
    send(JSON.stringify({ hello: "world" }));
    send(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "no/such/method" }));
    send(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: 42 } }));
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "read_file", arguments: { path: "x".repeat(5 * 1024 * 1024) } } })}\n`,
    );
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 10,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    );
    await waitFor(6);
    const [parse, invalid, method, params, huge, initialize] = answers();
    expect(parse).toMatchObject({ id: null, error: { code: -32700 } });
    expect(invalid).toMatchObject({ id: null, error: { code: -32600 } });
    expect(method).toMatchObject({ id: 7, error: { code: -32601 } });
    // The SDK answers a tools/call whose params fail its schema with an error naming them.
    expect(params).toMatchObject({ id: 8, error: { message: expect.stringMatching(/invalid/i) } });
    expect(huge).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringContaining("too large") },
    });
    expect(initialize).toMatchObject({ id: 10, result: { serverInfo: { name: "impact" } } });

    const exit = new Promise<number | null>((resolve) => child.on("exit", resolve));
    child.stdin.end();
    expect(await exit).toBe(0);
    expect(readFileSync(join(repo.dir, "docs/guide.md"), "utf8")).toBe(ARTICLE);
  });
});

describe("impact mcp --allow-create", () => {
  it("offers create_article, which writes a new article under the docs globs only", async () => {
    const repo = gitRepo({ "docs/guide.md": ARTICLE });
    const client = new Client({ name: "impact-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(inject("builtPackage"), "cli", "bin.js"), "mcp", "--allow-create"],
        cwd: repo.dir,
        stderr: "ignore",
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        buildToolManifest({ allowCreate: true }).map((tool) =>
          tool.type === "function" ? tool.function.name : "",
        ),
      );
      const created = await client.callTool({
        name: "create_article",
        arguments: { path: "docs/sub/new.md", content: "# New\n", reason },
      });
      expect(textOf(created)).toContain('Created "docs/sub/new.md"');
      expect(readFileSync(join(repo.dir, "docs/sub/new.md"), "utf8")).toBe("# New\n");
      const outside = await client.callTool({
        name: "create_article",
        arguments: { path: "src/new.ts", content: "x\n", reason },
      });
      expect(outside.isError).toBe(true);
      expect(textOf(outside)).toContain("not under the docs globs");
      expect(existsSync(join(repo.dir, "src/new.ts"))).toBe(false);
    } finally {
      await client.close();
    }
  });
});
