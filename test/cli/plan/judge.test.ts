import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../../cli/main.js";
import { buildPlan } from "../../../cli/plan/build-plan.js";
import { judgeRelated, quoteLine } from "../../../cli/plan/judge.js";
import { createOpenAIModelClient } from "../../../shared/model/openai-client.js";
import { ImpactPlanSchema } from "../../../shared/plan.js";
import { readAuditAt } from "../../helpers/audit-fixture.js";
import { gitCallsOf } from "../../helpers/git-calls.js";
import { gitRepo, type TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";
import { flagged, related } from "../../helpers/plan-json.js";
import {
  type RecordedRequest,
  type Script,
  type ScriptedModelServer,
  type ScriptStep,
  startScriptedModelServer,
} from "../../helpers/scripted-model-server.js";

const KEY = "sk-test-not-a-real-key";

const RETRY_SOURCE = `export function retry(task: () => Promise<void>, attempts = 3): Promise<void> {
  return run(task, attempts, 0);
}

async function run(task: () => Promise<void>, attempts: number, attempt: number): Promise<void> {
  try {
    await task();
  } catch (error) {
    if (attempt + 1 >= attempts) throw error;
    await sleep(1000);
    return run(task, attempts, attempt + 1);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
`;

/** Watches src/retry.ts; line 11 says what the change (a backoff) makes false, in prose no rule reads. */
const RETRIES_DOC = `---
title: Retries
attention:
  - op: file
    path: src/retry.ts
---
# Retries

\`retry(task)\` runs the task again when it fails, three times in all by default.

Between two attempts it waits one second, always the same delay.

Give \`attempts\` to try more or fewer times.
`;

const STALE_LINE = 11;
const QUOTE = "it waits one second, always the same delay";

/** A repository whose last commit turns the fixed delay into a backoff: only the body changes, so the article is related. */
function backoffRepo(): TestRepo {
  const repo = gitRepo({ "src/retry.ts": RETRY_SOURCE, "docs/retries.md": RETRIES_DOC });
  repo.commit({ "src/retry.ts": RETRY_SOURCE.replace("sleep(1000)", "sleep(1000 * 2 ** attempt)") });
  return repo;
}

const answer = (value: Record<string, unknown>): ScriptStep => ({ content: JSON.stringify(value) });
const STALE = answer({
  stale: true,
  line: STALE_LINE,
  quote: QUOTE,
  why: "sleep(1000) became sleep(1000 * 2 ** attempt): the delay doubles after each attempt",
});

let servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function serve(script: Script): Promise<ScriptedModelServer> {
  const server = await startScriptedModelServer(script);
  servers.push(server);
  return server;
}

/** `impact COMMAND ARGS` in process, with the scripted server as the model (no key of anyone's). */
async function impact(
  repo: TestRepo,
  server: ScriptedModelServer | undefined,
  args: string[],
  env: Record<string, string> = {},
  isTTY = false,
) {
  const io = captureIo(
    repo.dir,
    {
      ...(server ? { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.url } : {}),
      IMPACT_MODEL: "test-model",
      ...env,
    },
    { isTTY },
  );
  const code = await main(args, io);
  return { code, io };
}

async function judgedPlan(repo: TestRepo, server: ScriptedModelServer, args: string[] = []) {
  const { code, io } = await impact(repo, server, ["plan", "--json", "--judge", ...args]);
  expect(code, io.err).toBe(0);
  return ImpactPlanSchema.parse(JSON.parse(io.out));
}

/** The judge's calls: no tools, the judge's system message. */
const judgeCalls = (server: ScriptedModelServer) =>
  server.requests.filter((request: RecordedRequest) => request.body.tools === undefined);

describe("plan --judge: a model reads each related article against the change", () => {
  it("promotes a related article on a quote that stands on it, and --check then fails on it", async () => {
    const repo = backoffRepo();
    const server = await serve([STALE]);
    const plan = await judgedPlan(repo, server);
    expect(flagged(plan)).toEqual(["docs/retries.md"]);
    expect(related(plan)).toEqual([]);
    const article = plan.articles[0]!;
    expect(article).toMatchObject({ tier: "stale", status: "impacted" });
    expect(article.impact.at(-1)).toMatchObject({
      kind: "judge",
      stale: true,
      line: STALE_LINE,
      source: "src/retry.ts",
    });
    expect(article.impact.at(-1)!.detail).toContain(`line ${STALE_LINE} says "${QUOTE}"`);
    expect(article.judge).toMatchObject({ verdict: "stale", model: "test-model", line: STALE_LINE });
    expect(plan.judge).toMatchObject({
      model: "test-model",
      judged: 1,
      promoted: 1,
      notJudged: 0,
      cached: 0,
    });
    expect(plan.judge!.promptTokens).toBeGreaterThan(0);
    // One call, no tools, the article with line numbers and the change's hunk in it.
    expect(server.requests).toHaveLength(1);
    const user = String(server.requests[0]!.body.messages![1]!.content);
    expect(user).toContain(`${STALE_LINE}: Between two attempts it waits one second`);
    expect(user).toContain("+    await sleep(1000 * 2 ** attempt);");

    // The gate fails on it (the verdict comes from the cache: no second call), and advisory annotates the quoted line.
    const strict = await impact(repo, server, ["plan", "--check", "--judge"]);
    expect(strict.code).toBe(3);
    expect(strict.io.err).toContain("docs/retries.md");
    const advisory = await impact(repo, server, ["plan", "--check=advisory", "--judge"]);
    expect(advisory.code).toBe(0);
    expect(advisory.io.out).toContain(`::warning file=docs/retries.md,line=${STALE_LINE},title=Impact::`);
    expect(server.requests).toHaveLength(1);
    // Without --judge the plan is the detector's alone: related, nothing asked.
    const plain = await impact(repo, server, ["plan", "--check"]);
    expect(plain.code).toBe(0);
  });

  it("escapes the model's text in annotations: it cannot start a workflow command", async () => {
    const repo = backoffRepo();
    const server = await serve([
      answer({ stale: true, line: STALE_LINE, quote: QUOTE, why: "doubles\n::error file=x::pwned %0A" }),
    ]);
    const { code, io } = await impact(repo, server, ["plan", "--check=advisory", "--judge"]);
    expect(code, io.err).toBe(0);
    const lines = io.out.split("\n").filter((line) => line.startsWith("::"));
    expect(lines).toHaveLength(1);
    expect(io.out).not.toContain("\n::error");
    expect(lines[0]).toMatch(/^::warning file=docs\/retries\.md,line=11,title=Impact::/);
    expect(lines[0]).toContain("doubles%0A::error file=x::pwned %250A");
  });

  it("keeps the article related when the quote is not on it near the line given", async () => {
    const repo = backoffRepo();
    const server = await serve([
      answer({ stale: true, line: STALE_LINE, quote: "retries back off exponentially", why: "made up" }),
    ]);
    const plan = await judgedPlan(repo, server);
    expect(flagged(plan)).toEqual([]);
    expect(related(plan)).toEqual(["docs/retries.md"]);
    expect(plan.related[0]!.judge).toMatchObject({ verdict: "unverified", line: STALE_LINE });
    expect(plan.judge).toMatchObject({ judged: 1, promoted: 0 });
    const explained = await impact(repo, server, ["plan", "--explain", "docs/retries.md", "--judge"]);
    expect(explained.io.out).toContain(
      `Judge (test-model, cached): said stale (made up), line ${STALE_LINE} "retries back off exponentially", but that text does not stand on the article within two lines of it; stays related`,
    );
  });

  it("keeps a related article related on stale: false, and --explain says what the judge found", async () => {
    const repo = backoffRepo();
    const server = await serve([
      answer({ stale: false, line: 0, quote: "", why: "the article names no delay" }),
    ]);
    const plan = await judgedPlan(repo, server);
    expect(related(plan)).toEqual(["docs/retries.md"]);
    expect(plan.related[0]!.judge).toMatchObject({ verdict: "fine", why: "the article names no delay" });
    const explained = await impact(repo, server, ["plan", "--explain", "docs/retries.md", "--judge"]);
    expect(explained.code, explained.io.err).toBe(0);
    expect(explained.io.out).toContain(
      "Judge (test-model, cached): fine (the article names no delay); stays related",
    );
    const table = await impact(repo, server, ["plan", "--judge", "--include", "related"]);
    expect(table.io.out).toMatch(/judge\s+test-model\s+fine \(the article names no delay\), cached/);
    // Without --judge, --explain asks nothing and says nothing of a judge.
    const plain = await impact(repo, server, ["plan", "--explain", "docs/retries.md"]);
    expect(plain.io.out).not.toContain("Judge");
    expect(server.requests).toHaveLength(1);
  });

  it("reuses a verdict from the cache, and asks again once the article changed", async () => {
    const repo = backoffRepo();
    const server = await serve(() => answer({ stale: false, line: 0, quote: "", why: "fine" }));
    await judgedPlan(repo, server);
    expect(server.requests).toHaveLength(1);
    const again = await judgedPlan(repo, server);
    expect(server.requests).toHaveLength(1);
    expect(again.judge).toMatchObject({ judged: 1, cached: 1, promptTokens: 0 });
    expect(again.related[0]!.judge).toMatchObject({ verdict: "fine", cached: true });
    writeFileSync(join(repo.dir, "docs/retries.md"), RETRIES_DOC.replace("more or fewer", "more or less"));
    await judgedPlan(repo, server);
    expect(server.requests).toHaveLength(2);
  });

  it("sends a long article cut to its capped share, and says so in the prompt", async () => {
    const filler = Array.from({ length: 900 }, (_, index) => `Line ${index} of a long story about retries.`);
    const long = RETRIES_DOC.replace("Give", `${filler.join("\n")}\n\nGive`);
    const repo = gitRepo({ "src/retry.ts": RETRY_SOURCE, "docs/retries.md": long });
    repo.commit({ "src/retry.ts": RETRY_SOURCE.replace("sleep(1000)", "sleep(1000 * 2 ** attempt)") });
    const server = await serve([STALE]);
    await judgedPlan(repo, server);
    const user = String(server.requests[0]!.body.messages![1]!.content);
    expect(user).toMatch(/article lines \d+–\d+ \(cut to fit 24 KB of article\)/);
    expect(user).not.toContain("read_file");
    expect(user.length).toBeLessThan(long.length);
  });

  it("retries a malformed answer once, then keeps the article related", async () => {
    const repo = backoffRepo();
    const server = await serve([{ content: "It is stale, I think." }, STALE]);
    const plan = await judgedPlan(repo, server);
    expect(flagged(plan)).toEqual(["docs/retries.md"]);
    expect(server.requests).toHaveLength(2);

    const twice = await serve([{ content: "no" }, answer({ stale: "yes" })]);
    const other = await judgedPlan(backoffRepo(), twice);
    expect(related(other)).toEqual(["docs/retries.md"]);
    expect(other.related[0]!.judge).toMatchObject({ verdict: "malformed" });
    expect(other.related[0]!.judge!.why).toContain("stale");
  });

  it("never judges an older docs version's article (related, never flagged), nor asks anything when nothing else is related", async () => {
    const repo = gitRepo({
      "src/retry.ts": RETRY_SOURCE,
      "docs/v1/retries.md": RETRIES_DOC,
      "docs/v2/retries.md": RETRIES_DOC,
    });
    repo.commit({ "src/retry.ts": RETRY_SOURCE.replace("sleep(1000)", "sleep(1000 * 2 ** attempt)") });
    const server = await serve(() => STALE);
    const plan = await judgedPlan(repo, server);
    expect(flagged(plan)).toEqual(["docs/v2/retries.md"]);
    expect(related(plan)).toEqual(["docs/v1/retries.md"]);
    expect(plan.related[0]!.judge).toBeUndefined();
    expect(plan.judge).toMatchObject({ judged: 1, promoted: 1, notJudged: 0 });
    expect(server.requests).toHaveLength(1);
    // Only the older version left to judge: no call at all, not even the preflight.
    const models = server.modelListRequests;
    const explained = await impact(repo, server, [
      "plan",
      "--json",
      "--judge",
      "--explain",
      "docs/v1/retries.md",
    ]);
    expect(explained.code, explained.io.err).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(server.modelListRequests).toBe(models);
  });

  it("shows its progress on a terminal, and none with --json", async () => {
    const repo = backoffRepo();
    const server = await serve(() => answer({ stale: false, line: 0, quote: "", why: "fine" }));
    const shown = await impact(repo, server, ["plan", "--judge"], {}, true);
    expect(shown.io.err).toContain("impact judge: 1/1 articles");
    expect(shown.io.err).toContain("tokens");
    writeFileSync(join(repo.dir, "docs/retries.md"), `${RETRIES_DOC}\nMore.\n`);
    const quiet = await impact(repo, server, ["plan", "--judge", "--json"], {}, true);
    expect(quiet.io.err).toBe("");
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    [401, 'refused the key for model "test-model" (HTTP 401)'],
    [404, 'does not serve model "test-model" (HTTP 404)'],
  ])("stops on HTTP %i (a refused key, an unknown model) with exit 2 and one line", async (status, said) => {
    const repo = backoffRepo();
    const server = await serve([{ status, body: '{"error":{"message":"no"}}' }]);
    const { code, io } = await impact(repo, server, ["plan", "--judge"]);
    expect(code).toBe(2);
    expect(io.err.trim().split("\n")).toHaveLength(1);
    expect(io.err).toContain(said);
    expect(io.err).toContain("the judge stopped");
    expect(io.err).not.toContain(KEY);
    expect(io.out).toBe("");
  });

  it("says what to set when no model is configured, and sends nothing without --judge", async () => {
    const repo = backoffRepo();
    const missing = await impact(repo, undefined, ["plan", "--judge"]);
    expect(missing.code).toBe(2);
    expect(missing.io.err.trim()).toMatch(/^impact plan: --judge asks a model: set OPENAI_API_KEY/);
    expect(missing.io.err.trim().split("\n")).toHaveLength(1);
    // A router answers as the agent: the judge never goes through one.
    const routed = await impact(repo, undefined, ["plan", "--judge"], {
      IMPACT_ROUTER_URL: "http://127.0.0.1:9/",
    });
    expect(routed.code).toBe(2);
    expect(routed.io.err).toContain("a router serves only the agent's calls");
    const server = await serve([STALE]);
    const { code, io } = await impact(repo, server, ["plan", "--json"]);
    expect(code).toBe(0);
    expect(JSON.parse(io.out).judge).toBeUndefined();
    expect(server.requests).toHaveLength(0);
    expect(server.modelListRequests).toBe(0);
  });

  it("skips a judge on by config alone when it cannot run, with a warning, where --judge stops", async () => {
    const repo = backoffRepo();
    const config = ["--config", writeConfig(repo, { judge: true })];
    for (const env of [{}, { IMPACT_ROUTER_URL: "http://127.0.0.1:9/" }]) {
      const { code, io } = await impact(repo, undefined, ["plan", "--json", ...config], env);
      expect(code, io.err).toBe(0);
      expect(io.err.trim()).toMatch(
        /^warning: the judge was skipped: config "judge" is on, but the judge asks a model: set OPENAI_API_KEY .*; or turn config "judge" off$/,
      );
      const plan = ImpactPlanSchema.parse(JSON.parse(io.out));
      expect(related(plan)).toEqual(["docs/retries.md"]);
      expect(plan.judge).toMatchObject({ judged: 0, skipped: expect.stringContaining("OPENAI_API_KEY") });
    }
    const table = await impact(repo, undefined, ["plan", ...config]);
    expect(table.code).toBe(0);
    expect(table.io.out).toMatch(/Judge \(test-model\): skipped: config "judge" is on/);
    const asked = await impact(repo, undefined, ["plan", "--judge", ...config]);
    expect(asked.code).toBe(2);
    expect(asked.io.err.trim()).toMatch(/^impact plan: --judge asks a model: .*; or leave --judge out$/);
  });

  it("judges at most judge.maxArticles related articles (config), the strongest first, and escapes model text", async () => {
    const repo = backoffRepo();
    repo.commit({
      "docs/other.md": RETRIES_DOC.replace("# Retries", "# More retries"),
      "impact.config.json": JSON.stringify({ judge: { maxArticles: 1 } }),
    });
    repo.commit({ "src/retry.ts": RETRY_SOURCE.replace("sleep(1000)", "sleep(500 * 2 ** attempt)") });
    const server = await serve([
      answer({ stale: true, line: STALE_LINE, quote: QUOTE, why: "the delay doubles \u001b[31m now" }),
    ]);
    const { code, io } = await impact(repo, server, ["plan"]);
    expect(code, io.err).toBe(0);
    expect(io.out).toMatch(
      /Judge \(test-model\): 1 related article judged, 1 promoted to stale, 1 not judged/,
    );
    expect(io.out).not.toContain("\u001b");
    expect(server.requests).toHaveLength(1);
    const typo = await impact(repo, server, [
      "plan",
      "--config",
      writeConfig(repo, { judge: { maxArticle: 3 } }),
    ]);
    expect(typo.code).toBe(2);
    expect(typo.io.err).toContain('unknown key "maxArticle"');
  });

  it("reads the judged articles of another head by the plan's one tree listing, not a git ls-tree each", async () => {
    const repo = gitRepo({
      "src/retry.ts": RETRY_SOURCE,
      "docs/retries.md": RETRIES_DOC,
      "docs/backoff.md": RETRIES_DOC.replace("# Retries", "# Backoff"),
      "docs/attempts.md": RETRIES_DOC.replace("# Retries", "# Attempts"),
    });
    repo.commit({ "src/retry.ts": RETRY_SOURCE.replace("sleep(1000)", "sleep(1000 * 2 ** attempt)") });
    repo.commit({ "NOTES.txt": "after the change\n" });
    const server = await serve(() => answer({ stale: false, line: 0, quote: "", why: "fine" }));
    const range = ["--base", "HEAD~2", "--head", "HEAD~1"];
    const lsTrees = async (args: string[]) =>
      (await gitCallsOf(async () => expect((await impact(repo, server, args)).code).toBe(0))).filter((call) =>
        / ls-tree /.test(call),
      );
    const unjudged = await lsTrees(["plan", "--json", ...range]);
    const judged = await lsTrees(["plan", "--json", "--judge", ...range]);
    expect(judgeCalls(server)).toHaveLength(3);
    expect(judged).toEqual(unjudged);
  });
});

function writeConfig(repo: TestRepo, config: unknown): string {
  const path = join(repo.dir, "other.config.json");
  writeFileSync(path, JSON.stringify(config));
  return path;
}

describe("run --judge", () => {
  it("sends the article the judge promoted to the agent; without --judge it is not run", async () => {
    const repo = backoffRepo();
    const server = await serve((request) =>
      request.body.tools === undefined ? STALE : { content: "Checked: the article needs the backoff." },
    );
    const { code, io } = await impact(repo, server, ["run", "--judge"]);
    expect(code, io.err).toBe(0);
    const audit = readAuditAt(join(repo.dir, ".impact/audit.json"));
    expect(audit.articles.map((article) => article.path)).toEqual(["docs/retries.md"]);
    expect(audit.articles[0]!.impact.at(-1)).toMatchObject({ kind: "judge", line: STALE_LINE });
    expect(judgeCalls(server)).toHaveLength(1);
    expect(io.err).toContain("Judge (test-model): 1 related article judged, 1 promoted to stale");
    expect(server.requests.length).toBeGreaterThan(1);

    const plain = await serve(() => ({ content: "unused" }));
    const without = await impact(repo, plain, ["run"]);
    expect(without.code, without.io.err).toBe(0);
    expect(readAuditAt(join(repo.dir, ".impact/audit.json")).articles).toEqual([]);
    expect(plain.requests).toHaveLength(0);
  });
});

describe("run --judge --only", () => {
  it("judges only the related articles the run covers", async () => {
    const repo = backoffRepo();
    repo.commit({ "docs/other.md": RETRIES_DOC.replace("# Retries", "# More retries") });
    repo.commit({ "src/retry.ts": RETRY_SOURCE.replace("sleep(1000)", "sleep(500 * 2 ** attempt)") });
    const server = await serve(() => answer({ stale: false, line: 0, quote: "", why: "fine" }));
    const { code, io } = await impact(repo, server, ["run", "--judge", "--only", "docs/other.md"]);
    expect(code, io.err).toBe(0);
    expect(judgeCalls(server).map((request) => request.article)).toEqual(["docs/other.md"]);
  });
});

describe("judgeRelated", () => {
  it("leaves an article whose call times out related, with a note, and judges the others", async () => {
    const repo = backoffRepo();
    repo.commit({ "docs/other.md": RETRIES_DOC.replace("# Retries", "# More retries") });
    repo.commit({ "src/retry.ts": RETRY_SOURCE.replace("sleep(1000)", "sleep(500 * 2 ** attempt)") });
    const server = await serve({
      "docs/retries.md": [{ hang: true }],
      "docs/other.md": [answer({ stale: false, line: 0, quote: "", why: "fine" })],
    });
    const built = await buildPlan({ repo: repo.dir, readStdin: async () => "", env: {} });
    expect(related(built.plan)).toEqual(["docs/other.md", "docs/retries.md"]);
    const client = createOpenAIModelClient({
      apiKey: KEY,
      baseURL: server.url,
      model: "test-model",
      timeoutMs: 300,
      retry: { maxRetries: 0 },
    });
    const summary = await judgeRelated({
      plan: built.plan,
      changeSet: built.changeSet,
      readArticle: async (path) => readFileSync(join(repo.dir, path), "utf8"),
      client,
      endpoint: "api test",
      impactVersion: "test",
      maxArticles: 20,
      concurrency: 2,
      signal: new AbortController().signal,
    });
    expect(summary).toMatchObject({ judged: 2, promoted: 0 });
    const verdicts = Object.fromEntries(built.plan.related.map((article) => [article.path, article.judge]));
    expect(verdicts["docs/retries.md"]).toMatchObject({
      verdict: "error",
      why: "no answer in time (timeout)",
    });
    expect(verdicts["docs/other.md"]).toMatchObject({ verdict: "fine" });
  });
});

describe("quoteLine", () => {
  const text = "one\ntwo words here\nthree   spaced\nfour\nfive and a long line that\nruns on\nseven";
  it.each([
    ["the line itself", 2, "two words here", 2],
    ["whitespace collapsed", 3, "three spaced", 3],
    ["two lines off", 4, "two words here", 2],
    ["a quote running over two lines", 5, "a long line that runs on", 5],
    ["a line-number prefix copied", 2, "2: two words here", 2],
    ["three lines off", 5, "two words here", undefined],
    ["not on the article", 2, "nowhere to be seen", undefined],
    ["too short to tell", 1, "one", undefined],
  ])("%s", (_name, line, quote, expected) => {
    expect(quoteLine(text, line, quote)).toBe(expected);
  });
});
