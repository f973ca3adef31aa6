import { setFlagsFromString } from "node:v8";
import { UsageError } from "../../shared/errors.js";
import { defineCommand } from "./define-command.js";

export const command = defineCommand({
  name: "serve",
  description: `Starts the backend: the AgentConvoRouter (POST /v1/impact/turn), the PR comment bot
(POST /webhooks/github), GET /healthz and GET /metrics. Stops cleanly on SIGTERM/SIGINT:
answers the requests in flight, gives running jobs IMPACT_DRAIN_TIMEOUT_MS to finish and
leaves the rest queued in the state store for the next start.`,
  options: {
    host: { type: "string", value: "HOST", help: "interface to bind (default 127.0.0.1)" },
    port: { type: "string", value: "N", help: "port (default PORT, else 8787; 0 picks a free one)" },
  },
  footer: `Router:  IMPACT_SERVER_TOKENS (comma-separated bearer tokens), OPENAI_API_KEY,
         OPENAI_BASE_URL, IMPACT_MODEL, IMPACT_RATE_LIMIT (requests/minute per token)
PR bot:  GITHUB_WEBHOOK_SECRET, and GITHUB_TOKEN or a GitHub App (GITHUB_APP_ID with
         GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE), GITHUB_API_URL,
         IMPACT_BOT_CONCURRENCY, IMPACT_BOT_TIMEOUT_MS, IMPACT_BOT_MAX_PENDING,
         IMPACT_BOT_MAX_PENDING_PER_REPOSITORY, IMPACT_DRAIN_TIMEOUT_MS, IMPACT_JOB_LEASE_MS
State:   IMPACT_DATA_DIR (SQLite, default .impact-server), or DATABASE_URL (Postgres, several instances)`,
  run: async ({ values, io }) => {
    const portText = values.port ?? io.env.PORT ?? "8787";
    if (!/^\d+$/.test(portText) || Number(portText) > 65535) {
      throw new UsageError(`the port must be a number from 0 to 65535, got "${portText}"`);
    }
    const host = values.host ?? "127.0.0.1";
    // The state store's SQLite is WebAssembly. V8's optimizing tier recompiled its hot
    // functions at every start (about half the CPU a start took) for queries that take
    // microseconds either way: the baseline compiler alone is enough here. Set before the
    // binding loads, in this process only (a job's CLI runs in a process of its own).
    setFlagsFromString("--liftoff-only");
    // Only this command in cli/ loads the backend.
    const { backendFromEnv, createApp, createLogger, listen } = await import("../../backend/server.js");
    const logger = createLogger(io.stdout, io.env);
    const { deps, queue, store, drainTimeoutMs, parts } = await backendFromEnv(io.env, logger);
    const app = createApp(deps);
    let server: Awaited<ReturnType<typeof listen>>;
    try {
      server = await listen(app.fetch, {
        host,
        port: Number(portText),
        onClose: async () => {
          await queue?.close(drainTimeoutMs);
          await store?.close();
        },
      });
    } catch (error) {
      await store?.close();
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(`cannot listen on ${host}:${portText}: ${code ?? String(error)}`, {
        cause: error,
      });
    }
    await queue?.start();
    logger.info({ url: server.url, parts }, "listening");
    if (!io.signal.aborted) {
      await new Promise<void>((resolve) =>
        io.signal.addEventListener("abort", () => resolve(), { once: true }),
      );
    }
    logger.info("shutting down: no new connections; finishing requests in flight");
    await server.close();
    logger.info("stopped");
    return 0;
  },
});
