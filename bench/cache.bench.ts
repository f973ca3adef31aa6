import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { buildPlan } from "../cli/plan/build-plan.js";
import { RESULT_CACHE } from "../cli/run/result-cache.js";
import { runImpact, selectArticles } from "../cli/run/run-impact.js";
import { VERSION } from "../cli/version.js";
import type { ModelClient, ModelResponse } from "../shared/model/types.js";
import { BENCH_GIT_ENV } from "./git-env.js";

/**
 * `npm run bench -- cache`: a pull request of ten pushes, each run against the PR's base
 * as the bot and the Action do, against a scripted model with 100 ms latency. Prints the
 * model calls and wall time of every push with the result cache and without it (the
 * baseline, in the same run). Goal: a push that changes nothing an article depends on
 * makes 0 model calls.
 */
const MODULES = 10;
const ARTICLES_PER_MODULE = 4;
const LATENCY_MS = 100;
const CONCURRENCY = 8;

const GIT_ENV = BENCH_GIT_ENV;

/** What each push of the PR changes: modules given a new limit, or only a file no article watches. */
const PUSHES: { label: string; modules: number[]; limit: number }[] = [
  { label: "limits of modules 0–3 doubled", modules: [0, 1, 2, 3], limit: 20 },
  { label: "unrelated file", modules: [], limit: 0 },
  { label: "unrelated file", modules: [], limit: 0 },
  { label: "module 0 changed again", modules: [0], limit: 30 },
  { label: "unrelated file", modules: [], limit: 0 },
  { label: "module 4 changed too", modules: [4], limit: 20 },
  { label: "unrelated file", modules: [], limit: 0 },
  { label: "unrelated file", modules: [], limit: 0 },
  { label: "unrelated file", modules: [], limit: 0 },
  { label: "unrelated file", modules: [], limit: 0 },
];

function moduleSource(index: number, limit: number): string {
  return `/** Module ${index}. */\nexport const LIMIT_${index} = ${limit};\nexport function check${index}(value: number): boolean {\n  return value <= LIMIT_${index};\n}\n`;
}

function articleSource(module: number, copy: number): string {
  return `---\ntitle: Module ${module}, part ${copy}\nattention:\n  - op: file\n    path: src/module-${module}.ts\n---\n# Module ${module}, part ${copy}\n\nModule ${module} checks values against a limit.\n\n## Limits\n\nThe limit of module ${module} is 10.\n`;
}

/** A model that fixes the limit sentence in one call, after a fixed latency; it counts its calls. */
function scriptedModel(): ModelClient & { calls: number } {
  const model = {
    model: "scripted-bench",
    calls: 0,
    async complete(request: { article: string }, signal: AbortSignal): Promise<ModelResponse> {
      model.calls += 1;
      await sleep(LATENCY_MS, undefined, { signal });
      const module = /module-(\d+)/.exec(request.article)?.[1] ?? "0";
      const args = {
        path: request.article,
        edits: [
          {
            old_string: `The limit of module ${module} is 10.`,
            new_string: `The limit of module ${module} is LIMIT_${module}.`,
            reason: `LIMIT_${module} changed in src/module-${module}.ts`,
          },
        ],
        done: true,
      };
      return {
        message: {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_0",
              type: "function",
              function: { name: "edit_article", arguments: JSON.stringify(args) },
            },
          ],
        },
        finishReason: "tool_calls",
        usage: { promptTokens: 1500, completionTokens: 80 },
        retries: 0,
      };
    },
  };
  return model;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "impact-bench-cache-"));
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: dir, env: { ...process.env, ...GIT_ENV }, encoding: "utf8" }).trim();
  try {
    git("init", "-q", "-b", "main");
    for (let module = 0; module < MODULES; module++) {
      write(`src/module-${module}.ts`, moduleSource(module, 10));
      for (let copy = 0; copy < ARTICLES_PER_MODULE; copy++) {
        write(`docs/module-${module}-${copy}.md`, articleSource(module, copy));
      }
    }
    write("src/unrelated.ts", "export const pushes = 0;\n");
    git("add", "-A");
    git("commit", "-q", "-m", "base");
    const base = git("rev-parse", "HEAD");

    const totals = { cached: { calls: 0, ms: 0 }, uncached: { calls: 0, ms: 0 } };
    let idleCalls = 0;
    console.log(
      `${MODULES * ARTICLES_PER_MODULE} articles, ${PUSHES.length} pushes, latency ${LATENCY_MS} ms, concurrency ${CONCURRENCY}`,
    );
    console.log(
      "push  change                          impacted  calls (no cache → cache)  wall ms (no cache → cache)",
    );
    for (const [index, push] of PUSHES.entries()) {
      for (const module of push.modules) write(`src/module-${module}.ts`, moduleSource(module, push.limit));
      if (push.modules.length === 0) write("src/unrelated.ts", `export const pushes = ${index + 1};\n`);
      git("add", "-A");
      git("commit", "-q", "-m", `push ${index + 1}`);
      const built = await buildPlan({ repo: dir, base, readStdin: async () => "" });
      const store = await built.workdir.cache(RESULT_CACHE);
      const figures: Record<"uncached" | "cached", { calls: number; ms: number }> = {
        uncached: { calls: 0, ms: 0 },
        cached: { calls: 0, ms: 0 },
      };
      for (const mode of ["uncached", "cached"] as const) {
        const model = scriptedModel();
        const started = performance.now();
        await runImpact({
          built,
          model,
          out: join(dir, ".impact", `audit-${mode}.json`),
          patch: join(dir, ".impact", `patch-${mode}.patch`),
          apply: false,
          allowCreate: false,
          selection: selectArticles(built.plan.articles, { includeTouched: false }),
          concurrency: CONCURRENCY,
          maxTurns: 4,
          env: {},
          signal: new AbortController().signal,
          cache: mode === "cached" && store ? { store, impactVersion: VERSION, endpoint: "" } : undefined,
        });
        figures[mode] = { calls: model.calls, ms: performance.now() - started };
        totals[mode].calls += model.calls;
        totals[mode].ms += figures[mode].ms;
      }
      if (push.modules.length === 0) idleCalls += figures.cached.calls;
      console.log(
        `${String(index + 1).padStart(4)}  ${push.label.padEnd(30)}  ${String(built.plan.articles.length).padStart(8)}  ${String(figures.uncached.calls).padStart(9)} → ${String(figures.cached.calls).padEnd(13)}  ${figures.uncached.ms.toFixed(0).padStart(8)} → ${figures.cached.ms.toFixed(0)}`,
      );
    }
    console.log(
      `total model calls  ${totals.cached.calls} with the cache, ${totals.uncached.calls} without (baseline) → ${(totals.cached.calls / totals.uncached.calls).toFixed(2)}× the calls`,
    );
    console.log(
      `total wall time    ${totals.cached.ms.toFixed(0)} ms with the cache, ${totals.uncached.ms.toFixed(0)} ms without → ${(totals.cached.ms / totals.uncached.ms).toFixed(2)}× the time`,
    );
    console.log(
      `pushes that change nothing relevant: ${idleCalls} model calls with the cache (goal: 0) ${idleCalls === 0 ? "✓" : "✗"}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
