import { describe, expect, it } from "vitest";
import { renderReport } from "../../../shared/render/report.js";
import type { TestRepo } from "../../helpers/git-repo.js";
import { threeArticlePortChange } from "../../helpers/port-change.js";
import { runWithScript } from "../../helpers/run-impact.js";
import type { Script } from "../../helpers/scripted-model-server.js";

// The prices themselves are tested in cost.test.ts; here each test is a whole `impact run`.

const repoWithThreeArticles = threeArticlePortChange;

/** Each article: one call using 1M prompt tokens (400k from the provider's cache) and 100k completion tokens. */
const COSTLY: Script = (request) => ({
  content: `${request.article} is still right.`,
  usage: { promptTokens: 1_000_000, completionTokens: 100_000, cachedPromptTokens: 400_000 },
});

async function run(repo: TestRepo, model: string, args: string[] = []) {
  const { code, io, server, audit } = await runWithScript(repo.dir, COSTLY, ["--no-cache", ...args], {
    IMPACT_MODEL: model,
  });
  return { code, io, audit, calls: server.requests.length };
}

describe("cost in the audit", () => {
  it("prices each article and the run from the built-in table, cached prompt tokens apart", async () => {
    const repo = repoWithThreeArticles();
    const { code, audit, io } = await run(repo, "gpt-4.1-mini");
    expect(code).toBe(0);
    // 600k × $0.40 + 400k × $0.10 + 100k × $1.60 per million.
    for (const article of audit!.articles) {
      expect(article.usage).toMatchObject({ cachedPromptTokens: 400_000, costUsd: 0.44 });
    }
    expect(audit!.totals).toMatchObject({ cachedPromptTokens: 1_200_000, costUsd: 1.32 });
    expect(io.out).toContain("3,300,000 tokens (1,200,000 prompt tokens from the provider's cache), $1.32");
    expect(renderReport(audit!)).toContain("| Article | Status | Edits | Tokens | Cost |");
    expect(renderReport(audit!)).toContain("| `docs/a.md` | unchanged | 0 | 1,100,000 | $0.4400 |");
  });

  it("leaves cost out for a model of unknown price, and takes a price from the config", async () => {
    const unknown = await run(repoWithThreeArticles(), "local-model");
    expect(unknown.code).toBe(0);
    expect(unknown.audit!.articles.every((article) => article.usage.costUsd === undefined)).toBe(true);
    expect(unknown.audit!.totals.costUsd).toBeUndefined();
    expect(renderReport(unknown.audit!)).not.toContain("$");

    const configured = await run(
      repoWithThreeArticles({ prices: { "local-model": { input: 1, output: 10 } } }),
      "local-model",
    );
    expect(configured.audit!.articles[0]!.usage.costUsd).toBe(2);
    expect(configured.audit!.totals.costUsd).toBe(6);
  });

  it("--max-cost: articles not started when the budget is reached end skipped (budget), and the run exits 0", async () => {
    const repo = repoWithThreeArticles();
    const { code, audit, io, calls } = await run(repo, "gpt-4.1-mini", [
      "--max-cost",
      "0.80",
      "--concurrency",
      "1",
    ]);
    expect(code).toBe(0);
    expect(calls).toBe(2);
    expect(audit!.articles.map((article) => [article.path, article.status, article.skipReason])).toEqual([
      ["docs/a.md", "unchanged", undefined],
      ["docs/b.md", "unchanged", undefined],
      ["docs/c.md", "skipped", "budget"],
    ]);
    expect(audit!.articles[2]!.summary).toBe(
      "not started: the run had spent $0.8800 of its $0.8000 budget (--max-cost), too little is left for its first call",
    );
    expect(audit!.totals).toMatchObject({ skipped: 1, costUsd: 0.88 });
    expect(io.err).toBe(
      "impact run: 1 article was skipped: the run reached its --max-cost budget of $0.8000\n",
    );
  });

  it("--max-cost is a cap, also with articles running at once: a conversation that would cross it stops, skipped (budget), its usage counted", async () => {
    // Usage as the scripted server reports it: from the size of each request. Each article
    // reads the file five times before it answers; the price makes each call cost about $0.004.
    const repo = repoWithThreeArticles({ prices: { "local-model": { input: 1, output: 1 } } });
    const readFive: Script = (request) =>
      request.articleCallIndex < 5
        ? { toolCalls: [{ name: "read_file", arguments: { path: "src/server.ts" } }] }
        : { content: `${request.article} is still right.` };
    const cap = 0.03;
    const { code, audit, server } = await runWithScript(
      repo.dir,
      readFive,
      ["--no-cache", "--max-cost", String(cap), "--concurrency", "4"],
      { IMPACT_MODEL: "local-model" },
    );
    expect(code).toBe(0);
    const spent = audit!.totals.costUsd ?? 0;
    expect(spent).toBeGreaterThan(cap / 2);
    expect(spent).toBeLessThanOrEqual(cap);
    const stopped = audit!.articles.filter((article) => article.skipReason === "budget");
    expect(stopped.length).toBeGreaterThan(0);
    // A conversation stopped midway keeps its usage in the audit and the totals.
    const midway = stopped.filter((article) => article.usage.turns > 0);
    expect(midway.length).toBeGreaterThan(0);
    expect(midway[0]!.summary).toMatch(
      /^stopped: the next model call could cross the run's --max-cost budget/,
    );
    expect(midway[0]!.usage.costUsd).toBeGreaterThan(0);
    // Every call asked for no more output than the budget had room for.
    expect(server.requests.every((request) => typeof request.body.max_completion_tokens === "number")).toBe(
      true,
    );
  });

  it("refuses --max-cost for a model of unknown price, and a bad amount, with exit 2 and no model call", async () => {
    const unknown = await run(repoWithThreeArticles(), "local-model", ["--max-cost", "1"]);
    expect(unknown.code).toBe(2);
    expect(unknown.calls).toBe(0);
    expect(unknown.io.err).toBe(
      'impact run: --max-cost needs the price of model "local-model", which Impact does not know: add it under "prices" in the config (US dollars per million tokens)\n',
    );
    const bad = await run(repoWithThreeArticles(), "gpt-4.1-mini", ["--max-cost", "lots"]);
    expect(bad.code).toBe(2);
    expect(bad.io.err).toBe(
      'impact run: --max-cost takes an amount in US dollars such as 0.50, got "lots"\n',
    );
  });

  it("refuses a config price that is not a price", async () => {
    const repo = repoWithThreeArticles({ prices: { "local-model": { input: -1, output: 1 } } });
    const { code, io, calls } = await run(repo, "local-model");
    expect(code).toBe(2);
    expect(calls).toBe(0);
    expect(io.err).toMatch(/^impact run: impact\.config\.json: prices\["local-model"\]\.input: /);
  });
});
