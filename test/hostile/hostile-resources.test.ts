import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import { ReadBudget } from "../../cli/run/read-budget.js";
import { RegexWorker } from "../../cli/run/tools/regex-worker.js";
import { Workspace } from "../../cli/run/workspace.js";
import type { ToolCall } from "../../shared/model/types.js";
import { gitRepo, type TestRepo } from "../helpers/git-repo.js";
import { captureIo } from "../helpers/io.js";
import { runWithScript } from "../helpers/run-impact.js";
import type { Script, ScriptedModelServer } from "../helpers/scripted-model-server.js";
import { testToolHost } from "../helpers/tool-host.js";

// Red-team items 5-9: resource bombs from a hostile model or a crafted repository.

// The watching article is related (a value changed that it does not quote): --include related runs it.
const run = (repo: TestRepo, script: Script, args: string[] = []) =>
  runWithScript(repo.dir, script, ["--include", "related", ...args]);

/** A repository whose last commit changes src/app.ts, watched by docs/guide.md. */
function watchedRepo(guide: string, extra: Record<string, string> = {}): TestRepo {
  const repo = gitRepo({ "src/app.ts": "export const a = 1;\n", "docs/guide.md": guide, ...extra });
  repo.commit({ "src/app.ts": "export const a = 2;\n" });
  return repo;
}

const WATCHING = "---\nattention:\n  - op: file\n    path: src/app.ts\n---\n";

/** The tool results the model got back, in order. */
function toolResults(server: ScriptedModelServer): string[] {
  return server.requests.flatMap((request) =>
    (request.body.messages ?? [])
      .filter((message) => message.role === "tool")
      .map((message) => String(message.content)),
  );
}

describe("resource bombs", () => {
  it("an occurrence-all edit chain that grows the article exponentially is refused, nothing applied", async () => {
    const guide = `${WATCHING}# Guide\n\n${"x".repeat(100)}\n`;
    const repo = watchedRepo(guide);
    // Each edit doubles every "x": 2^40 times the article if nothing stops it.
    const doubling = Array.from({ length: 40 }, () => ({
      old_string: "x",
      new_string: "xx",
      occurrence: "all",
      reason: "grow",
    }));
    const { code, audit, server } = await run(repo, [
      { toolCalls: [{ name: "edit_article", arguments: { path: "docs/guide.md", edits: doubling } }] },
      { content: "Nothing to change." },
    ]);
    // The model stopped after a refused batch: the article gave up (exit 1), never "unchanged".
    expect(code).toBe(1);
    expect(toolResults(server)[0]).toMatch(
      /^Error: Edit \d+: the (edit|batch) would (make|add) .* over the limit/,
    );
    const article = audit?.articles.find((entry) => entry.path === "docs/guide.md");
    expect(article?.status).toBe("gave_up");
    expect(readFileSync(join(repo.dir, "docs/guide.md"), "utf8")).toBe(guide);
  });

  it("a YAML alias bomb in an article's frontmatter is a warning, not a crash (plan and run)", async () => {
    const bomb = [
      "---",
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]",
      "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]",
      "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]",
      "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]",
      "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]",
      "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]",
      "attention: [{ op: file, path: src/app.ts }]",
      "---",
      "# Bomb",
      "",
    ].join("\n");
    const repo = watchedRepo(`${WATCHING}# Guide\n\nUses src/app.ts.\n`, { "docs/bomb.md": bomb });
    const plan = captureIo(repo.dir);
    expect(await main(["plan"], plan)).toBe(0);
    expect(plan.err).toMatch(
      /^warning: docs\/bomb\.md:1: frontmatter is not valid YAML \(Excessive alias count/m,
    );
    const { code, audit } = await run(repo, [{ content: "Nothing to change." }]);
    expect(code).toBe(0);
    expect(audit?.articles.map((article) => article.path)).toEqual(["docs/guide.md"]);
  });

  it("a diff over the caps lists the files past them as skipped, and the plan still runs", async () => {
    const config = JSON.stringify({ limits: { fileDiffBytes: 4000, diffBytes: 20000 } });
    const repo = watchedRepo(`${WATCHING}# Guide\n\nUses src/app.ts.\n`, { "impact.config.json": config });
    const generated = Array.from({ length: 400 }, (_, index) => `export const g${index} = ${index};`).join(
      "\n",
    );
    const many: Record<string, string> = {};
    for (let index = 0; index < 12; index++)
      many[`zz/part${String(index).padStart(2, "0")}.ts`] = generated.slice(0, 3000);
    repo.commit({ "src/app.ts": "export const a = 3;\n", "assets/generated.ts": generated, ...many });
    const io = captureIo(repo.dir);
    expect(await main(["plan", "--json"], io)).toBe(0);
    const plan = JSON.parse(io.out) as {
      skipped: { path: string; reason: string }[];
      articles: { path: string }[];
    };
    expect(plan.skipped).toContainEqual({ path: "assets/generated.ts", reason: "file_too_large" });
    expect(plan.skipped.filter((file) => file.reason === "diff_too_large").length).toBeGreaterThan(0);
    expect(plan.articles.map((article) => article.path)).toEqual(["docs/guide.md"]);
    const text = captureIo(repo.dir);
    expect(await main(["plan"], text)).toBe(0);
    expect(text.err).toMatch(
      /^warning: 1 changed file was skipped, each file's diff being over limits\.fileDiffBytes/m,
    );

    const diffFile = join(repo.dir, "big.diff");
    writeFileSync(diffFile, repo.git("diff", "HEAD~1", "HEAD"));
    const refused = captureIo(repo.dir);
    expect(await main(["plan", "--diff", diffFile], refused)).toBe(2);
    expect(refused.err).toMatch(
      /^impact plan: --diff .*big\.diff: the diff is over limits\.diffBytes \(20000 bytes\)/,
    );
  });

  it("a backtracking regex that passes the filter runs off the main thread: the loop stays live and an interrupt stops it", async () => {
    const repo = gitRepo({ "docs/guide.md": "# Guide\n", "src/slow.txt": `${"a".repeat(64)}!\n` });
    const host = testToolHost(repo.dir, {
      limits: { regexTimeoutMs: 20_000 },
    });
    const controller = new AbortController();
    let ticks = 0;
    const ticking = setInterval(() => {
      ticks += 1;
      if (ticks === 3) controller.abort();
    }, 5);
    const call: ToolCall = {
      id: "call_1",
      type: "function",
      function: { name: "search_repo", arguments: JSON.stringify({ pattern: "(a|aa)+$", regex: true }) },
    };
    const outcome = await host.execute([call], controller.signal).then(
      (results) => ({ results }),
      (error: unknown) => ({ error }),
    );
    clearInterval(ticking);
    // Timers ran while the regex was matching, so the interrupt arrived and ended the call.
    expect(ticks).toBeGreaterThanOrEqual(3);
    expect("error" in outcome && (outcome.error as Error).name).toBe("AbortError");
  });

  it("an interrupt that came before the match started (while files were read) stops it at once", async () => {
    // The abort event has already fired: waiting for it would wait out the whole deadline.
    const worker = new RegexWorker();
    const scan = await worker.scan("(a|aa)+$", [[`${"a".repeat(64)}!`]], 10, 3_600_000, AbortSignal.abort());
    worker.close();
    expect(scan).toEqual({ ok: false, reason: "aborted" });
  });

  it("parallel search_repo calls of concurrent articles over large files share one budget of bytes in flight", async () => {
    const repo = gitRepo({ "docs/guide.md": "# Guide\n", "docs/other.md": "# Other\n" });
    // 64 files of 64 KB: each search loads two batches of 2 MB.
    const line = `${"filler ".repeat(9)}\n`;
    const big = line.repeat(Math.ceil(65_536 / line.length));
    for (let index = 0; index < 64; index++)
      repo.write({ [`data/f${String(index).padStart(2, "0")}.txt`]: `${big}needle ${index}\n` });
    const budget = new ReadBudget(5 * 1024 * 1024);
    const workspace = new Workspace(repo.dir, { readBudget: budget });
    const host = (articlePath: string) =>
      testToolHost(repo.dir, {
        workspace,
        articlePath,
        limits: { searchMatches: 100 },
      });
    // 16 calls per turn (the per-turn cap) in each of two articles running at once.
    const calls = (article: string): ToolCall[] =>
      Array.from({ length: 16 }, (_, index) => ({
        id: `${article}_${index}`,
        type: "function",
        function: { name: "search_repo", arguments: JSON.stringify({ pattern: "needle", glob: "data/**" }) },
      }));
    const signal = new AbortController().signal;
    const results = (
      await Promise.all([
        host("docs/guide.md").execute(calls("guide"), signal),
        host("docs/other.md").execute(calls("other"), signal),
      ])
    ).flat();
    expect(results).toHaveLength(32);
    for (const result of results) {
      expect(result.ok).toBe(true);
      expect(
        result.content.split("\n").filter((hit) => /^data\/f\d\d\.txt:\d+: needle \d+$/.test(hit)),
      ).toHaveLength(64);
    }
    // Without the budget all 32 calls would have held their files at once (2 MB batches each).
    expect(budget.peakAsked).toBeGreaterThan(10 * budget.capacity);
    expect(budget.waited).toBeGreaterThan(0);
    expect(budget.peak).toBeLessThanOrEqual(budget.capacity);
    expect(budget.peak).toBeGreaterThanOrEqual(2 * 1024 * 1024);
    expect(budget.inUse).toBe(0);
  });

  it("credential files are denied, and a patch holding a private key fails its article without leaving the machine", async () => {
    const key = [
      "-----BEGIN RSA PRIVATE KEY-----",
      "MIIEowIBAAKCAQEAtest",
      "-----END RSA PRIVATE KEY-----",
    ].join("\n");
    const repo = watchedRepo(`${WATCHING}# Guide\n\nUses src/app.ts.\n`, {
      ".git-credentials": "https://user:pass@example.invalid\n",
      "deploy/prod.tfvars": 'db_password = "hunter2hunter2"\n',
    });
    const { code, audit, server, io } = await run(repo, [
      {
        toolCalls: [
          { name: "read_file", arguments: { path: ".git-credentials" } },
          { name: "read_file", arguments: { path: "deploy/prod.tfvars" } },
          {
            name: "edit_article",
            arguments: {
              path: "docs/guide.md",
              edits: [
                {
                  old_string: "Uses src/app.ts.",
                  new_string: `Uses src/app.ts.\n\n${key}`,
                  reason: "add the key",
                },
              ],
            },
          },
        ],
      },
      { content: "Added." },
    ]);
    const [credentials, tfvars] = toolResults(server);
    expect(credentials).toMatch(/^Error: .*deny pattern ".git-credentials"/);
    expect(tfvars).toMatch(/^Error: .*deny pattern "\*\.tfvars"/);
    expect(code).toBe(1);
    const article = audit?.articles.find((entry) => entry.path === "docs/guide.md");
    expect(article?.status).toBe("failed");
    expect(article?.error?.code).toBe("secret_in_patch");
    expect(article?.patch).toBe("");
    const written =
      readFileSync(join(repo.dir, ".impact/audit.json"), "utf8") +
      readFileSync(join(repo.dir, ".impact/impact.patch"), "utf8");
    expect(written).not.toContain("PRIVATE KEY");
    expect(io.out + io.err).not.toContain("PRIVATE KEY");
  });

  it("a path with a newline cannot inject cat-file specs: its blob is read by sha and its symbols are its own", async () => {
    const repo = gitRepo({ "docs/guide.md": "# Guide\n\nCall `weirdlyNamedHelper()` to start.\n" });
    repo.commit({ "src/we\nird.ts": "export function weirdlyNamedHelper(a: number) {}\n" });
    repo.commit({ "src/we\nird.ts": "export function weirdlyNamedHelper(a: number, b: string) {}\n" });
    const io = captureIo(repo.dir);
    expect(await main(["plan", "--json"], io)).toBe(0);
    const plan = JSON.parse(io.out) as { articles: { path: string; impact: { detail: string }[] }[] };
    expect(plan.articles.map((article) => article.path)).toEqual(["docs/guide.md"]);
    expect(plan.articles[0]?.impact.map((reason) => reason.detail).join(" ")).toContain("weirdlyNamedHelper");
  });
});
