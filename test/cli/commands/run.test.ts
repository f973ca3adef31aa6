import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { main } from "../../../cli/main.js";
import { type Audit, AuditSchema } from "../../../shared/audit.js";
import { contentHash } from "../../../shared/hash.js";
import { readAuditAt } from "../../helpers/audit-fixture.js";
import { gitRepo, makeTempDir, type TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";
import {
  type Script,
  type ScriptedModelServer,
  startScriptedModelServer,
} from "../../helpers/scripted-model-server.js";

const KEY = "sk-test-not-a-real-key";
const SCHEMA_FILE = fileURLToPath(new URL("../../../schema/audit.schema.json", import.meta.url));

const SERVER_DOC = `---
title: Server
attention:
  - op: file
    path: src/server.ts
---
# Server

## Starting

Start the server with \`serve()\`. It listens on port 8080 by default.

## Stopping

Call \`stop()\` to stop it.
`;

const CLI_DOC = `---
title: CLI
attention:
  - op: file
    path: src/server.ts
---
# CLI

| flag | default |
|---|---|
| --port | 8080 |
| --host | 127.0.0.1 |

The port is 8080 unless --port says otherwise.
`;

/** src/server.ts with its default port. */
const serverSource = (port: number) =>
  `export const DEFAULT_PORT = ${port};\nexport function serve() {}\nexport function stop() {}\n`;

/** A repository whose last commit changes the default port: both docs become wrong. */
function portRepo(): TestRepo {
  const repo = gitRepo({
    "src/server.ts": serverSource(8080),
    "docs/server.md": SERVER_DOC,
    "docs/cli.md": CLI_DOC,
  });
  repo.commit({ "src/server.ts": serverSource(9090) });
  return repo;
}

let servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function run(
  repo: TestRepo,
  script: Script,
  args: string[] = [],
  options: { signal?: AbortSignal; isTTY?: boolean; env?: Record<string, string> } = {},
) {
  const server = await startScriptedModelServer(script);
  servers.push(server);
  const io = captureIo(
    repo.dir,
    { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.url, IMPACT_MODEL: "test-model", ...options.env },
    { signal: options.signal },
  );
  io.isTTY = options.isTTY ?? false;
  const code = await main(["run", ...args], io);
  const auditPath = join(repo.dir, ".impact/audit.json");
  let audit: Audit | undefined;
  try {
    audit = readAuditAt(auditPath);
  } catch {
    audit = undefined;
  }
  const article = (path: string) => audit?.articles.find((entry) => entry.path === path);
  return { code, io, server, audit, article };
}

const edit = (oldString: string, newString: string, extra: Record<string, unknown> = {}) => ({
  old_string: oldString,
  new_string: newString,
  reason: "DEFAULT_PORT changed from 8080 to 9090 in src/server.ts",
  evidence: ["src/server.ts:1"],
  ...extra,
});

const SERVER_FIX = {
  name: "edit_article",
  arguments: {
    path: "docs/server.md",
    edits: [edit("port 8080 by default", "port 9090 by default")],
    done: true,
  },
};
const CLI_FIX = {
  name: "edit_article",
  arguments: {
    path: "docs/cli.md",
    edits: [edit("| --port | 8080 |", "| --port | 9090 |"), edit("The port is 8080", "The port is 9090")],
    done: true,
  },
};

describe("impact run, end to end through the openai SDK", () => {
  for (const stream of [false, true]) {
    it(`fixes both articles in one call each (${stream ? "streaming" : "non-streaming"}), and the patch applies`, async () => {
      const repo = portRepo();
      const { code, io, audit, article, server } = await run(
        repo,
        { "docs/server.md": [{ toolCalls: [SERVER_FIX] }], "docs/cli.md": [{ toolCalls: [CLI_FIX] }] },
        stream ? ["--stream"] : [],
      );
      expect(io.err).toBe("");
      expect(code).toBe(0);
      expect(server.requests.every((request) => request.body.stream === stream)).toBe(true);
      expect(audit?.totals).toMatchObject({ articles: 2, updated: 2, failed: 0 });
      expect(audit?.model).toBe("test-model");
      // The written file validates against the published JSON Schema, read back independently of zod's source schema.
      const published = z.fromJSONSchema(JSON.parse(readFileSync(SCHEMA_FILE, "utf8")));
      const written = JSON.parse(readFileSync(join(repo.dir, ".impact/audit.json"), "utf8"));
      expect(published.safeParse(written).success).toBe(true);
      expect(published.safeParse({ ...written, articles: [{ path: 1 }] }).success).toBe(false);
      const server_ = article("docs/server.md")!;
      expect(server_.usage).toMatchObject({
        turns: 1,
        llmCalls: 1,
        toolCalls: { edit_article: 1 },
        toolErrors: 0,
      });
      expect(server_.usage.firstTryEdits).toBe(1);
      expect(server_.hashBefore).toBe(contentHash(SERVER_DOC));
      expect(server_.edits).toEqual([
        expect.objectContaining({
          kind: "replace",
          evidence: ["src/server.ts:1"],
          startLine: 11,
          endLine: 11,
        }),
      ]);
      expect(server_.editReasons).toEqual(["DEFAULT_PORT changed from 8080 to 9090 in src/server.ts"]);
      // The user's files are untouched without --apply, and the outputs stay out of git status.
      expect(readFileSync(join(repo.dir, "docs/server.md"), "utf8")).toBe(SERVER_DOC);
      expect(repo.git("status", "--porcelain")).toBe("");
      // The combined patch applies with real git to the base tree (the docs did not change in the commit).
      const base = repo.git("rev-parse", "HEAD~1");
      repo.git("checkout", "-q", base);
      execFileSync("git", ["apply", join(repo.dir, ".impact/impact.patch")], { cwd: repo.dir });
      expect(readFileSync(join(repo.dir, "docs/cli.md"), "utf8")).toContain("| --port | 9090 |");
      expect(contentHash(readFileSync(join(repo.dir, "docs/server.md")))).toBe(server_.hashAfter);
      expect(io.out.replace(/\d[\d,]* tokens/, "N tokens")).toMatchInlineSnapshot(`
        "updated   docs/cli.md (2 edits)
        updated   docs/server.md (1 edit)

        2 updated, 0 unchanged, 0 failed; N tokens
        audit: .impact/audit.json
        patch: .impact/impact.patch
        "
      `);
    });
  }

  it("sends a first message with the hash, outline, reasons, article and only the relevant hunks", async () => {
    const repo = portRepo();
    const { server } = await run(repo, {
      "docs/server.md": [{ content: "Nothing to change." }],
      "docs/cli.md": [{ content: "Nothing to change." }],
    });
    const request = server.requests.find((entry) => entry.article === "docs/server.md")!;
    const [system, user] = request.body.messages!;
    const other = server.requests.find((entry) => entry.article === "docs/cli.md")!;
    // Identical prefix across articles, so providers can cache it.
    expect(other.body.messages![0]).toEqual(system);
    expect(other.body.tools).toEqual(request.body.tools);
    const text = String(user?.content).replace(/[0-9a-f]{7,}\.\.[0-9a-f]{7,}/g, "<index>");
    expect(text).toMatchInlineSnapshot(`
      "Article: docs/server.md
      Hash: ab0cb7d1c883f49a

      ## Why this article was flagged
      - attention src/server.ts: attention file src/server.ts

      ## Outline
      frontmatter: lines 1-6
      Server  (h1, lines 7-15)
        Server::Starting  (h2, lines 9-12)
        Server::Stopping  (h2, lines 13-15)

      ## Article text
      <article path="docs/server.md">
      ---
      title: Server
      attention:
        - op: file
          path: src/server.ts
      ---
      # Server

      ## Starting

      Start the server with \`serve()\`. It listens on port 8080 by default.

      ## Stopping

      Call \`stop()\` to stop it.
      </article>

      ## The code change (relevant hunks)
      <diff>
      diff --git a/src/server.ts b/src/server.ts
      index <index> 100644
      --- a/src/server.ts
      +++ b/src/server.ts
      @@ -1,3 +1,3 @@
      -export const DEFAULT_PORT = 8080;
      +export const DEFAULT_PORT = 9090;
       export function serve() {}
       export function stop() {}
      </diff>

      Nothing was left out.

      Check the article against the change. If something is wrong, fix it with one edit_article call (done: true when complete); if nothing is wrong, say why in a sentence or two.
      "
    `);
  });

  it("reads, then edits", async () => {
    const repo = portRepo();
    const { code, article } = await run(repo, {
      "docs/server.md": [
        { toolCalls: [{ name: "read_file", arguments: { path: "src/server.ts" } }] },
        { toolCalls: [SERVER_FIX] },
      ],
      "docs/cli.md": [{ content: "The CLI article is fine." }],
    });
    expect(code).toBe(0);
    expect(article("docs/server.md")).toMatchObject({
      status: "updated",
      usage: { turns: 2, llmCalls: 2, toolCalls: { read_file: 1, edit_article: 1 } },
    });
    expect(article("docs/cli.md")).toMatchObject({
      status: "unchanged",
      summary: "The CLI article is fine.",
    });
  });

  it("retries a near miss and a non-unique match, and keeps an atomic batch all or nothing", async () => {
    const repo = portRepo();
    const { code, article, server } = await run(repo, {
      "docs/server.md": [
        // Near miss: the whitespace differs.
        {
          toolCalls: [
            {
              name: "edit_article",
              arguments: {
                path: "docs/server.md",
                edits: [edit("port  8080 by default", "port 9090 by default")],
              },
            },
          ],
        },
        { toolCalls: [SERVER_FIX] },
      ],
      "docs/cli.md": [
        // Not unique: "8080" appears twice.
        {
          toolCalls: [
            { name: "edit_article", arguments: { path: "docs/cli.md", edits: [edit("8080", "9090")] } },
          ],
        },
        // Atomic: the first edit is fine, the second fails, so neither lands.
        {
          toolCalls: [
            {
              name: "edit_article",
              arguments: {
                path: "docs/cli.md",
                edits: [edit("| --port | 8080 |", "| --port | 9090 |"), edit("no such text", "x")],
              },
            },
          ],
        },
        { toolCalls: [CLI_FIX] },
      ],
    });
    expect(code).toBe(0);
    expect(article("docs/server.md")?.usage).toMatchObject({ turns: 2, toolErrors: 1, firstTryEdits: 0 });
    expect(article("docs/cli.md")?.usage).toMatchObject({ turns: 3, toolErrors: 2, firstTryEdits: 0 });
    expect(article("docs/cli.md")?.patch).toContain("+| --port | 9090 |");
    const toolReply = (articlePath: string, call: number) => {
      const messages = server.requests.filter((entry) => entry.article === articlePath)[call]!.body.messages!;
      return String(messages.at(-1)?.content);
    };
    expect(toolReply("docs/server.md", 1)).toMatch(/^Error: Edit 0: /);
    expect(toolReply("docs/server.md", 1)).toMatch(/whitespace/i);
    expect(toolReply("docs/cli.md", 1)).toMatch(/^Error: Edit 0: .*2/);
    expect(toolReply("docs/cli.md", 2)).toMatch(/^Error: Edit 1: /);
  });

  for (const stream of [false, true]) {
    it(`survives 429s, 500s and dropped connections (${stream ? "streaming" : "non-streaming"})`, async () => {
      const repo = portRepo();
      const { code, article } = await run(
        repo,
        {
          "docs/server.md": [
            { status: 429, retryAfterMs: "5" },
            { status: 500, retryAfterMs: "5" },
            { toolCalls: [SERVER_FIX] },
          ],
          "docs/cli.md": [{ drop: true }, { drop: true, afterHeaders: true }, { toolCalls: [CLI_FIX] }],
        },
        stream ? ["--stream"] : [],
      );
      expect(code).toBe(0);
      expect(article("docs/server.md")).toMatchObject({
        status: "updated",
        usage: { llmCalls: 1, retries: 2 },
      });
      expect(article("docs/cli.md")).toMatchObject({ status: "updated", usage: { llmCalls: 1, retries: 2 } });
    });
  }

  it("answers malformed arguments, unknown tools and empty answers with errors the model can act on", async () => {
    const repo = portRepo();
    const { code, article, server } = await run(repo, {
      "docs/server.md": [
        { toolCalls: [{ name: "edit_article", arguments: '{"path": "docs/server.md", "edits": [' }] },
        { toolCalls: [{ name: "delete_everything", arguments: {} }] },
        { toolCalls: [SERVER_FIX] },
      ],
      "docs/cli.md": [
        { emptyChoices: true },
        { content: "" },
        { content: "The table is generated; nothing to do." },
      ],
    });
    expect(code).toBe(0);
    expect(article("docs/server.md")).toMatchObject({
      status: "updated",
      usage: { turns: 3, toolErrors: 2, toolCalls: { edit_article: 2, delete_everything: 1 } },
    });
    expect(article("docs/cli.md")).toMatchObject({
      status: "unchanged",
      summary: "The table is generated; nothing to do.",
    });
    const replies = server.requests
      .filter((entry) => entry.article === "docs/server.md")
      .slice(1)
      .map((entry) => String(entry.body.messages!.at(-1)?.content).split("\n")[0]);
    expect(replies).toMatchInlineSnapshot(`
      [
        "Error: The arguments of edit_article are not valid JSON (Unexpected end of JSON input). Send one JSON object matching the tool's schema.",
        "Error: There is no tool named "delete_everything". Available tools: read_file, outline_article, search_repo, list_files, edit_article.",
      ]
    `);
  });

  it("fails an article that never stops calling tools at the turn cap, and exits 1", async () => {
    const repo = portRepo();
    const { code, io, article, audit } = await run(
      repo,
      {
        "docs/server.md": Array.from({ length: 5 }, () => ({
          toolCalls: [{ name: "outline_article", arguments: { path: "docs/server.md" } }],
        })),
        "docs/cli.md": [{ toolCalls: [CLI_FIX] }],
      },
      ["--max-turns", "3"],
    );
    expect(code).toBe(1);
    expect(io.err).toBe("impact run: 1 article failed; see the audit for reasons\n");
    expect(article("docs/server.md")).toMatchObject({
      status: "failed",
      patch: "",
      usage: { turns: 3 },
      error: {
        code: "turn_cap",
        message: "turn cap reached: the article was not finished in 3 turns (--max-turns)",
      },
    });
    expect(audit?.totals).toMatchObject({ updated: 1, failed: 1 });
    expect(audit?.articles.map((entry) => entry.path)).toEqual(["docs/cli.md", "docs/server.md"].sort());
  });

  it("on abort: cancels unfinished articles, writes the partial audit, exits 130, changes no file", async () => {
    const repo = portRepo();
    const controller = new AbortController();
    const script: Script = (request) => {
      if (request.article === "docs/cli.md") return { toolCalls: [CLI_FIX] };
      setTimeout(() => controller.abort(), 50);
      return { hang: true };
    };
    const { code, io, article, audit } = await run(repo, script, ["--apply", "--concurrency", "1"], {
      signal: controller.signal,
    });
    expect(code).toBe(130);
    expect(io.err).toContain("interrupted");
    expect(audit?.applied).toBe(false);
    expect(article("docs/server.md")?.status).toBe("cancelled");
    // cli.md (first in plan order) finished before the abort; --apply still wrote nothing.
    expect(article("docs/cli.md")?.status).toBe("updated");
    expect(audit?.totals).toMatchObject({ updated: 1, cancelled: 1 });
    expect(readFileSync(join(repo.dir, "docs/cli.md"), "utf8")).toBe(CLI_DOC);
    expect(readFileSync(join(repo.dir, "docs/server.md"), "utf8")).toBe(SERVER_DOC);
  });

  it("--apply writes the edits; impact apply later refuses a stale file by name", async () => {
    const repo = portRepo();
    const first = await run(
      repo,
      { "docs/server.md": [{ toolCalls: [SERVER_FIX] }], "docs/cli.md": [{ toolCalls: [CLI_FIX] }] },
      ["--apply"],
    );
    expect(first.code).toBe(0);
    expect(first.audit?.applied).toBe(true);
    expect(readFileSync(join(repo.dir, "docs/server.md"), "utf8")).toContain("port 9090 by default");

    const again = portRepo();
    const second = await run(again, {
      "docs/server.md": [{ toolCalls: [SERVER_FIX] }],
      "docs/cli.md": [{ toolCalls: [CLI_FIX] }],
    });
    expect(second.code).toBe(0);
    writeFileSync(join(again.dir, "docs/cli.md"), `${CLI_DOC}\nA late edit.\n`);
    const io = captureIo(again.dir, {});
    expect(await main(["apply", ".impact/audit.json"], io)).toBe(2);
    expect(io.err).toMatch(
      /^impact apply: refusing to apply, nothing was written: docs\/cli\.md: it changed since the audit/,
    );
    expect(readFileSync(join(again.dir, "docs/server.md"), "utf8")).toBe(SERVER_DOC);
  });

  it("--only and --shard limit the articles; --json prints one summary object", async () => {
    const repo = portRepo();
    const only = await run(repo, { "docs/cli.md": [{ toolCalls: [CLI_FIX] }] }, [
      "--only",
      "docs/cli*",
      "--json",
    ]);
    expect(only.code).toBe(0);
    expect(only.audit?.articles.map((entry) => entry.path)).toEqual(["docs/cli.md"]);
    const summary = JSON.parse(only.io.out);
    expect(summary).toMatchObject({
      totals: { articles: 1, updated: 1 },
      articles: [{ path: "docs/cli.md", status: "updated", edits: 2 }],
    });

    const seen: string[] = [];
    for (const index of [1, 2]) {
      const shard = await run(repo, () => ({ content: "Nothing to change." }), [
        "--shard",
        `${index}/2`,
        "--out",
        `.impact/shard-${index}.json`,
      ]);
      expect(shard.code).toBe(0);
      const audit = AuditSchema.parse(
        JSON.parse(readFileSync(join(repo.dir, `.impact/shard-${index}.json`), "utf8")),
      );
      expect(audit.shard).toEqual({ index, count: 2 });
      seen.push(...audit.articles.map((entry) => entry.path));
    }
    expect(seen.sort()).toEqual(["docs/cli.md", "docs/server.md"]);
  });

  it("appends what it did to the GitHub Actions job summary when GITHUB_STEP_SUMMARY is set", async () => {
    const repo = portRepo();
    const summaryPath = join(makeTempDir(), "summary.md");
    writeFileSync(summaryPath, "earlier step\n");
    const { code } = await run(
      repo,
      { "docs/server.md": [{ toolCalls: [SERVER_FIX] }], "docs/cli.md": [{ content: "Still right." }] },
      [],
      { env: { GITHUB_STEP_SUMMARY: summaryPath } },
    );
    expect(code).toBe(0);
    const summary = readFileSync(summaryPath, "utf8");
    expect(summary.startsWith("earlier step\n")).toBe(true);
    expect(summary).toContain("docs/server.md");
    expect(summary).toContain("DEFAULT_PORT changed from 8080 to 9090 in src/server.ts");
    expect(summary).not.toContain(KEY);
  });

  it("needs no model (and no key) when no article goes to the model", async () => {
    const repo = portRepo();
    // The last commit edits both docs itself: they are touched, and nothing is sent.
    repo.commit({
      "src/server.ts": serverSource(7070),
      "docs/server.md": SERVER_DOC.replace("8080", "7070"),
      "docs/cli.md": CLI_DOC.replaceAll("8080", "7070"),
    });
    const io = captureIo(repo.dir, {});
    expect(await main(["run", "--quiet"], io)).toBe(0);
    expect(io.err).toBe("");
    const audit = readAuditAt(join(repo.dir, ".impact/audit.json"));
    expect(audit.totals).toMatchObject({ articles: 2, touched: 2, updated: 0 });
    expect(audit.model).toBe("gpt-4.1-mini");
    // Sending the touched articles does need a model.
    expect(await main(["run", "--include-touched"], io)).toBe(2);
    expect(io.err).toContain("no model configured");
  });

  it("takes the config's model when IMPACT_MODEL is empty (an unset variable in GitHub Actions)", async () => {
    const repo = portRepo();
    writeFileSync(join(repo.dir, "impact.config.json"), JSON.stringify({ model: "config-model" }));
    const answers = {
      "docs/server.md": [{ content: "Still right." }],
      "docs/cli.md": [{ content: "Still right." }],
    };
    const { code, audit, server } = await run(repo, answers, ["--no-cache"], { env: { IMPACT_MODEL: "" } });
    expect(code).toBe(0);
    expect(audit?.model).toBe("config-model");
    expect(new Set(server.requests.map((request) => request.body.model))).toEqual(new Set(["config-model"]));
    // The flag still wins over both.
    const flagged = await run(repo, answers, ["--no-cache", "--model", "flag-model"], {
      env: { IMPACT_MODEL: "" },
    });
    expect(flagged.audit?.model).toBe("flag-model");
  });

  it("refuses bad flags with exit 2 before any model call, and says how to set a key up", async () => {
    const repo = portRepo();
    const bad = await run(repo, [], ["--shard", "3/2"]);
    expect(bad.code).toBe(2);
    expect(bad.server.requests).toHaveLength(0);
    const io = captureIo(repo.dir, {});
    expect(await main(["run"], io)).toBe(2);
    expect(`${bad.io.err}${io.err}`).toMatchInlineSnapshot(`
      "impact run: --shard takes I/N with 1 ≤ I ≤ N, got "3/2"
      impact run: no model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible server), or use a router with --router URL or IMPACT_ROUTER_URL, or replay a recording with --model replay:FILE (\`impact plan\` needs no key)
      "
    `);
  });

  it("keeps secrets out of the audit, even when the model writes one", async () => {
    const repo = portRepo();
    const { code, audit } = await run(repo, {
      "docs/server.md": [{ content: `Nothing to change. My key is ${KEY}.` }],
      "docs/cli.md": [{ content: "Fine." }],
    });
    expect(code).toBe(0);
    const text = readFileSync(join(repo.dir, ".impact/audit.json"), "utf8");
    expect(text).not.toContain(KEY);
    expect(audit?.articles.find((entry) => entry.path === "docs/server.md")?.summary).toBe(
      "Nothing to change. My key is [redacted].",
    );
  });

  it("keeps outputs named inside .impact/ out of git status too, and leaves other places alone", async () => {
    const repo = portRepo();
    const script = () => ({ content: "Nothing to change." });
    const named = await run(repo, script, ["--out", ".impact/x.json", "--patch", ".impact/x.patch"]);
    expect(named.code).toBe(0);
    expect(repo.git("status", "--porcelain")).toBe("");
    const elsewhere = await run(repo, script, ["--out", "out/a.json", "--patch", "out/a.patch"]);
    expect(elsewhere.code).toBe(0);
    expect(repo.git("status", "--porcelain")).toBe("?? out/");
  });

  it("refuses a --head other than the checked-out commit, before the plan and any model call", async () => {
    const repo = portRepo();
    // A base that does not resolve would fail the plan: the refusal comes first.
    const { code, io, server } = await run(repo, [], ["--base", "no-such-revision", "--head", "HEAD~1"]);
    expect(code).toBe(2);
    expect(io.err).toBe(
      "impact run: the agents edit the checked-out files, so --head must be the checked-out commit: run git checkout HEAD~1 first, or leave --head out\n",
    );
    expect(server.requests).toHaveLength(0);
  });

  it("leaves secret-looking prose in the patch alone, so it applies", async () => {
    const prose = "Authenticate with token authentication12345 or a key like sk-your-key-goes-here-12345.";
    const doc = SERVER_DOC.replace("## Stopping", `${prose}\n\n## Stopping`);
    const repo = gitRepo({
      "src/server.ts": "export const DEFAULT_PORT = 8080;\nexport function serve() {}\n",
      "docs/server.md": doc,
    });
    repo.commit({ "src/server.ts": "export const DEFAULT_PORT = 9090;\nexport function serve() {}\n" });
    const { code, article } = await run(repo, { "docs/server.md": [{ toolCalls: [SERVER_FIX] }] }, [
      "--apply",
    ]);
    expect(code).toBe(0);
    expect(article("docs/server.md")?.patch).toContain(prose);
    expect(readFileSync(join(repo.dir, "docs/server.md"), "utf8")).toBe(
      doc.replace("port 8080 by default", "port 9090 by default"),
    );
  });

  it("--apply refuses a file that changed on disk during the run, names it, and exits 2", async () => {
    const repo = portRepo();
    const script: Script = (request) => {
      if (request.article === "docs/server.md") {
        writeFileSync(join(repo.dir, "docs/server.md"), `${SERVER_DOC}\nEdited meanwhile.\n`);
        return { toolCalls: [SERVER_FIX] };
      }
      return { toolCalls: [CLI_FIX] };
    };
    const { code, io, audit } = await run(repo, script, ["--apply"]);
    expect(code).toBe(2);
    expect(io.err.replace(/hash \w+, expected \w+/, "hash …")).toMatchInlineSnapshot(`
      "impact run: --apply wrote nothing: docs/server.md: it changed since the audit (hash …); the audit and patch were written (impact apply can retry)
      "
    `);
    // All or nothing: the article that was still fine was not written either.
    expect(readFileSync(join(repo.dir, "docs/cli.md"), "utf8")).toBe(CLI_DOC);
    expect(audit?.applied).toBe(false);
    expect(readFileSync(join(repo.dir, "docs/server.md"), "utf8")).toContain("Edited meanwhile.");
  });

  it("draws progress on a terminal's stderr, and nothing on stdout but the summary", async () => {
    const repo = portRepo();
    const { code, io } = await run(
      repo,
      { "docs/server.md": [{ toolCalls: [SERVER_FIX] }], "docs/cli.md": [{ content: "Fine." }] },
      [],
      { isTTY: true },
    );
    expect(code).toBe(0);
    const frames = io.err.split("\r\x1b[2K").filter(Boolean);
    expect(frames.at(-1)).toMatch(/^impact: 2\/2 articles · [\d,]+ tokens$/);
    expect(io.out).not.toContain("\x1b");
    const quiet = await run(
      repo,
      { "docs/server.md": [{ content: "Fine." }], "docs/cli.md": [{ content: "Fine." }] },
      ["--quiet"],
      {
        isTTY: true,
      },
    );
    expect(`${quiet.io.out}${quiet.io.err}`).toBe("");
  });

  it("records articles the change already edits as touched, and sends them only with --include-touched", async () => {
    const repo = portRepo();
    repo.commit({
      "src/server.ts": serverSource(7070),
      "docs/cli.md": CLI_DOC.replaceAll("8080", "7070"),
    });
    const plain = await run(repo, { "docs/server.md": [{ content: "Fine." }] });
    expect(plain.code).toBe(0);
    expect(plain.article("docs/cli.md")).toMatchObject({ status: "touched", usage: { llmCalls: 0 } });
    expect(plain.server.requests.map((request) => request.article)).toEqual(["docs/server.md"]);
    const included = await run(
      repo,
      { "docs/server.md": [{ content: "Fine." }], "docs/cli.md": [{ content: "Already right." }] },
      ["--include-touched"],
    );
    expect(included.article("docs/cli.md")).toMatchObject({ status: "unchanged", summary: "Already right." });
  });

  it("takes the change from --diff FILE, with diff: ids for base and head", async () => {
    const repo = portRepo();
    writeFileSync(
      join(repo.dir, "change.diff"),
      execFileSync("git", ["diff", "HEAD~1", "HEAD"], { cwd: repo.dir, encoding: "utf8" }),
    );
    const { code, audit } = await run(
      repo,
      { "docs/server.md": [{ toolCalls: [SERVER_FIX] }], "docs/cli.md": [{ content: "Fine." }] },
      ["--diff", "change.diff"],
    );
    expect(code).toBe(0);
    expect(audit?.base).toMatch(/^diff:[0-9a-f]{16}$/);
    expect(audit?.head).toBe(audit?.base);
    expect(audit?.totals).toMatchObject({ updated: 1, unchanged: 1 });
  });

  it("--allow-create: a created article gets its own audit entry, and the patch creates it", async () => {
    const repo = portRepo();
    const create = {
      name: "create_article",
      arguments: {
        path: "docs/ports.md",
        content: "# Ports\n\nThe default port is 9090.\n",
        reason: "DEFAULT_PORT needs its own page",
      },
    };
    const { code, audit, article, server } = await run(
      repo,
      {
        "docs/server.md": [{ toolCalls: [create] }, { content: "Created docs/ports.md." }],
        "docs/cli.md": [{ content: "Fine." }],
      },
      ["--allow-create"],
    );
    expect(code).toBe(0);
    expect(server.requests[0]?.body.tools?.length).toBe(6);
    expect(article("docs/ports.md")).toMatchObject({
      status: "updated",
      created: true,
      hashBefore: null,
      edits: [expect.objectContaining({ kind: "create", reason: "DEFAULT_PORT needs its own page" })],
    });
    // The article itself did not change; the one it created is the update.
    expect(article("docs/server.md")).toMatchObject({
      status: "unchanged",
      patch: "",
      summary: "Created docs/ports.md.",
    });
    expect(audit?.totals).toMatchObject({ articles: 3, updated: 1, unchanged: 2 });
    execFileSync("git", ["apply", join(repo.dir, ".impact/impact.patch")], { cwd: repo.dir });
    expect(readFileSync(join(repo.dir, "docs/ports.md"), "utf8")).toBe(
      "# Ports\n\nThe default port is 9090.\n",
    );
  });
});
