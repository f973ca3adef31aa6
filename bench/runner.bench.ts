import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { buildPlan } from "../cli/plan/build-plan.js";
import { AgentToolHost } from "../cli/run/agent-tool-host.js";
import { ImpactAgentRunner } from "../cli/run/runner.js";
import { toolHostSessions } from "../cli/run/session.js";
import { Workspace } from "../cli/run/workspace.js";
import type { ChatMessage, ModelClient, ModelRequest, ModelResponse } from "../shared/model/types.js";
import { systemPrompt } from "../shared/prompts.js";
import { buildToolManifest } from "../shared/tools/manifest.js";
import { BENCH_GIT_ENV } from "./git-env.js";

/**
 * `npm run bench -- runner`: 200 articles against a scripted model with 100 ms latency,
 * concurrency 8. Prints the wall time against the ideal (articles × LLM calls each ×
 * latency / concurrency) and the runner's own overhead per turn (goal: within 1.15× of
 * ideal), then prompt tokens per article against a naive loop that puts the whole diff in
 * the prompt and fetches the article with a read_file round trip (goal: at least 40%
 * fewer tokens and one round trip fewer).
 */
const ARTICLES = 200;
const MODULES = 20;
const LATENCY_MS = 100;
const CONCURRENCY = 8;

const GIT_ENV = BENCH_GIT_ENV;

function moduleSource(index: number, limit: number): string {
  const lines = [`/** Module ${index}. */`, `export const LIMIT_${index} = ${limit};`];
  for (let line = 0; line < 60; line++) {
    lines.push(
      `export function step${index}_${line}(value: number): number {`,
      `  return value * ${limit} + ${line};`,
      "}",
    );
  }
  return `${lines.join("\n")}\n`;
}

function articleSource(index: number): string {
  const module = index % MODULES;
  const filler = Array.from(
    { length: 12 },
    (_, line) =>
      `Paragraph ${line + 1} of article ${index} explains how module ${module} fits into the larger system, with enough words to look like real documentation.`,
  );
  return `---\ntitle: Article ${index}\nattention:\n  - op: file\n    path: src/module-${module}.ts\n---\n# Article ${index}\n\n${filler.slice(0, 6).join("\n\n")}\n\n## Limits\n\nThe limit of module ${module} in article ${index} is 10.\n\n${filler.slice(6).join("\n\n")}\n`;
}

function buildRepository(changedModules: number): string {
  const dir = mkdtempSync(join(tmpdir(), "impact-bench-runner-"));
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: dir, env: { ...process.env, ...GIT_ENV } });
  git("init", "-q", "-b", "main");
  for (let index = 0; index < MODULES; index++) write(`src/module-${index}.ts`, moduleSource(index, 10));
  for (let index = 0; index < ARTICLES; index++) write(`docs/article-${index}.md`, articleSource(index));
  git("add", "-A");
  git("commit", "-q", "-m", "before");
  for (let index = 0; index < changedModules; index++)
    write(`src/module-${index}.ts`, moduleSource(index, 20));
  git("add", "-A");
  git("commit", "-q", "-m", "limits doubled");
  return dir;
}

/** The scripted server's estimate: 4 characters a token over the messages and tools sent. */
function promptTokens(request: ModelRequest): number {
  return Math.ceil((JSON.stringify(request.messages).length + JSON.stringify(request.tools).length) / 4);
}

function editFor(article: string): ModelResponse["message"] {
  const index = Number(/article-(\d+)/.exec(article)?.[1]);
  const module = index % MODULES;
  const args = {
    path: article,
    edits: [
      {
        old_string: `The limit of module ${module} in article ${index} is 10.`,
        new_string: `The limit of module ${module} in article ${index} is 20.`,
        reason: `LIMIT_${module} changed from 10 to 20 in src/module-${module}.ts`,
        evidence: [`src/module-${module}.ts:2`],
      },
    ],
    done: true,
  };
  return {
    role: "assistant",
    content: null,
    tool_calls: [
      {
        id: "call_edit",
        type: "function",
        function: { name: "edit_article", arguments: JSON.stringify(args) },
      },
    ],
  };
}

/**
 * A scripted model with fixed latency. `readFirst`: the first call of an article asks for
 * the article with read_file (the naive loop's round trip).
 */
function scriptedModel(readFirst: boolean): ModelClient & { tokens: Map<string, number[]> } {
  const tokens = new Map<string, number[]>();
  return {
    model: "scripted-bench",
    tokens,
    async complete(request, signal) {
      await sleep(LATENCY_MS, undefined, { signal });
      const calls = tokens.get(request.article) ?? [];
      calls.push(promptTokens(request));
      tokens.set(request.article, calls);
      const message: ModelResponse["message"] =
        readFirst && calls.length === 1
          ? {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: "call_read",
                  type: "function",
                  function: { name: "read_file", arguments: JSON.stringify({ path: request.article }) },
                },
              ],
            }
          : editFor(request.article);
      return {
        message,
        finishReason: "tool_calls",
        usage: { promptTokens: calls.at(-1)!, completionTokens: 60 },
        retries: 0,
      };
    },
  };
}

const average = (values: number[]) =>
  values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

type Built = Awaited<ReturnType<typeof buildPlan>>;

/** Our runner over the plan's impacted articles: wall time, turns, and the model's view of the prompts. */
async function runOurs(built: Built, system: string) {
  const articles = built.plan.articles.filter((article) => article.status === "impacted");
  const model = scriptedModel(false);
  const workspace = new Workspace(built.repoRoot);
  const runner = new ImpactAgentRunner({
    model,
    systemPrompt: system,
    tools: buildToolManifest({ allowCreate: false }),
    changeSet: built.changeSet,
    openArticle: toolHostSessions({
      root: built.repoRoot,
      workspace,
      changeSet: built.changeSet,
      config: built.config,
      allowCreate: false,
    }),
    concurrency: CONCURRENCY,
  });
  const started = performance.now();
  const results = await runner.run(articles, new AbortController().signal);
  const wallMs = performance.now() - started;
  return { articles, results, wallMs, tokens: model.tokens };
}

/** The naive loop: whole diff in the prompt, the article fetched with a read_file round trip. */
async function runNaive(built: Built, system: string) {
  const articles = built.plan.articles.filter((article) => article.status === "impacted");
  const tools = buildToolManifest({ allowCreate: false });
  const model = scriptedModel(true);
  const workspace = new Workspace(built.repoRoot);
  const wholeDiff = built.changeSet.files.map((file) => file.patch).join("");
  const roundTrips: number[] = [];
  await Promise.all(
    articles.map(async (article) => {
      const host = new AgentToolHost({
        root: built.repoRoot,
        workspace,
        articlePath: article.path,
        changedFiles: built.changeSet.files.map((file) => file.path),
        docsGlobs: built.config.docs,
        allowCreate: false,
      });
      const messages: ChatMessage[] = [
        { role: "system", content: system },
        {
          role: "user",
          content: `Article: ${article.path}\nReasons:\n${article.impact.map((reason) => `- ${reason.kind} ${reason.source}: ${reason.detail}`).join("\n")}\n\nThe change:\n${wholeDiff}\nRead the article and fix what the change makes wrong.`,
        },
      ];
      let trips = 0;
      while (!host.done && trips < 4) {
        trips += 1;
        const response = await model.complete(
          { model: "naive", article: article.path, messages, tools },
          new AbortController().signal,
        );
        messages.push({
          role: "assistant",
          content: response.message.content,
          tool_calls: response.message.tool_calls ?? [],
        });
        const output = await host.execute(response.message.tool_calls ?? [], new AbortController().signal);
        for (const result of output)
          messages.push({ role: "tool", tool_call_id: result.toolCallId, content: result.content });
      }
      host.abandon();
      roundTrips.push(trips);
    }),
  );
  return { tokens: model.tokens, roundTrips };
}

function printTokens(
  label: string,
  built: Built,
  ours: Map<string, number[]>,
  naive: Awaited<ReturnType<typeof runNaive>>,
) {
  const articles = built.plan.articles.filter((article) => article.status === "impacted");
  const perArticle = (source: Map<string, number[]>) =>
    articles.map((article) => (source.get(article.path) ?? []).reduce((sum, value) => sum + value, 0));
  const oursTokens = average(perArticle(ours));
  const naiveTokens = average(perArticle(naive.tokens));
  const oursTrips = average(articles.map((article) => ours.get(article.path)?.length ?? 0));
  console.log(
    `${label}: prompt tokens per article: ours ${oursTokens.toFixed(0)}, naive ${naiveTokens.toFixed(0)} → ${(100 * (1 - oursTokens / naiveTokens)).toFixed(1)}% fewer (goal ≥ 40%); round trips ours ${oursTrips.toFixed(2)}, naive ${average(naive.roundTrips).toFixed(2)} (goal: one fewer)`,
  );
}

export async function run(): Promise<void> {
  const system = await systemPrompt();
  const dir = buildRepository(MODULES);
  const small = buildRepository(1);
  try {
    const built = await buildPlan({ repo: dir, readStdin: async () => "" });
    const ours = await runOurs(built, system);
    const { articles, results, wallMs } = ours;
    const updated = results.filter((result) => result.status === "updated").length;
    const turns = results.reduce((sum, result) => sum + result.usage.turns, 0);
    const callsEach = turns / results.length;
    const idealMs = (articles.length * callsEach * LATENCY_MS) / CONCURRENCY;
    const overheadPerTurnMs = (wallMs - idealMs) / turns;
    console.log(
      `articles ${articles.length} (updated ${updated}), LLM calls each ${callsEach.toFixed(2)}, latency ${LATENCY_MS} ms, concurrency ${CONCURRENCY}`,
    );
    console.log(`wall time      ${wallMs.toFixed(0)} ms`);
    console.log(`ideal          ${idealMs.toFixed(0)} ms (articles × calls each × latency / concurrency)`);
    console.log(`ratio          ${(wallMs / idealMs).toFixed(3)}× of ideal (goal ≤ 1.15×)`);
    console.log(
      `overhead/turn  ${(overheadPerTurnMs * CONCURRENCY).toFixed(1)} ms added to each turn of a lane (${overheadPerTurnMs.toFixed(2)} ms of wall time per turn overall)`,
    );
    printTokens(`change of ${MODULES} modules`, built, ours.tokens, await runNaive(built, system));

    // The least favourable case for us: a one-file change, so the whole diff is the relevant diff.
    const builtSmall = await buildPlan({ repo: small, readStdin: async () => "" });
    const oursSmall = await runOurs(builtSmall, system);
    printTokens("change of 1 module  ", builtSmall, oursSmall.tokens, await runNaive(builtSmall, system));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(small, { recursive: true, force: true });
  }
}
