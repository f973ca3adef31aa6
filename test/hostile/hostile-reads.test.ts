import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import { type Audit, AuditSchema } from "../../shared/audit.js";
import { addedLines } from "../../shared/diff/lines.js";
import { createFilePatch } from "../../shared/patch.js";
import { secretShapeIn } from "../../shared/redact.js";
import { gitRepo, makeTempDir, type TestRepo } from "../helpers/git-repo.js";
import { captureIo } from "../helpers/io.js";
import {
  type Script,
  type ScriptedModelServer,
  type ScriptToolCall,
  startScriptedModelServer,
} from "../helpers/scripted-model-server.js";

// Red-team items 13 and 14: what the read tools may open. Ignored files, hard links to
// files outside the repository, and names that Windows or macOS alias to a denied file.

const KEY = "sk-test-not-a-real-key";
const SECRET = "TOPSECRET-4242-do-not-leak";

let servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function run(repo: TestRepo, script: Script, args: string[] = []) {
  const server = await startScriptedModelServer(script);
  servers.push(server);
  const io = captureIo(repo.dir, {
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: server.url,
    IMPACT_MODEL: "test-model",
  });
  const code = await main(["run", ...args], io);
  const audit: Audit = AuditSchema.parse(
    JSON.parse(readFileSync(join(repo.dir, ".impact/audit.json"), "utf8")),
  );
  return { code, io, server, audit };
}

const WATCHING = "---\nattention:\n  - op: file\n    path: src/app.ts\n---\n# Guide\n\nUses src/app.ts.\n";

function watchedRepo(extra: Record<string, string> = {}): TestRepo {
  const repo = gitRepo({ "src/app.ts": "export const a = 1;\n", "docs/guide.md": WATCHING, ...extra });
  repo.commit({ "src/app.ts": "export const a = 2;\n" });
  return repo;
}

/** The tool results the model got back, in order. */
function toolResults(server: ScriptedModelServer): string[] {
  return server.requests.flatMap((request) =>
    (request.body.messages ?? [])
      .filter((message) => message.role === "tool")
      .map((message) => String(message.content)),
  );
}

/** What the model was sent besides its own calls: the first message and every tool result. */
function sentToModel(server: ScriptedModelServer): string {
  return JSON.stringify(
    server.requests.flatMap((request) =>
      (request.body.messages ?? []).filter((message) => message.role !== "assistant"),
    ),
  );
}

/** A repository whose article watches src/app.ts, with a git-ignored creds/token.json holding `token`. */
function repoWithIgnoredToken(gitignore: string, token: string) {
  const repo = gitRepo({
    "src/app.ts": "export const a = 1;\n",
    "docs/guide.md": WATCHING,
    ".gitignore": gitignore,
  });
  mkdirSync(join(repo.dir, "creds"));
  writeFileSync(join(repo.dir, "creds/token.json"), token);
  return repo;
}

const read = (path: string): ScriptToolCall => ({ name: "read_file", arguments: { path } });
const search = (pattern: string): ScriptToolCall => ({ name: "search_repo", arguments: { pattern } });
const list = (glob: string): ScriptToolCall => ({ name: "list_files", arguments: { glob } });

describe("what the read tools may open", () => {
  it("evidence naming a git-ignored file is no evidence: dropped from the audit, and its line count not revealed", async () => {
    const repo = repoWithIgnoredToken("creds/\n", `{\n  "token": "${SECRET}"\n}\n`);
    repo.commit({ "src/app.ts": "export const a = 2;\n" });
    const edit = (evidence: string): ScriptToolCall => ({
      name: "edit_article",
      arguments: {
        path: "docs/guide.md",
        edits: [
          {
            old_string: "# Guide",
            new_string: `# Guide (${evidence})`,
            reason: "The value changed.",
            evidence: [evidence, "src/app.ts:1"],
          },
        ],
      },
    });
    const { code, server, audit } = await run(repo, [
      { toolCalls: [edit("creds/token.json:2")] },
      { toolCalls: [edit("creds/token.json:9")] },
      { content: "Done." },
    ]);
    expect(code).toBe(0);
    // Each request repeats the results before it: the last holds both.
    const [first, second] = toolResults(server).slice(-2);
    // The same answer for a line the file has and one it has not: nothing learnt about it.
    for (const [result, line] of [
      [first, 2],
      [second, 9],
    ] as const)
      expect(result).toContain(
        `evidence "creds/token.json:${line}" names "creds/token.json", which the tools may not read; it was left out of the audit.`,
      );
    const evidence = audit.articles.flatMap((article) => article.edits.flatMap((edit) => edit.evidence));
    expect(evidence.length).toBeGreaterThan(0);
    expect(evidence.every((location) => location === "src/app.ts:1")).toBe(true);
  });

  it("git-ignored files are unreadable by every read tool, also through a tracked symlink; readIgnored opts in", async () => {
    const repo = repoWithIgnoredToken("creds/\nbuild/\n", `{ "token": "${SECRET}" }\n`);
    mkdirSync(join(repo.dir, "build"));
    writeFileSync(join(repo.dir, "build/api.md"), "# Generated API\n\nbuildMarker\n");
    // A tracked symlink whose target is ignored.
    symlinkSync("../creds/token.json", join(repo.dir, "docs/creds-link.md"));
    repo.commit({}, "link");
    repo.commit({ "src/app.ts": "export const a = 2;\n" });

    const { code, server } = await run(repo, [
      {
        toolCalls: [
          read("creds/token.json"),
          read("docs/creds-link.md"),
          search(SECRET.slice(0, 14)),
          list("creds/**"),
          { name: "outline_article", arguments: { path: "creds/token.json" } },
          read("build/api.md"),
        ],
      },
      { content: "Nothing to change." },
    ]);
    expect(code).toBe(0);
    const [direct, viaLink, searched, listed, outlined, build] = toolResults(server);
    expect(direct).toMatch(/^Error: Refused: "creds\/token\.json" is ignored by git/);
    expect(viaLink).toMatch(
      /^Error: Refused: "docs\/creds-link\.md" \(a symlink to "creds\/token\.json"\) is ignored by git/,
    );
    expect(searched).toMatch(/^No matches/);
    expect(listed).toMatch(/^No files match/);
    expect(outlined).toMatch(/^Error: Refused: "creds\/token\.json" is ignored by git/);
    expect(build).toMatch(/^Error: Refused: "build\/api\.md" is ignored by git/);
    expect(sentToModel(server)).not.toContain(SECRET);

    // A maintainer opts in to the generated docs, and only to them.
    writeFileSync(join(repo.dir, "impact.config.json"), JSON.stringify({ readIgnored: ["build/**"] }));
    const allowed = await run(
      repo,
      [
        { toolCalls: [read("build/api.md"), search("buildMarker"), read("creds/token.json")] },
        { content: "Nothing to change." },
      ],
      ["--no-cache"],
    );
    const [page, found, still] = toolResults(allowed.server);
    expect(page).toMatch(/^build\/api\.md · lines 1-3 of 3/);
    expect(found).toBe("build/api.md:3: buildMarker\n");
    expect(still).toMatch(/^Error: Refused: "creds\/token\.json" is ignored by git/);
  });

  it("a hard link to a file outside the repository is refused unless git tracks it", async () => {
    const repo = watchedRepo();
    const outside = makeTempDir("impact-outside-");
    writeFileSync(join(outside, "id_secret"), `${SECRET}\n`);
    linkSync(join(outside, "id_secret"), join(repo.dir, "docs/notes.txt"));
    // A tracked file may have other links (a backup, a second checkout): its content is the repository's.
    linkSync(join(repo.dir, "src/app.ts"), join(outside, "app-backup.ts"));
    const { code, server } = await run(repo, [
      { toolCalls: [read("docs/notes.txt"), search(SECRET.slice(0, 14)), read("src/app.ts")] },
      { content: "Nothing to change." },
    ]);
    expect(code).toBe(0);
    const [linked, searched, tracked] = toolResults(server);
    expect(linked).toBe(
      'Error: Refused: "docs/notes.txt" has 2 hard links and is not tracked by git, so it may be a file from outside the repository; it is not read.',
    );
    expect(searched).toMatch(/^No matches/);
    expect(tracked).toMatch(/^src\/app\.ts · lines 1-1 of 1 .*\nexport const a = 2;\n/);
    expect(sentToModel(server)).not.toContain(SECRET);
  });

  it("names Windows and macOS alias to a denied file are denied: trailing dot or space, ::$DATA, GIT~1, zero-width characters", async () => {
    const aliases = [
      "server.pem.",
      "server.pem ",
      "server.pem::$DATA",
      ".e\u200Bnv",
      "id_rsa\uFEFF",
      "GIT~1/config",
      ".g\u200Cit/config",
      "ENV~1",
    ];
    const repo = watchedRepo();
    for (const alias of aliases) {
      mkdirSync(join(repo.dir, alias, ".."), { recursive: true });
      writeFileSync(join(repo.dir, alias), `${SECRET}\n`);
    }
    const { code, server } = await run(repo, [
      { toolCalls: [...aliases.map(read), search(SECRET.slice(0, 14)), list("**")] },
      { content: "Nothing to change." },
    ]);
    expect(code).toBe(0);
    const results = toolResults(server);
    const refusals = results.slice(0, aliases.length);
    for (const [index, refusal] of refusals.entries())
      expect(refusal, aliases[index]).toMatch(
        /^Error: Refused: .* (matches the deny pattern "(\*\.pem|\.env\*|id_\*|8\.3 short names \(NAME~1\))"|is inside \.git\/)/,
      );
    expect(results[aliases.length]).toMatch(/^No matches/);
    expect(results[aliases.length + 1]).not.toMatch(/server\.pem|GIT~1|ENV~1|config/);
    expect(sentToModel(server)).not.toContain(SECRET);
  });
});

describe("patch secret scan", () => {
  it("names every common token shape an edit adds, and ignores the lines it does not add", () => {
    const fake = (prefix: string, length: number, alphabet = "abcdefghij0123456789") =>
      prefix + Array.from({ length }, (_, index) => alphabet[index % alphabet.length]).join("");
    const shapes: [string, string][] = [
      ["-----BEGIN OPENSSH PRIVATE KEY-----", "a private key block"],
      [fake("sk-proj-", 40), "an OpenAI-style API key"],
      [fake("ghp_", 36), "a GitHub token"],
      ["AKIA0123456789ABCDEF", "an AWS access key id"],
      [`aws_secret_access_key = ${fake("", 40)}`, "an AWS secret access key"],
      [fake("glpat-", 20), "a GitLab token"],
      [fake("npm_", 36), "an npm token"],
      [fake("pypi-AgE", 60), "a PyPI token"],
      [fake("hf_", 34), "a Hugging Face token"],
      [fake("sk_live_", 24), "a Stripe secret key"],
      [`${fake("SG.", 22)}.${fake("", 43)}`, "a SendGrid API key"],
      [`AccountKey=${fake("", 86)}==`, "an Azure storage account key"],
    ];
    for (const [token, name] of shapes) {
      const patch = createFilePatch("docs/a.md", "# A\n", `# A\n\nKey: ${token}\n`);
      expect(secretShapeIn(addedLines(patch).join("\n")), token).toBe(name);
    }
    // An example key the article already shows rides along as context, and is not the edit's.
    const example = "# A\n\nExample: AKIA0123456789ABCDEF\n\nOld.\n";
    const patch = createFilePatch("docs/a.md", example, example.replace("Old.", "New."));
    expect(patch).toContain("AKIA0123456789ABCDEF");
    expect(secretShapeIn(addedLines(patch).join("\n"))).toBeUndefined();
    expect(secretShapeIn("Set the sk-your-key placeholder and a token of your own.")).toBeUndefined();
  });

  it("scans an added line that starts with `++ ` (its patch line reads `+++ `, like a file header)", () => {
    const token = `ghp_${"0123456789abcdefghij".repeat(2).slice(0, 36)}`;
    const patch = createFilePatch("docs/a.md", "# A\n", `# A\n++ ${token}\n`);
    expect(patch).toContain(`+++ ${token}`);
    expect(addedLines(patch)).toEqual([`++ ${token}`]);
    expect(secretShapeIn(addedLines(patch).join("\n"))).toBe("a GitHub token");
  });
});
