import { describe, expect, it } from "vitest";
import { resolveRunLimits } from "../../../cli/run/budget.js";
import { articleText, buildFirstMessage, selectHunks } from "../../../cli/run/first-message.js";
import { TerminalProgress } from "../../../cli/run/progress.js";
import { plannedArticles, selectArticles } from "../../../cli/run/run-impact.js";
import { ImpactAgentRunner } from "../../../cli/run/runner.js";
import { toolHostSessions } from "../../../cli/run/session.js";
import { Workspace } from "../../../cli/run/workspace.js";
import type { ChangeSet } from "../../../shared/changeset.js";
import { ConfigSchema } from "../../../shared/config.js";
import { ModelApiError, ModelProtocolError } from "../../../shared/errors.js";
import { DEFAULT_CONCURRENCY, DEFAULT_TOKENS_PER_RUN } from "../../../shared/limits.js";
import type { ModelClient, ModelRequest, ModelResponse } from "../../../shared/model/types.js";
import type { PlannedArticle } from "../../../shared/plan.js";
import { buildToolManifest } from "../../../shared/tools/manifest.js";
import { gitRepo } from "../../helpers/git-repo.js";

type Step = ModelResponse | Error;

/** A ModelClient answering from per-article steps; an unexpected extra call fails the test. */
function scriptedModel(steps: Record<string, Step[]>): ModelClient & { requests: ModelRequest[] } {
  const seen = new Map<string, number>();
  const requests: ModelRequest[] = [];
  return {
    model: "scripted",
    requests,
    async complete(request, signal) {
      signal.throwIfAborted();
      requests.push(structuredClone(request));
      const index = seen.get(request.article) ?? 0;
      seen.set(request.article, index + 1);
      const step = steps[request.article]?.[index];
      if (!step) throw new Error(`unexpected extra call ${index} for ${request.article}`);
      if (step instanceof Error) throw step;
      return step;
    },
  };
}

const text = (content: string, finishReason = "stop", tokens = 10): ModelResponse => ({
  message: { role: "assistant", content },
  finishReason,
  usage: { promptTokens: tokens, completionTokens: 0 },
  retries: 0,
});
const toolCall = (name: string, args: unknown, tokens = 10): ModelResponse => ({
  message: {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: `call_${name}`, type: "function", function: { name, arguments: JSON.stringify(args) } },
    ],
  },
  finishReason: "tool_calls",
  usage: { promptTokens: tokens, completionTokens: 0 },
  retries: 0,
});

/** One model turn with several tool calls; a string argument is sent as is (bad JSON). */
const toolCalls = (...calls: [string, unknown][]): ModelResponse => ({
  message: {
    role: "assistant",
    content: null,
    tool_calls: calls.map(([name, args], index) => ({
      id: `call_${index}`,
      type: "function",
      function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
    })),
  },
  finishReason: "tool_calls",
  usage: { promptTokens: 10, completionTokens: 0 },
  retries: 0,
});

const DOC = "# Title\n\nThe port is 8080.\n";
const article = (path: string): PlannedArticle => ({
  path,
  status: "impacted",
  impact: [{ kind: "attention", source: "src/a.ts", detail: "watches src/a.ts" }],
  files: ["src/a.ts"],
});
const CHANGE: ChangeSet = {
  base: "a",
  head: "b",
  files: [
    {
      path: "src/a.ts",
      status: "modified",
      binary: false,
      patch:
        "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-export const PORT = 8080;\n+export const PORT = 9090;\n",
      hunks: [
        {
          oldStart: 1,
          oldLines: 1,
          newStart: 1,
          newLines: 1,
          header: "@@ -1 +1 @@",
          lines: ["-export const PORT = 8080;", "+export const PORT = 9090;"],
        },
      ],
    },
  ],
  symbols: [{ name: "PORT", kind: "constant", change: "body", file: "src/a.ts", line: 1 }],
};

function runnerFor(
  model: ModelClient,
  options: Partial<ConstructorParameters<typeof ImpactAgentRunner>[0]> = {},
  setup: { files?: Record<string, string>; config?: unknown } = {},
) {
  const repo = gitRepo({
    "docs/a.md": DOC,
    "docs/b.md": DOC,
    "src/a.ts": "export const PORT = 9090;\n",
    ...setup.files,
  });
  const workspace = new Workspace(repo.dir);
  const config = ConfigSchema.parse(setup.config ?? {});
  const runner = new ImpactAgentRunner({
    model,
    systemPrompt: "system",
    tools: buildToolManifest({ allowCreate: false }),
    changeSet: CHANGE,
    openArticle: toolHostSessions({
      root: repo.dir,
      workspace,
      changeSet: CHANGE,
      config,
      allowCreate: false,
    }),
    ...options,
  });
  return { runner, workspace };
}

const signal = () => new AbortController().signal;

describe("ImpactAgentRunner stop predicates and caps", () => {
  it("fails an article at its token budget and leaves no trace in the workspace", async () => {
    const model = scriptedModel({
      "docs/a.md": [
        toolCall(
          "edit_article",
          { path: "docs/a.md", edits: [{ old_string: "8080", new_string: "9090", reason: "PORT changed" }] },
          1000,
        ),
        toolCall("read_file", { path: "src/a.ts" }, 1000),
      ],
    });
    const { runner, workspace } = runnerFor(model, { tokensPerArticle: 1500 });
    const [result] = await runner.run([article("docs/a.md")], signal());
    expect(result).toMatchObject({
      status: "failed",
      patch: "",
      error: { code: "article_budget", message: "token budget per article reached (1,500 tokens)" },
      usage: { turns: 2, promptTokens: 2000 },
    });
    expect(workspace.changes()).toEqual([]);
  });

  it("fails the articles that come after the run's token budget is spent", async () => {
    const model = scriptedModel({ "docs/a.md": [text("Fine.", "stop", 150)] });
    const { runner } = runnerFor(model, { tokensPerRun: 100, concurrency: 1 });
    const results = await runner.run([article("docs/a.md"), article("docs/b.md")], signal());
    expect(results.map((result) => [result.path, result.status, result.error?.code])).toEqual([
      ["docs/a.md", "unchanged", undefined],
      ["docs/b.md", "failed", "run_budget"],
    ]);
  });

  it("asks again after an answer cut off at the length limit, and after an empty one", async () => {
    const model = scriptedModel({
      "docs/a.md": [text("The port", "length"), text(""), text("Nothing to change: the doc is generic.")],
    });
    const { runner } = runnerFor(model);
    const [result] = await runner.run([article("docs/a.md")], signal());
    expect(result).toMatchObject({
      status: "unchanged",
      summary: "Nothing to change: the doc is generic.",
      usage: { turns: 3 },
    });
    const last = model.requests[2]!.messages;
    expect(last.slice(-4).map((message) => message.role)).toEqual(["assistant", "user", "assistant", "user"]);
  });

  it("retries protocol errors a bounded number of times, and fails on API errors with their message", async () => {
    const protocol = new ModelProtocolError("the response had no choices");
    const model = scriptedModel({
      "docs/a.md": [protocol, protocol, protocol],
      "docs/b.md": [
        new ModelApiError("model API failed after 4 retries: 503", {
          retryable: true,
          reason: "status",
          status: 503,
        }),
      ],
    });
    const { runner } = runnerFor(model);
    const results = await runner.run([article("docs/a.md"), article("docs/b.md")], signal());
    expect(results.map((result) => [result.status, result.error, result.usage.llmCalls])).toEqual([
      ["failed", { code: "model_protocol", message: "the response had no choices" }, 3],
      ["failed", { code: "model_api", message: "model API failed after 4 retries: 503" }, 1],
    ]);
  });

  it("cancels every article when the signal is already aborted, without a model call", async () => {
    const model = scriptedModel({});
    const { runner } = runnerFor(model);
    const controller = new AbortController();
    controller.abort();
    const results = await runner.run([article("docs/a.md"), article("docs/b.md")], controller.signal);
    expect(results.map((result) => result.status)).toEqual(["cancelled", "cancelled"]);
    expect(model.requests).toEqual([]);
  });

  it("skips an article that no longer exists", async () => {
    const model = scriptedModel({});
    const { runner } = runnerFor(model);
    const [result] = await runner.run([article("docs/gone.md")], signal());
    expect(result).toMatchObject({
      status: "skipped",
      summary: "docs/gone.md does not exist in the working tree",
    });
  });
});

describe("ImpactAgentRunner with the tool host", () => {
  it("counts tool calls, tool errors and first-try edits in the article's usage", async () => {
    const edit = (from: string, to: string) =>
      toolCall("edit_article", {
        path: "docs/a.md",
        edits: [{ old_string: from, new_string: to, reason: "r" }],
      });
    const model = scriptedModel({
      "docs/a.md": [
        toolCalls(
          ["read_file", "{not json"],
          ["delete_file", { path: "docs/a.md" }],
          ["read_file", { path: "docs/a.md" }],
        ),
        edit("no such text", "x"),
        // Succeeds after a failed edit: not a first try.
        edit("8080", "9090"),
        edit("# Title", "# Port"),
        text("Done."),
      ],
    });
    const { runner } = runnerFor(model);
    const [result] = await runner.run([article("docs/a.md")], signal());
    expect(result?.status).toBe("updated");
    expect(result?.usage).toMatchObject({
      turns: 5,
      toolCalls: { read_file: 2, delete_file: 1, edit_article: 3 },
      toolErrors: 3,
      firstTryEdits: 1,
    });
  });

  it("applies the configured deny patterns to every article of the run", async () => {
    const readSecret = toolCall("read_file", { path: "notes/secret.md" });
    const model = scriptedModel({
      "docs/a.md": [readSecret, text("Nothing to change.")],
      "docs/b.md": [readSecret, text("Nothing to change.")],
    });
    const { runner } = runnerFor(
      model,
      {},
      { files: { "notes/secret.md": "SECRET\n" }, config: { deny: ["notes/**"] } },
    );
    const results = await runner.run([article("docs/a.md"), article("docs/b.md")], signal());
    expect(results.map((result) => [result.path, result.usage.toolErrors])).toEqual([
      ["docs/a.md", 1],
      ["docs/b.md", 1],
    ]);
    const replies = model.requests
      .filter((request) => request.messages.at(-1)?.role === "tool")
      .map((request) => [request.article, request.messages.at(-1)?.content]);
    expect(replies).toEqual([
      [
        "docs/a.md",
        'Error: Refused: "notes/secret.md" matches the deny pattern "notes/**"; such files are never opened.',
      ],
      [
        "docs/b.md",
        'Error: Refused: "notes/secret.md" matches the deny pattern "notes/**"; such files are never opened.',
      ],
    ]);
  });
});

describe("the first message", () => {
  it("keeps the hunks that name what the article mentions, and notes what it left out", () => {
    const lines = (from: number, word: string) =>
      Array.from({ length: 40 }, (_, index) => `+const value${from + index} = "${word}";`);
    const change: ChangeSet = {
      ...CHANGE,
      files: [
        {
          path: "src/big.ts",
          status: "modified",
          binary: false,
          patch:
            "diff --git a/src/big.ts b/src/big.ts\n--- a/src/big.ts\n+++ b/src/big.ts\n@@ -1,0 +1,40 @@\n",
          hunks: [
            {
              oldStart: 1,
              oldLines: 0,
              newStart: 1,
              newLines: 40,
              header: "@@ -1,0 +1,40 @@",
              lines: lines(1, "filler"),
            },
            {
              oldStart: 100,
              oldLines: 0,
              newStart: 141,
              newLines: 40,
              header: "@@ -100,0 +141,40 @@",
              lines: lines(141, "retryLimit"),
            },
          ],
        },
        { path: "logo.png", status: "modified", binary: true, patch: "", hunks: [] },
      ],
    };
    const planned = { ...article("docs/a.md"), files: ["src/big.ts", "logo.png"] };
    const { diff, leftOut } = selectHunks(planned, change, ["retryLimit"], 500);
    expect(diff).toContain("@@ -100,0 +141,40 @@");
    expect(diff).not.toContain("@@ -1,0 +1,40 @@");
    expect(
      diff.startsWith("diff --git a/src/big.ts b/src/big.ts\n--- a/src/big.ts\n+++ b/src/big.ts\n@@ -100"),
    ).toBe(true);
    expect(leftOut).toEqual(["logo.png: binary file (modified)", "src/big.ts: 1 hunk at new lines 1–40"]);
    // A declaration changed in a hunk left out is named, so the model can read just it.
    const withSymbols = {
      ...change,
      symbols: [
        {
          name: "fillTable",
          kind: "function" as const,
          change: "signature" as const,
          file: "src/big.ts",
          line: 12,
        },
        {
          name: "retryLimit",
          kind: "constant" as const,
          change: "added" as const,
          file: "src/big.ts",
          line: 150,
        },
      ],
    };
    expect(selectHunks(planned, withSymbols, ["retryLimit"], 500).leftOut).toEqual([
      "logo.png: binary file (modified)",
      "src/big.ts: 1 hunk at new lines 1–40 (changed: fillTable; read_file {path, symbol} reads one)",
    ]);
  });

  it("sends a very large article as its frontmatter and the passages around what the change touched", () => {
    const body = Array.from({ length: 400 }, (_, index) =>
      index === 250 ? "Set PORT to 8080." : `Line ${index + 1} of filler text.`,
    );
    const content = `---\ntitle: Big\n---\n${body.join("\n")}\n`;
    const { text: excerpt, leftOut } = articleText(content, ["PORT"], 500);
    expect(excerpt.startsWith("[lines 1–3 of 404]\n---\ntitle: Big\n---")).toBe(true);
    expect(excerpt).toContain("Set PORT to 8080.");
    expect(excerpt).not.toContain("Line 100 of filler text.");
    expect(leftOut).toEqual([
      "article lines 4–228 (read_file with offset 4)",
      "article lines 280–404 (read_file with offset 280)",
    ]);
  });

  it("sends the whole section that names a term when it is short enough", () => {
    const filler = (title: string) =>
      `## ${title}\n\n${Array.from({ length: 60 }, (_, index) => `${title} filler line ${index + 1}.`).join("\n")}\n`;
    const content = `# Guide\n\n${filler("Intro")}\n## Ports\n\nIntro to ports.\n\nSet PORT to 8080.\n\nMore on ports.\n\n${filler("Outro")}`;
    const { text: excerpt, leftOut } = articleText(content, ["PORT"], 300);
    expect(excerpt).toMatch(
      /^\[lines 66–73 of \d+\]\n## Ports\n\nIntro to ports\.\n\nSet PORT to 8080\.\n\nMore on ports\.\n/,
    );
    expect(leftOut.map((line) => line.replace(/\d+/g, "N"))).toEqual([
      "article lines N–N (read_file with offset N)",
      "article lines N–N (read_file with offset N)",
    ]);
  });

  it("fills the article template with the reasons and the trimmed-note", async () => {
    const message = await buildFirstMessage({
      article: article("docs/a.md"),
      content: DOC,
      changeSet: CHANGE,
      diffTokens: 1,
    });
    expect(message).toContain("- attention src/a.ts: watches src/a.ts");
    expect(message).toContain(
      "Left out to fit the token budget (use read_file or search_repo if you need them):\n- src/a.ts: 1 hunk at new lines 1–1",
    );
  });
});

describe("TerminalProgress", () => {
  it("redraws one line in place with done/total, tokens, retries and the articles in flight", () => {
    let out = "";
    let clock = 0;
    const progress = new TerminalProgress({ write: (text) => (out += text), total: 3, now: () => clock });
    progress.articleStarted("docs/a.md");
    clock += 200;
    progress.articleStarted("docs/b.md");
    progress.tokens(1234);
    progress.retries(1);
    progress.articleFinished("docs/a.md", "updated");
    expect(progress.line()).toMatchInlineSnapshot(
      `"impact: 1/3 articles · 1,234 tokens · 1 retry · docs/b.md"`,
    );
    progress.stop();
    expect(out.split("\r\x1b[2K").filter(Boolean)).toMatchInlineSnapshot(`
      [
        "impact: 0/3 articles · 0 tokens · docs/a.md",
        "impact: 0/3 articles · 0 tokens · docs/a.md, docs/b.md",
        "impact: 1/3 articles · 1,234 tokens · 1 retry · docs/b.md",
      ]
    `);
  });
});

describe("what a run covers and with which caps", () => {
  it("takes each cap from the flags, then the config, then the default", () => {
    expect(
      resolveRunLimits(
        { maxTurns: 3, concurrency: undefined },
        { concurrency: 2, maxTurns: 9, tokensPerArticle: 50 },
      ),
    ).toEqual({
      concurrency: 2,
      maxTurns: 3,
      tokensPerArticle: 50,
      tokensPerRun: DEFAULT_TOKENS_PER_RUN,
    });
    expect(resolveRunLimits().concurrency).toBe(DEFAULT_CONCURRENCY);
  });

  it("covers the --only and --shard articles in plan order and runs the touched ones only when asked", () => {
    const planned = (path: string, status: PlannedArticle["status"]): PlannedArticle => ({
      path,
      status,
      impact: [],
      files: [],
    });
    const articles = [
      planned("docs/b.md", "touched"),
      planned("docs/a.md", "impacted"),
      planned("guide/c.md", "impacted"),
    ];
    const paths = (list: PlannedArticle[]) => list.map((article) => article.path);
    const docs = selectArticles(articles, { only: "docs/**", includeTouched: false });
    expect(paths(docs.covered)).toEqual(["docs/b.md", "docs/a.md"]);
    expect(paths(docs.toRun)).toEqual(["docs/a.md"]);
    expect(paths(selectArticles(articles, { includeTouched: true }).toRun)).toEqual(paths(articles));
    const shards = [1, 2].map((index) =>
      selectArticles(articles, { shard: { index, count: 2 }, includeTouched: true }),
    );
    expect(paths(shards.flatMap((shard) => shard.covered)).sort()).toEqual(paths(articles).sort());
  });

  it("starts from the stale, new and touched articles, and adds the related ones only when asked", () => {
    const planned = (path: string, fields: Partial<PlannedArticle>): PlannedArticle => ({
      path,
      status: "impacted",
      impact: [],
      files: [],
      ...fields,
    });
    const plan = {
      articles: [
        planned("docs/stale.md", { tier: "stale" }),
        planned("docs/new.md", { tier: "new", status: "new" }),
        planned("docs/old-plan.md", {}),
        planned("docs/touched.md", { tier: "stale", status: "touched" }),
      ],
      related: [planned("docs/related.md", { tier: "related" })],
    };
    const paths = (list: PlannedArticle[]) => list.map((article) => article.path);
    expect(paths(plannedArticles(plan, false))).toEqual([
      "docs/stale.md",
      "docs/new.md",
      "docs/old-plan.md",
      "docs/touched.md",
    ]);
    expect(paths(plannedArticles(plan, true))).toEqual([...paths(plan.articles), "docs/related.md"]);
  });
});
