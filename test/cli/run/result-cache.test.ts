import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RESULT_CACHE, ResultCacheFolder, resultKey } from "../../../cli/run/result-cache.js";
import { cacheFolder, Workdir } from "../../../cli/workdir/workdir.js";
import type { AuditArticle } from "../../../shared/audit.js";
import { readAuditAt } from "../../helpers/audit-fixture.js";
import { makeTempDir, type TestRepo } from "../../helpers/git-repo.js";
import { portChange, serverArticle } from "../../helpers/port-change.js";
import { scriptedRuns } from "../../helpers/run-impact.js";
import type { Script } from "../../helpers/scripted-model-server.js";
import { readCachePayload, resealCacheEntry } from "../../helpers/state.js";

const RESULT_CACHE_DIR = cacheFolder("results");

const CLI_DOC = serverArticle("CLI", "The port is 8080 unless --port says otherwise.\n");

const fix = (path: string, oldString: string, newString: string) => ({
  name: "edit_article",
  arguments: {
    path,
    edits: [{ old_string: oldString, new_string: newString, reason: "DEFAULT_PORT is 9090 now" }],
    done: true,
  },
});

/** Both articles fixed in one call each, however often they are asked. */
const FIXES: Script = (request) =>
  request.article === "docs/server.md"
    ? { toolCalls: [fix("docs/server.md", "port 8080 by default", "port 9090 by default")] }
    : { toolCalls: [fix("docs/cli.md", "The port is 8080", "The port is 9090")] };

/** A PR: the base commit, then a first push that changes the port. Returns the base sha. */
function pullRequest(): { repo: TestRepo; base: string } {
  return portChange({ "src/unrelated.ts": "export const flavour = 1;\n", "docs/cli.md": CLI_DOC });
}

/** One scripted model server per repository for all its runs (the endpoint is part of every key). */
const servers = new WeakMap<TestRepo, Awaited<ReturnType<typeof scriptedRuns>>>();

async function run(repo: TestRepo, base: string, args: string[] = [], script: Script = FIXES) {
  let runs = servers.get(repo);
  if (!runs) {
    runs = await scriptedRuns();
    servers.set(repo, runs);
  }
  const { code, io, calledFor } = await runs.run(repo.dir, script, ["--base", base, ...args]);
  const audit = readAuditAt(join(repo.dir, ".impact/audit.json"));
  const article = (path: string) => audit!.articles.find((entry) => entry.path === path)!;
  return { code, io, audit, calledFor, article };
}

describe("the result cache, counted in model calls", () => {
  it("answers a rerun of the same change from the cache: no model call, marked cached, original usage apart", async () => {
    const { repo, base } = pullRequest();
    const first = await run(repo, base);
    expect(first.code).toBe(0);
    expect(first.calledFor).toEqual(["docs/cli.md", "docs/server.md"]);
    const firstPatch = readFileSync(join(repo.dir, ".impact/impact.patch"), "utf8");
    expect(readdirSync(join(repo.dir, RESULT_CACHE_DIR))).toHaveLength(2);
    expect(repo.git("status", "--porcelain")).toBe("");

    // A script with no step: any model call would be answered 500 and fail its article.
    const second = await run(repo, base, [], []);
    expect(second.io.err).toBe("");
    expect(second.code).toBe(0);
    expect(second.calledFor).toEqual([]);
    const server = second.article("docs/server.md");
    expect(server.status).toBe("updated");
    expect(server.cached).toBe(true);
    expect(server.usage).toMatchObject({ llmCalls: 0, turns: 0, promptTokens: 0, completionTokens: 0 });
    expect(server.originalUsage).toEqual(first.article("docs/server.md").usage);
    expect(server.edits).toEqual(first.article("docs/server.md").edits);
    expect(second.audit.totals).toMatchObject({
      updated: 2,
      cached: 2,
      promptTokens: 0,
      completionTokens: 0,
    });
    expect(readFileSync(join(repo.dir, ".impact/impact.patch"), "utf8")).toBe(firstPatch);
    expect(second.io.out).toContain("2 results reused from the result cache");

    // --apply writes a cached result like a fresh one.
    const applied = await run(repo, base, ["--apply"], []);
    expect(applied.calledFor).toEqual([]);
    expect(readFileSync(join(repo.dir, "docs/server.md"), "utf8")).toContain("port 9090 by default");
  });

  it("misses for a changed hunk, article or model and with --no-cache; hits for a push that changes nothing relevant", async () => {
    const { repo, base } = pullRequest();
    expect((await run(repo, base)).calledFor).toEqual(["docs/cli.md", "docs/server.md"]);

    // A push that touches a file neither article watches: the same answers, no call.
    repo.commit({ "src/unrelated.ts": "export const flavour = 2;\n" });
    expect((await run(repo, base, [], [])).calledFor).toEqual([]);

    // A push that changes the watched file: its hunk is new, so both articles go to the model.
    repo.commit({ "src/server.ts": "export const DEFAULT_PORT = 9191;\n" });
    expect((await run(repo, base)).calledFor).toEqual(["docs/cli.md", "docs/server.md"]);

    // One article's text changed: only that one misses.
    repo.write({ "docs/cli.md": CLI_DOC.replace("# CLI", "# The CLI") });
    expect((await run(repo, base)).calledFor).toEqual(["docs/cli.md"]);

    // Another model: both miss; the same model again: both hit.
    expect((await run(repo, base, ["--model", "other-model"])).calledFor).toEqual([
      "docs/cli.md",
      "docs/server.md",
    ]);
    expect((await run(repo, base, [], [])).calledFor).toEqual([]);

    // --no-cache sends everything.
    expect((await run(repo, base, ["--no-cache"])).calledFor).toEqual(["docs/cli.md", "docs/server.md"]);
  });

  it("does not keep failed results", async () => {
    const { repo, base } = pullRequest();
    const first = await run(repo, base, ["--only", "docs/server.md"], [{ status: 400, body: "bad request" }]);
    expect(first.code).toBe(1);
    expect(first.article("docs/server.md").status).toBe("failed");
    expect((await run(repo, base, ["--only", "docs/server.md"])).calledFor).toEqual(["docs/server.md"]);
  });

  it("does not keep a result whose model gave up after a refused edit", async () => {
    const { repo, base } = pullRequest();
    const refused = fix("docs/server.md", "no such text", "x");
    const first = await run(
      repo,
      base,
      ["--only", "docs/server.md"],
      [{ toolCalls: [refused] }, { content: "I could not find the text, so I stopped." }],
    );
    expect(first.code).toBe(1);
    expect(first.article("docs/server.md").status).toBe("gave_up");
    expect((await run(repo, base, ["--only", "docs/server.md"])).calledFor).toEqual(["docs/server.md"]);
  });

  it("ignores an entry this machine did not seal, and a sealed one for another key with a warning; runs the article and replaces the entry", async () => {
    const { repo, base } = pullRequest();
    await run(repo, base);
    const dir = join(repo.dir, RESULT_CACHE_DIR);
    const [unsealed, foreign] = readdirSync(dir).sort();
    writeFileSync(
      join(dir, unsealed!),
      JSON.stringify(JSON.parse(readCachePayload(join(dir, unsealed!)).toString())),
    );
    await resealCacheEntry(join(dir, foreign!), (payload) =>
      JSON.stringify({ ...JSON.parse(payload.toString()), key: "0".repeat(64) }),
    );

    const second = await run(repo, base);
    expect(second.code).toBe(0);
    expect(second.calledFor).toHaveLength(2);
    expect(second.audit.articles.every((article) => article.cached === undefined)).toBe(true);
    expect(second.io.err).toBe(
      `warning: result cache: ignoring ${foreign}: not an Impact result for this key\n`,
    );
    expect((await run(repo, base, [], [])).calledFor).toEqual([]);
  });
});

describe("resultKey", () => {
  const parts = {
    impactVersion: "1.0.0",
    model: "m",
    endpoint: "api http://127.0.0.1:1/v1",
    config: "[]",
    systemPrompt: "system",
    tools: [{ type: "function" as const, function: { name: "edit_article", parameters: {} } }],
    article: "# A\n",
    firstMessage: "Article: docs/a.md\n@@ -1 +1 @@\n-a\n+b\n",
    instructions: "",
  };

  it("changes with every part it covers, and only with them", () => {
    const key = resultKey(parts);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(resultKey({ ...parts })).toBe(key);
    const variants = [
      { impactVersion: "1.0.1" },
      { model: "n" },
      { endpoint: "api http://127.0.0.1:2/v1" },
      { config: '[["deny",["src/secret.ts"]]]' },
      { systemPrompt: "system!" },
      { tools: [] },
      { article: "# A\r\n" },
      { firstMessage: parts.firstMessage.replace("+b", "+c") },
      { instructions: ".impact/instructions.md:0123456789abcdef" },
    ];
    const keys = variants.map((variant) => resultKey({ ...parts, ...variant }));
    expect(new Set([key, ...keys]).size).toBe(variants.length + 1);
    // Moving text from one part to the next is another key, not a concatenation collision.
    expect(resultKey({ ...parts, systemPrompt: "sys", article: `tem${parts.article}` })).not.toBe(
      resultKey({ ...parts, systemPrompt: "system", article: parts.article }),
    );
  });
});

describe("ResultCacheFolder", () => {
  const result = (path: string): AuditArticle => ({
    path,
    status: "unchanged",
    impact: [],
    edits: [],
    editReasons: [],
    patch: "",
    hashBefore: "0123456789abcdef",
    hashAfter: "0123456789abcdef",
    summary: "still right ".repeat(20),
    usage: { turns: 1, llmCalls: 1, promptTokens: 10, completionTokens: 2, toolCalls: {}, toolErrors: 0 },
  });

  /** A result cache in `dir`, writing straight to disk (its workdir saved). */
  async function folder(
    dir: string,
    options: { maxBytes?: number; redact?: (article: AuditArticle) => AuditArticle } = {},
  ) {
    const workdir = new Workdir(dir, { env: {} });
    await workdir.save();
    const spec =
      options.maxBytes === undefined
        ? RESULT_CACHE
        : { ...RESULT_CACHE, bounds: { maxBytes: options.maxBytes } };
    const store = await workdir.cacheAt(dir, spec);
    const warnings: string[] = [];
    const cache = new ResultCacheFolder({
      store: store!,
      redact: options.redact ?? ((article) => article),
      warn: (message) => warnings.push(message),
    });
    return { cache, warnings };
  }
  const key = (letter: string) => letter.repeat(64);

  it("stays within its size bound by evicting the least recently used entries", async () => {
    const dir = makeTempDir();
    const { cache: probe } = await folder(dir);
    await probe.put(key("f"), [result("docs/a.md")]);
    const entryBytes = statSync(join(dir, `${key("f")}.json`)).size;

    const { cache, warnings } = await folder(dir, { maxBytes: entryBytes * 2 });
    for (const [index, name] of [key("f"), key("a"), key("b")].entries()) {
      await cache.put(name, [result("docs/a.md")]);
      // Distinct, increasing last-use times, older than any read below.
      const when = new Date(Date.UTC(2020, 0, 1 + index));
      utimesSync(join(dir, `${name}.json`), when, when);
    }
    expect(await cache.get(key("f"))).toHaveLength(1);
    await cache.prune();
    // "a" was the least recently used: "f" was read, "b" written after it.
    expect(readdirSync(dir).sort()).toEqual([`${key("b")}.json`, `${key("f")}.json`]);
    expect(await cache.get(key("a"))).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it("redacts what it writes", async () => {
    const dir = makeTempDir();
    const { cache } = await folder(dir, {
      redact: (article) => ({ ...article, summary: article.summary.replace("secret", "[redacted]") }),
    });
    await cache.put(key("c"), [{ ...result("docs/a.md"), summary: "the secret" }]);
    expect(readFileSync(join(dir, `${key("c")}.json`), "utf8")).not.toContain("secret");
    expect((await cache.get(key("c")))?.[0]?.summary).toBe("the [redacted]");
  });

  it("reuses a result only while every file it read holds what it held", async () => {
    const dir = makeTempDir();
    const { cache } = await folder(dir);
    await cache.put(key("d"), [result("docs/a.md")], new Map([["src/port.ts", "hash-of-8080"]]));
    expect(await cache.get(key("d"), async () => "hash-of-8080")).toHaveLength(1);
    expect(await cache.get(key("d"), async () => "hash-of-9999")).toBeUndefined();
    // A caller that cannot look files up gets no result that read any.
    expect(await cache.get(key("d"))).toBeUndefined();
  });
});
