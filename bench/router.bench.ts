import { createApp } from "../backend/app.js";
import { createLogger, listen } from "../backend/server.js";
import { createOpenAIModelClient } from "../shared/model/openai-client.js";
import { createRouterModelClient } from "../shared/model/router-client.js";
import type { ModelClient, ModelRequest } from "../shared/model/types.js";
import { systemPrompt } from "../shared/prompts.js";
import { buildToolManifest } from "../shared/tools/manifest.js";
import { startScriptedModelServer } from "../test/helpers/scripted-model-server.js";

const REQUESTS = 500;
/** One at a time: the router's own cost per turn, without CPU contention. */
const SEQUENTIAL = 50;
const UPSTREAM_LATENCY_MS = 50;
const TOKEN = "impact-bench-token-0000000001";

interface Figures {
  wallMs: number;
  latencies: number[];
  errors: number;
}

async function sequential(client: ModelClient, request: ModelRequest): Promise<number[]> {
  const latencies: number[] = [];
  for (let index = 0; index < SEQUENTIAL; index++) {
    const begin = performance.now();
    await client.complete(request, new AbortController().signal);
    latencies.push(performance.now() - begin);
  }
  return latencies.sort((a, b) => a - b);
}

async function burst(client: ModelClient, request: ModelRequest): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: REQUESTS }, async () => {
      const begin = performance.now();
      try {
        await client.complete(request, new AbortController().signal);
        latencies.push(performance.now() - begin);
      } catch {
        errors += 1;
      }
    }),
  );
  return { wallMs: performance.now() - started, latencies: latencies.sort((a, b) => a - b), errors };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * 500 concurrent turns through `impact serve`'s app on 127.0.0.1, against a scripted
 * upstream with a fixed latency. Baseline: the same 500 calls straight to the upstream
 * with the same OpenAI client the router uses, in the same run.
 */
export async function run(): Promise<void> {
  const upstream = await startScriptedModelServer(() => ({
    content: "ok",
    usage: { promptTokens: 100, completionTokens: 5 },
    delayMs: UPSTREAM_LATENCY_MS,
  }));
  const upstreamClient = createOpenAIModelClient({
    apiKey: "sk-bench-not-a-real-key",
    baseURL: upstream.url,
    model: "bench",
    retry: { maxRetries: 0 },
  });
  const app = createApp({
    logger: createLogger(() => {}, {}, "warn"),
    router: {
      tokens: [TOKEN],
      upstream: upstreamClient,
      systemPrompt,
      tools: buildToolManifest,
      rateLimit: { perMinute: 1_000_000 },
    },
  });
  const server = await listen(app.fetch, { host: "127.0.0.1", port: 0 });
  const routerClient = createRouterModelClient({
    url: server.url,
    token: TOKEN,
    model: "bench",
    retry: { maxRetries: 0 },
  });
  const request: ModelRequest = {
    model: "bench",
    article: "docs/a.md",
    messages: [
      { role: "system", content: await systemPrompt() },
      { role: "user", content: `Article: docs/a.md\n${"Some article text and hunks. ".repeat(200)}` },
    ],
    tools: buildToolManifest({ allowCreate: false }),
  };

  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 5);
  // Warm both paths (connections, JIT) before measuring.
  await routerClient.complete(request, new AbortController().signal);
  const directOne = await sequential(upstreamClient, request);
  const routedOne = await sequential(routerClient, request);
  const direct = await burst(upstreamClient, request);
  const routed = await burst(routerClient, request);
  clearInterval(sampler);
  await server.close();
  await upstream.close();

  const show = (name: string, figures: Figures) =>
    console.log(
      `${name.padEnd(9)} ${REQUESTS} requests in ${figures.wallMs.toFixed(0)} ms: ${(REQUESTS / (figures.wallMs / 1000)).toFixed(0)} req/s, p50 ${percentile(figures.latencies, 50).toFixed(1)} ms, p99 ${percentile(figures.latencies, 99).toFixed(1)} ms, errors ${figures.errors}`,
    );
  console.log(
    `upstream latency fixed at ${UPSTREAM_LATENCY_MS} ms; client, router and upstream share one process`,
  );
  console.log(
    `one at a time (${SEQUENTIAL}): baseline p50 ${percentile(directOne, 50).toFixed(1)} ms, router p50 ${percentile(routedOne, 50).toFixed(1)} ms; added p50 ${(percentile(routedOne, 50) - percentile(directOne, 50)).toFixed(1)} ms, p99 ${(percentile(routedOne, 99) - percentile(directOne, 99)).toFixed(1)} ms`,
  );
  console.log(`${REQUESTS} concurrent:`);
  show("baseline", direct);
  show("router", routed);
  const addedP50 = percentile(routed.latencies, 50) - percentile(direct.latencies, 50);
  const addedP99 = percentile(routed.latencies, 99) - percentile(direct.latencies, 99);
  console.log(`latency added by the router: p50 ${addedP50.toFixed(1)} ms, p99 ${addedP99.toFixed(1)} ms`);
  console.log(`errors through the router: ${routed.errors} (goal: 0)`);
  console.log(`peak RSS: ${(peakRss / 1024 / 1024).toFixed(0)} MB`);
  console.log(`ratio router/baseline throughput: ${(direct.wallMs / routed.wallMs).toFixed(2)}`);
}
