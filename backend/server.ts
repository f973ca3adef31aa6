import { existsSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { type Logger, pino } from "pino";
import { UsageError } from "../shared/errors.js";
import { createGitHubClient, type GitHubClient } from "../shared/github-client.js";
import { GITHUB_API_TIMEOUT_MS } from "../shared/limits.js";
import { DEFAULT_MODEL } from "../shared/model/model-names.js";
import { createOpenAIModelClient } from "../shared/model/openai-client.js";
import { packageRoot } from "../shared/package-root.js";
import { systemPrompt } from "../shared/prompts.js";
import { redactSecrets } from "../shared/redact.js";
import { plural } from "../shared/render/markdown.js";
import { buildToolManifest } from "../shared/tools/manifest.js";
import type { AppDeps } from "./app.js";
import type { ServeEnv, ServeEnvName } from "./env.js";
import { appAuth, type GitHubAuth, privateKeySource, tokenAuth } from "./github-auth.js";
import { createMetrics } from "./metrics.js";
import { PullRequestQueue } from "./queue.js";
import { createPullRequestPipeline } from "./run-job.js";
import { openStateStore, type StateStore } from "./store/state-store.js";
import { WebhookBodyGate } from "./webhook-body.js";

export interface RunningServer {
  url: string;
  port: number;
  /** Stops accepting, waits for in-flight requests, then stops the bot's jobs. */
  close(): Promise<void>;
}

/** Binds a fetch app to host:port (0 for any free port). The one place that opens a socket. */
export async function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  options: { host: string; port: number; onClose?: () => Promise<void> },
): Promise<RunningServer> {
  const { server, port } = await new Promise<{ server: Server; port: number }>((resolve, reject) => {
    const server = serve({ fetch, hostname: options.host, port: options.port }, (info: AddressInfo) =>
      resolve({ server, port: info.port }),
    ) as Server;
    server.once("error", reject);
  });
  // Slow senders may not hold sockets open forever; answers may take longer (the upstream turn).
  server.headersTimeout = 30_000;
  server.requestTimeout = 120_000;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`,
    port,
    close() {
      closing ??= (async () => {
        // close() stops accepting and resolves once in-flight requests are answered;
        // idle keep-alive sockets would hold it open, so they go now.
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
        try {
          await closed;
        } finally {
          clearInterval(idleSweep);
        }
        await options.onClose?.();
      })();
      return closing;
    },
  };
}

/** A pino logger whose every line passes through redactSecrets (env values and key shapes). */
export function createLogger(
  write: (line: string) => void,
  env: Record<string, string | undefined>,
  level = "info",
): Logger {
  return pino(
    {
      level,
      base: null,
      redact: {
        paths: ["*.authorization", "*.headers.authorization", "*.token", "*.apiKey", "*.secret"],
        censor: "[redacted]",
      },
    },
    { write: (line: string) => write(redactSecrets(line, env)) },
  );
}

export interface BackendFromEnv {
  deps: AppDeps;
  /** The PR bot's worker (start it after listening); absent without the bot. */
  queue: PullRequestQueue | undefined;
  store: StateStore | undefined;
  /** On SIGTERM, how long running jobs get to finish before they go back to the queue. */
  drainTimeoutMs: number;
  /** One line per part that is on, for the start-up message. */
  parts: string[];
}

/**
 * Builds the app's dependencies from the parsed environment (backend/env.ts):
 * IMPACT_SERVER_TOKENS + OPENAI_API_KEY (OPENAI_BASE_URL, IMPACT_MODEL) turn the router on;
 * GITHUB_WEBHOOK_SECRET + GITHUB_TOKEN, or + GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY(_FILE)
 * (GITHUB_API_URL), turn the PR bot on, with its state in SQLite under IMPACT_DATA_DIR or
 * in Postgres at DATABASE_URL.
 */
export async function backendFromEnv(
  env: ServeEnv,
  logger: Logger,
  overrides: { cli?: { command: string; args: string[] } } = {},
): Promise<BackendFromEnv> {
  const parts: string[] = [];
  const metrics = createMetrics();
  const deps: AppDeps = { logger, metrics };
  if (env.IMPACT_METRICS_TOKEN !== undefined) deps.metricsToken = env.IMPACT_METRICS_TOKEN;
  const tokens = env.IMPACT_SERVER_TOKENS ?? [];
  const model = env.IMPACT_MODEL ?? DEFAULT_MODEL;
  if (tokens.length > 0) {
    if (!env.OPENAI_API_KEY) throw new UsageError("IMPACT_SERVER_TOKENS is set but OPENAI_API_KEY is not");
    const models = env.IMPACT_ROUTER_MODELS?.length ? env.IMPACT_ROUTER_MODELS : [model];
    const perMinute = env.IMPACT_RATE_LIMIT;
    deps.router = {
      models,
      maxTokens: env.IMPACT_ROUTER_MAX_TOKENS,
      tokenBudget: { tokens: env.IMPACT_ROUTER_TOKENS_PER_DAY },
      tokens,
      upstream: createOpenAIModelClient({
        apiKey: env.OPENAI_API_KEY,
        baseURL: env.OPENAI_BASE_URL,
        model,
      }),
      systemPrompt,
      tools: buildToolManifest,
      rateLimit: { perMinute },
    };
    parts.push(
      `router: POST /v1/impact/turn (${plural(tokens.length, "token")}, ${models.length === 1 ? "model" : "models"} ${models.join(", ")}, ${perMinute}/min per token)`,
    );
  }
  let queue: PullRequestQueue | undefined;
  let store: StateStore | undefined;
  if (env.GITHUB_WEBHOOK_SECRET) {
    // One client for the App's token requests and every job's head check: one throttle.
    const github = createGitHubClient({
      apiUrl: env.GITHUB_API_URL,
      throttle: env.IMPACT_GITHUB_THROTTLE === "on",
      timeoutMs: GITHUB_API_TIMEOUT_MS,
    });
    const auth = githubAuthFromEnv(env, github);
    const runEnv = pick(env, [
      "OPENAI_API_KEY",
      "OPENAI_BASE_URL",
      "IMPACT_MODEL",
      "IMPACT_ROUTER_URL",
      "IMPACT_ROUTER_TOKEN",
      "IMPACT_STATE_KEY",
    ]);
    const commentEnv = pick(env, ["GITHUB_API_URL", "IMPACT_GITHUB_THROTTLE"]);
    const concurrency = env.IMPACT_BOT_CONCURRENCY;
    const maxPending = env.IMPACT_BOT_MAX_PENDING;
    const maxPendingPerRepository = env.IMPACT_BOT_MAX_PENDING_PER_REPOSITORY;
    store = await openStateStore({
      dataDir: resolve(env.IMPACT_DATA_DIR),
      databaseUrl: env.DATABASE_URL,
    });
    const bot = new PullRequestQueue({
      store,
      concurrency,
      maxPending,
      maxPendingPerRepository,
      leaseMs: env.IMPACT_JOB_LEASE_MS,
      soleInstance: store.kind === "sqlite",
      logger,
      observer: metrics.observer,
      run: createPullRequestPipeline({
        cli: overrides.cli ?? {
          command: process.execPath,
          args: [builtCli()],
        },
        runEnv,
        commentEnv,
        auth,
        headCheck: github,
        onUsage: metrics.modelUsage,
        timeoutMs: env.IMPACT_BOT_TIMEOUT_MS,
        // Comment ids and the result cache outlive each job's clone, in the store every
        // instance shares: a push that changes nothing relevant costs nothing.
        state: { store, cacheBytes: env.IMPACT_RESULT_CACHE_BYTES_PER_REPOSITORY },
        logger,
      }),
    });
    queue = bot;
    deps.store = store;
    metrics.watchStore(store);
    deps.webhook = {
      secret: env.GITHUB_WEBHOOK_SECRET,
      enqueue: (job, deliveryKeys) => bot.enqueue(job, deliveryKeys),
      requireInstallation: auth.mode === "app",
      bodies: new WebhookBodyGate({ maxConcurrent: env.IMPACT_WEBHOOK_CONCURRENT_BODIES }),
    };
    parts.push(
      `PR bot: POST /webhooks/github (${auth.mode === "app" ? `GitHub App ${env.GITHUB_APP_ID}` : "GITHUB_TOKEN"}; state in ${store.kind} at ${store.location}; ${concurrency} at once, ${maxPending} waiting at most, ${maxPendingPerRepository} per repository)`,
    );
  }
  if (parts.length === 0) {
    throw new UsageError(
      "nothing to serve; set IMPACT_SERVER_TOKENS and OPENAI_API_KEY (router) and/or GITHUB_WEBHOOK_SECRET and GITHUB_TOKEN (PR bot)",
    );
  }
  return { deps, queue, store, drainTimeoutMs: env.IMPACT_DRAIN_TIMEOUT_MS, parts };
}

/** App mode when GITHUB_APP_ID is set, else token mode with GITHUB_TOKEN. */
function githubAuthFromEnv(env: ServeEnv, github: GitHubClient): GitHubAuth {
  if (env.GITHUB_APP_ID) {
    const privateKey = privateKeySource(env);
    if (!privateKey) {
      throw new UsageError(
        "GITHUB_APP_ID is set but neither GITHUB_APP_PRIVATE_KEY nor GITHUB_APP_PRIVATE_KEY_FILE is",
      );
    }
    return appAuth({ appId: env.GITHUB_APP_ID, privateKey, github });
  }
  if (!env.GITHUB_TOKEN) {
    throw new UsageError("GITHUB_WEBHOOK_SECRET is set but neither GITHUB_TOKEN nor GITHUB_APP_ID is");
  }
  return tokenAuth(env.GITHUB_TOKEN);
}

/**
 * The CLI of the same build as this server (`cli/bin.js` beside `backend/`), so that jobs
 * never run another build's CLI; from the sources, the package's `dist/`.
 */
function builtCli(): string {
  const sibling = fileURLToPath(new URL("../cli/bin.js", import.meta.url));
  return existsSync(sibling) ? sibling : join(packageRoot(), "dist", "cli", "bin.js");
}

function pick(env: ServeEnv, names: ServeEnvName[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (typeof value === "string" && value !== "") out[name] = value;
  }
  return out;
}
