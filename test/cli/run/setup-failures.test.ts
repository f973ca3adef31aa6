import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { listen } from "../../../backend/server.js";
import { main } from "../../../cli/main.js";
import type { Audit } from "../../../shared/audit.js";
import { readAuditAt } from "../../helpers/audit-fixture.js";
import type { TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";
import { threeArticlePortChange } from "../../helpers/port-change.js";
import { ROUTER_TOKEN, startRouterApp } from "../../helpers/router-app.js";
import { runWithScript, TEST_KEY } from "../../helpers/run-impact.js";
import type { Script } from "../../helpers/scripted-model-server.js";

// Red-team round 3, items 7 and 13: a model setup that is wrong for every article stops the
// run once (exit 2, one line), and usage the model reports is checked before it is counted.

function threeArticles(config?: object): TestRepo {
  const repo = threeArticlePortChange(config);
  onTestFinished(() => repo.cleanup());
  return repo;
}

const readAudit = (repo: TestRepo): Audit => readAuditAt(join(repo.dir, ".impact/audit.json"));

const NO_SUCH_MODEL = JSON.stringify({
  error: {
    message: "The model `gpt-nope` does not exist or you do not have access to it.",
    type: "invalid_request_error",
    code: "model_not_found",
  },
});

describe("setup errors fail once", () => {
  it("an unknown model (404) on the first call stops the run: exit 2, one line, no article started after it", async () => {
    const repo = threeArticles();
    const { code, io, server } = await runWithScript(
      repo.dir,
      () => ({ status: 404, body: NO_SUCH_MODEL }),
      ["--no-cache", "--concurrency", "1"],
      { IMPACT_MODEL: "gpt-nope" },
    );
    expect(code).toBe(2);
    expect(server.requests).toHaveLength(1);
    expect(io.err).toBe(
      `impact run: model setup: ${server.url} does not serve model "gpt-nope" (HTTP 404); set --model or IMPACT_MODEL to a model it serves; the run stopped; no article was started after it\n`,
    );
    const audit = readAudit(repo);
    expect(
      audit.articles.map((article) => [article.status, article.error?.code, article.skipReason]),
    ).toEqual([
      ["failed", "model_setup", undefined],
      ["skipped", undefined, "setup"],
      ["skipped", undefined, "setup"],
    ]);
  });

  it("a refused key (401, 403) stops the run the same way, naming the endpoint and never the key", async () => {
    for (const status of [401, 403]) {
      const repo = threeArticles();
      const { code, io, server } = await runWithScript(
        repo.dir,
        () => ({ status, body: JSON.stringify({ error: { message: "Incorrect API key provided" } }) }),
        ["--no-cache", "--concurrency", "1"],
      );
      expect(code).toBe(2);
      expect(server.requests).toHaveLength(1);
      expect(io.err).toBe(
        `impact run: model setup: ${server.url} refused the key for model "test-model" (HTTP ${status}); check OPENAI_API_KEY; the run stopped; no article was started after it\n`,
      );
      expect(io.err + io.out + readFileSync(join(repo.dir, ".impact/audit.json"), "utf8")).not.toContain(
        TEST_KEY,
      );
    }
  });

  it("through --router: a model the router does not serve, or a wrong router token, stops the run once", async () => {
    const router = await startRouterApp([]);
    const server = await listen(router.app.fetch, { host: "127.0.0.1", port: 0 });
    onTestFinished(() => server.close());
    const cases = [
      {
        env: { IMPACT_ROUTER_TOKEN: ROUTER_TOKEN },
        args: ["--model", "gpt-nope"],
        line: `impact run: model setup: ${server.url} does not serve model "gpt-nope" (HTTP 400); set --model or IMPACT_MODEL to a model it serves; the run stopped; no article was started after it\n`,
      },
      {
        env: { IMPACT_ROUTER_TOKEN: "impact-test-token-wrong-0000" },
        args: [],
        line: `impact run: model setup: ${server.url} refused the key for model "gpt-4.1-mini" (HTTP 401); check IMPACT_ROUTER_TOKEN; the run stopped; no article was started after it\n`,
      },
    ];
    for (const { env, args, line } of cases) {
      const repo = threeArticles();
      const io = captureIo(repo.dir, env);
      const code = await main(
        ["run", "--no-cache", "--concurrency", "1", "--router", server.url, ...args],
        io,
      );
      expect(code).toBe(2);
      expect(io.err).toBe(line);
      expect(readAudit(repo).articles.map((article) => article.status)).toEqual([
        "failed",
        "skipped",
        "skipped",
      ]);
    }
    expect(router.upstream.requests).toHaveLength(0);
  });
});

describe("model usage is checked before it is counted", () => {
  const readThenAnswer =
    (usage: Record<string, unknown>): Script =>
    (request) =>
      request.articleCallIndex < 20
        ? {
            toolCalls: [{ name: "read_file", arguments: { path: "src/server.ts" } }],
            usage: usage as { promptTokens: number; completionTokens: number },
          }
        : { content: "done" };

  it("negative, fractional, string and absurd usage: a protocol failure with a clear reason, never a crash, each call counted at its estimate", async () => {
    for (const [field, value] of [
      ["promptTokens", -1_000_000],
      ["completionTokens", 1.5],
      ["promptTokens", "12"],
      ["completionTokens", 1e300],
    ] as const) {
      const repo = threeArticles({ prices: { "local-model": { input: 1, output: 1 } } });
      const usage = { promptTokens: 10, completionTokens: 10, [field]: value };
      const { code, audit, server } = await runWithScript(
        repo.dir,
        readThenAnswer(usage),
        ["--no-cache", "--concurrency", "1", "--max-cost", "1", "--only", "docs/a.md"],
        { IMPACT_MODEL: "local-model" },
      );
      const [article] = audit!.articles;
      expect(code).toBe(1);
      expect(article?.status).toBe("failed");
      expect(article?.error?.code).toBe("model_protocol");
      expect(article?.summary).toMatch(
        /^the model API reported invalid usage: (prompt|completion)_tokens is /,
      );
      // The first call and its two protocol retries, each counted at its estimate, high.
      expect(server.requests).toHaveLength(3);
      expect(article!.usage.promptTokens).toBeGreaterThan(3 * 1000);
    }
  });

  it("a server that reports no usage cannot run past --max-cost either: each call counts at its reservation", async () => {
    const repo = threeArticles({ prices: { "local-model": { input: 1, output: 1 } } });
    const { code, audit, server } = await runWithScript(
      repo.dir,
      (request) =>
        request.articleCallIndex < 20
          ? { toolCalls: [{ name: "read_file", arguments: { path: "src/server.ts" } }], usage: null }
          : { content: "done", usage: null },
      ["--no-cache", "--concurrency", "1", "--max-cost", "0.02", "--only", "docs/a.md"],
      { IMPACT_MODEL: "local-model" },
    );
    expect(code).toBe(0);
    expect(server.requests.length).toBeLessThanOrEqual(2);
    expect(audit!.articles[0]).toMatchObject({ status: "skipped", skipReason: "budget" });
  });

  it("usage that would lower the spend cannot get a run past --max-cost: the calls count at their reservation", async () => {
    const repo = threeArticles({ prices: { "local-model": { input: 1, output: 1 } } });
    const { code, audit, server } = await runWithScript(
      repo.dir,
      readThenAnswer({ promptTokens: -1_000_000, completionTokens: 0 }),
      ["--no-cache", "--concurrency", "1", "--max-cost", "0.02", "--only", "docs/a.md"],
      { IMPACT_MODEL: "local-model" },
    );
    expect(code).toBe(0);
    expect(server.requests.length).toBeLessThanOrEqual(2);
    expect(audit!.articles[0]).toMatchObject({ status: "skipped", skipReason: "budget" });
  });
});
