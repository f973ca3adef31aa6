import { existsSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { type Logger, pino } from "pino";
import { UsageError } from "../shared/errors.js";
import {
  DEFAULT_BOT_MAX_PENDING,
  DEFAULT_BOT_MAX_PENDING_PER_REPOSITORY,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_JOB_LEASE_MS,
  DEFAULT_RESULT_CACHE_BYTES_PER_REPOSITORY,
} from "../shared/limits.js";
import { createOpenAIModelClient } from "../shared/model/openai-client.js";
import { DEFAULT_MODEL } from "../shared/model/resolve.js";
import { packageRoot } from "../shared/package-root.js";
import { systemPrompt } from "../shared/prompts.js";
import { redactSecrets } from "../shared/redact.js";
import { plural } from "../shared/render/markdown.js";
import { buildToolManifest } from "../shared/tools/manifest.js";
import { type AppDeps, createApp } from "./app.js";
import { appAuth, type GitHubAuth, privateKeySource, tokenAuth } from "./github-auth.js";
import { createMetrics } from "./metrics.js";
import { PullRequestQueue } from "./queue.js";
import { createPullRequestPipeline } from "./run-job.js";
import { openStateStore, type StateStore } from "./store/state-store.js";
import { WebhookBodyGate } from "./webhook-body.js";

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 8787;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 120;
export const DEFAULT_BOT_TIMEOUT_MS = 15 * 60 * 1000;
/** The server's own state (the SQLite state database), relative to its working directory. */
export const DEFAULT_DATA_DIR = ".impact-server";

type Env = Record<string, string | undefined>;

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
export function createLogger(write: (line: string) => void, env: Env, level = "info"): Logger {
  return pino(
    {
      level,
      base: undefined,
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
 * Builds the app's dependencies from the environment:
 * IMPACT_SERVER_TOKENS + OPENAI_API_KEY (OPENAI_BASE_URL, IMPACT_MODEL) turn the router on;
 * GITHUB_WEBHOOK_SECRET + GITHUB_TOKEN, or + GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY(_FILE)
 * (GITHUB_API_URL), turn the PR bot on, with its state in SQLite under IMPACT_DATA_DIR or
 * in Postgres at DATABASE_URL.
 */
export async function backendFromEnv(
  env: Env,
  logger: Logger,
  overrides: { cli?: { command: string; args: string[] } } = {},
): Promise<BackendFromEnv> {
  const parts: string[] = [];
  const metrics = createMetrics();
  const deps: AppDeps = { logger, metrics };
  const tokens = (env.IMPACT_SERVER_TOKENS ?? "")
    .split(/[\s,]+/)
    .map((token) => token.trim())
    .filter(Boolean);
  const model = env.IMPACT_MODEL || DEFAULT_MODEL;
  if (tokens.length > 0) {
    if (!env.OPENAI_API_KEY) throw new UsageError("IMPACT_SERVER_TOKENS is set but OPENAI_API_KEY is not");
    if (tokens.some((token) => token.length < 16)) {
      throw new UsageError("every token in IMPACT_SERVER_TOKENS needs at least 16 characters");
    }
    const perMinute =
      positiveNumber(env.IMPACT_RATE_LIMIT, "IMPACT_RATE_LIMIT") ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
    const models = (env.IMPACT_ROUTER_MODELS ?? "")
      .split(/[\s,]+/)
      .map((name) => name.trim())
      .filter(Boolean);
    const maxTokens = positiveNumber(env.IMPACT_ROUTER_MAX_TOKENS, "IMPACT_ROUTER_MAX_TOKENS");
    const tokensPerDay = positiveNumber(env.IMPACT_ROUTER_TOKENS_PER_DAY, "IMPACT_ROUTER_TOKENS_PER_DAY");
    deps.router = {
      models: models.length > 0 ? models : [model],
      ...(maxTokens ? { maxTokens: Math.floor(maxTokens) } : {}),
      ...(tokensPerDay ? { tokenBudget: { tokens: Math.floor(tokensPerDay) } } : {}),
      tokens,
      upstream: createOpenAIModelClient({
        apiKey: env.OPENAI_API_KEY,
        ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
        model,
      }),
      systemPrompt,
      tools: buildToolManifest,
      rateLimit: { perMinute },
    };
    parts.push(
      `router: POST /v1/impact/turn (${plural(tokens.length, "token")}, ${deps.router.models!.length === 1 ? "model" : "models"} ${deps.router.models!.join(", ")}, ${perMinute}/min per token)`,
    );
  }
  let queue: PullRequestQueue | undefined;
  let store: StateStore | undefined;
  const drainTimeoutMs =
    positiveNumber(env.IMPACT_DRAIN_TIMEOUT_MS, "IMPACT_DRAIN_TIMEOUT_MS") ?? DEFAULT_DRAIN_TIMEOUT_MS;
  if (env.GITHUB_WEBHOOK_SECRET) {
    const auth = githubAuthFromEnv(env);
    const runEnv = pick(env, [
      "OPENAI_API_KEY",
      "OPENAI_BASE_URL",
      "IMPACT_MODEL",
      "IMPACT_ROUTER_URL",
      "IMPACT_ROUTER_TOKEN",
    ]);
    const commentEnv = pick(env, ["GITHUB_API_URL"]);
    const timeoutMs =
      positiveNumber(env.IMPACT_BOT_TIMEOUT_MS, "IMPACT_BOT_TIMEOUT_MS") ?? DEFAULT_BOT_TIMEOUT_MS;
    const concurrency = positiveNumber(env.IMPACT_BOT_CONCURRENCY, "IMPACT_BOT_CONCURRENCY") ?? 1;
    const maxPending =
      positiveNumber(env.IMPACT_BOT_MAX_PENDING, "IMPACT_BOT_MAX_PENDING") ?? DEFAULT_BOT_MAX_PENDING;
    const maxPendingPerRepository =
      positiveNumber(env.IMPACT_BOT_MAX_PENDING_PER_REPOSITORY, "IMPACT_BOT_MAX_PENDING_PER_REPOSITORY") ??
      DEFAULT_BOT_MAX_PENDING_PER_REPOSITORY;
    const leaseMs = positiveNumber(env.IMPACT_JOB_LEASE_MS, "IMPACT_JOB_LEASE_MS") ?? DEFAULT_JOB_LEASE_MS;
    const cacheBytes = Math.floor(
      positiveNumber(
        env.IMPACT_RESULT_CACHE_BYTES_PER_REPOSITORY,
        "IMPACT_RESULT_CACHE_BYTES_PER_REPOSITORY",
      ) ?? DEFAULT_RESULT_CACHE_BYTES_PER_REPOSITORY,
    );
    const dataDir = resolve(env.IMPACT_DATA_DIR || DEFAULT_DATA_DIR);
    store = await openStateStore({ dataDir, ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}) });
    const bot = new PullRequestQueue({
      store,
      concurrency,
      maxPending,
      maxPendingPerRepository,
      leaseMs,
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
        headCheck: { apiUrl: env.GITHUB_API_URL || "https://api.github.com" },
        onUsage: metrics.modelUsage,
        timeoutMs,
        // Comment ids and the result cache outlive each job's clone, in the store every
        // instance shares: a push that changes nothing relevant costs nothing.
        state: { store, cacheBytes },
        logger,
      }),
    });
    queue = bot;
    const stateStore = store;
    deps.store = stateStore;
    metrics.watchStore(stateStore);
    const concurrentBodies = positiveNumber(
      env.IMPACT_WEBHOOK_CONCURRENT_BODIES,
      "IMPACT_WEBHOOK_CONCURRENT_BODIES",
    );
    deps.webhook = {
      secret: env.GITHUB_WEBHOOK_SECRET,
      enqueue: (job, deliveryKeys) => bot.enqueue(job, deliveryKeys),
      requireInstallation: auth.mode === "app",
      ...(concurrentBodies
        ? { bodies: new WebhookBodyGate({ maxConcurrent: Math.floor(concurrentBodies) }) }
        : {}),
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
  return { deps, queue, store, drainTimeoutMs, parts };
}

/** App mode when GITHUB_APP_ID is set, else token mode with GITHUB_TOKEN. */
function githubAuthFromEnv(env: Env): GitHubAuth {
  if (env.GITHUB_APP_ID) {
    if (!/^\d+$/.test(env.GITHUB_APP_ID)) {
      throw new UsageError(`GITHUB_APP_ID must be the App's numeric id, got "${env.GITHUB_APP_ID}"`);
    }
    if (!env.GITHUB_APP_PRIVATE_KEY && !env.GITHUB_APP_PRIVATE_KEY_FILE) {
      throw new UsageError(
        "GITHUB_APP_ID is set but neither GITHUB_APP_PRIVATE_KEY nor GITHUB_APP_PRIVATE_KEY_FILE is",
      );
    }
    return appAuth({
      appId: env.GITHUB_APP_ID,
      privateKey: privateKeySource(env),
      ...(env.GITHUB_API_URL ? { apiUrl: env.GITHUB_API_URL } : {}),
    });
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

function pick(env: Env, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value) out[name] = value;
  }
  return out;
}

function positiveNumber(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === "") return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new UsageError(`${name} must be a positive number, got "${value}"`);
  return number;
}

export { createApp };
