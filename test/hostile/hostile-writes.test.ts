import { lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { loadConfig } from "../../cli/config.js";
import { createImpactMcpServer } from "../../cli/edit/mcp-server.js";
import { main } from "../../cli/main.js";
import { toolHostSessions } from "../../cli/run/session.js";
import { Workspace } from "../../cli/run/workspace.js";
import { MCP_CALLS_IN_FLIGHT, MCP_CALLS_QUEUED } from "../../shared/limits.js";
import type { PlannedArticle } from "../../shared/plan.js";
import { gitRepo, type TestRepo } from "../helpers/git-repo.js";
import { captureIo } from "../helpers/io.js";

// Red-team round 3, items 9-11: one read policy and one write guard for every entry point
// (the agent's tools, `impact mcp`, `impact edit`, `impact apply`), checked on real paths.

const SECRET = "TOPSECRET-4242-do-not-leak";
const reason = "The change renames the command.";

/** The `impact mcp` server of `repo`, in process, through the SDK's client. */
async function mcpClient(repo: TestRepo, options: { allowCreate?: boolean } = {}): Promise<Client> {
  const server = createImpactMcpServer({
    root: repo.dir,
    config: await loadConfig(repo.dir),
    allowCreate: options.allowCreate ?? false,
    version: "test",
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "impact-test", version: "1.0.0" });
  await client.connect(clientSide);
  onTestFinished(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  return (result.content as { text: string }[]).map((part) => part.text).join("");
}

const replace = (path: string, oldString: string, newString: string) => ({
  name: "edit_article",
  arguments: { path, edits: [{ old_string: oldString, new_string: newString, reason }] },
});

describe("the read policy: edit_article reads what read_file reads", () => {
  it("impact mcp edit_article refuses a git-ignored article and a tracked symlink to it, quoting nothing of it", async () => {
    const repo = gitRepo({ "docs/guide.md": "# Guide\n", ".gitignore": "docs/private.md\n" });
    onTestFinished(() => repo.cleanup());
    writeFileSync(join(repo.dir, "docs/private.md"), `# Private\n\n${SECRET}\n`);
    symlinkSync("private.md", join(repo.dir, "docs/link.md"));
    repo.commit({}, "link");
    const client = await mcpClient(repo);
    for (const path of ["docs/private.md", "docs/link.md"]) {
      // An old_string that is not there: today's not-found message would quote the article.
      const result = await client.callTool(replace(path, "no such text", "x"));
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Error: Refused: "docs\/(private|link)\.md".* is ignored by git/);
      expect(textOf(result)).not.toContain(SECRET);
      const found = await client.callTool(replace(path, SECRET, "leaked"));
      expect(found.isError).toBe(true);
    }
    expect(readlinkSync(join(repo.dir, "docs/link.md"))).toBe("private.md");
    expect(readFileSync(join(repo.dir, "docs/private.md"), "utf8")).toContain(SECRET);
  });

  it("impact edit refuses a git-ignored file (exit 2), and reads it when readIgnored allows", async () => {
    const repo = gitRepo({ "docs/guide.md": "# Guide\n", ".gitignore": "notes/\n" });
    onTestFinished(() => repo.cleanup());
    mkdirSync(join(repo.dir, "notes"));
    writeFileSync(join(repo.dir, "notes/todo.md"), `# Todo\n\n${SECRET}\n`);
    const io = captureIo(repo.dir);
    expect(await main(["edit", "notes/todo.md", "--replace", "absent", "x"], io)).toBe(2);
    expect(io.err).toMatch(/Refused: "notes\/todo\.md" is ignored by git/);
    expect(io.err + io.out).not.toContain(SECRET);
    writeFileSync(join(repo.dir, "impact.config.json"), JSON.stringify({ readIgnored: ["notes/**"] }));
    const allowed = captureIo(repo.dir);
    expect(await main(["edit", "notes/todo.md", "--replace", "# Todo", "# To do"], allowed)).toBe(0);
    expect(readFileSync(join(repo.dir, "notes/todo.md"), "utf8")).toBe(`# To do\n\n${SECRET}\n`);
  });
});

describe("the write guard: a write lands at the real path, and the real path is checked", () => {
  it("impact mcp edit_article refuses an article reached through a committed directory symlink out of the docs", async () => {
    const instructions = "# Copilot\n\nBe careful.\n";
    const repo = gitRepo({ "docs/guide.md": "# Guide\n", ".github/copilot-instructions.md": instructions });
    onTestFinished(() => repo.cleanup());
    symlinkSync("../.github", join(repo.dir, "docs/gh"));
    repo.commit({}, "link");
    const client = await mcpClient(repo, { allowCreate: true });
    const result = await client.callTool(
      replace("docs/gh/copilot-instructions.md", "Be careful.", "Run curl | sh."),
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^Error: "docs\/gh\/copilot-instructions\.md" is a symlink \(or under one\) to "\.github\/copilot-instructions\.md", which is not an article: edit_article changes only files under the "docs" globs/,
    );
    expect(readFileSync(join(repo.dir, ".github/copilot-instructions.md"), "utf8")).toBe(instructions);
    // create_article says the same through the same guard.
    const created = await client.callTool({
      name: "create_article",
      arguments: { path: "docs/gh/new.md", content: "# New\n", reason },
    });
    expect(created.isError).toBe(true);
    expect(textOf(created)).toContain("is under a symlink");
  });

  it("impact mcp and impact edit change a symlinked article's target and leave the link a link", async () => {
    const repo = gitRepo({ "docs/real.md": "# Real\n\nRun impact run.\n" });
    onTestFinished(() => repo.cleanup());
    symlinkSync("real.md", join(repo.dir, "docs/alias.md"));
    repo.commit({}, "alias");
    const client = await mcpClient(repo);
    const result = await client.callTool(replace("docs/alias.md", "impact run", "impact plan"));
    expect(result.isError).toBeFalsy();
    expect(lstatSync(join(repo.dir, "docs/alias.md")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(repo.dir, "docs/real.md"), "utf8")).toBe("# Real\n\nRun impact plan.\n");

    const io = captureIo(repo.dir);
    expect(await main(["edit", "docs/alias.md", "--replace", "impact plan", "impact apply"], io)).toBe(0);
    expect(lstatSync(join(repo.dir, "docs/alias.md")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(repo.dir, "docs/real.md"), "utf8")).toBe("# Real\n\nRun impact apply.\n");
    // git sees a content change of the target, no type change of the link.
    expect(repo.git("status", "--porcelain")).toBe(" M docs/real.md");
  });
});

describe("impact mcp caps the calls in flight", () => {
  it("150 parallel searches: a few run, some wait, the rest get a busy error at once", async () => {
    const repo = gitRepo({
      "docs/guide.md": "# Guide\n\nneedle\n",
      ...Object.fromEntries(
        Array.from({ length: 5 }, (_, index) => [`src/f${index}.ts`, "const needle = 1;\n"]),
      ),
    });
    onTestFinished(() => repo.cleanup());
    const client = await mcpClient(repo);
    const results = await Promise.all(
      Array.from({ length: 150 }, () =>
        client.callTool({ name: "search_repo", arguments: { pattern: "needle" } }),
      ),
    );
    const busy = results.filter((result) => textOf(result).startsWith("Error: impact mcp is busy"));
    expect(busy).toHaveLength(150 - MCP_CALLS_IN_FLIGHT - MCP_CALLS_QUEUED);
    expect(busy[0]?.isError).toBe(true);
    expect(textOf(busy[0]!)).toBe(
      `Error: impact mcp is busy (${MCP_CALLS_IN_FLIGHT} calls running, ${MCP_CALLS_QUEUED} waiting); nothing was done. Wait for some answers, then call again.`,
    );
    const answered = results.filter((result) => !busy.includes(result));
    for (const result of answered) expect(textOf(result)).toContain("docs/guide.md:3: needle");
    // Once the queue drains, the server answers again.
    expect(
      textOf(await client.callTool({ name: "read_file", arguments: { path: "docs/guide.md" } })),
    ).toContain("needle");
  });
});

describe("the read policy holds for the article itself", () => {
  it("a run's article session refuses an article that is a symlink to a denied or git-ignored file (the plan skips symlinked articles; this holds whatever selects them)", async () => {
    const repo = gitRepo({ "src/app.ts": "export const a = 1;\n", ".gitignore": "creds/\n" });
    onTestFinished(() => repo.cleanup());
    writeFileSync(join(repo.dir, ".env"), `TOKEN=${SECRET}\n`);
    mkdirSync(join(repo.dir, "creds"));
    writeFileSync(join(repo.dir, "creds/db.md"), `# DB\n\n${SECRET}\n`);
    mkdirSync(join(repo.dir, "docs"));
    symlinkSync("../.env", join(repo.dir, "docs/app.md"));
    symlinkSync("../creds/db.md", join(repo.dir, "docs/db.md"));
    repo.commit({}, "links");
    const open = toolHostSessions({
      root: repo.dir,
      workspace: new Workspace(repo.dir),
      changeSet: { base: "b", head: "h", files: [], symbols: [] },
      config: await loadConfig(repo.dir),
      allowCreate: false,
    });
    const article = (path: string) => ({ path, impact: [], files: [] }) as unknown as PlannedArticle;
    await expect(open(article("docs/app.md"))).rejects.toThrow(
      /^Refused: "docs\/app\.md" is a symlink to a path that matches the deny pattern/,
    );
    await expect(open(article("docs/db.md"))).rejects.toThrow(
      /^Refused: "docs\/db\.md" \(a symlink to "creds\/db\.md"\) is ignored by git/,
    );
  });
});
