import { setFlagsFromString } from "node:v8";
import { DEFAULT_HOST, DEFAULT_PORT, parsePort, parseServeEnv, serveEnvHelp } from "../../backend/env.js";
import { UsageError } from "../../shared/errors.js";
import { defineCommand } from "./define-command.js";

export const command = defineCommand({
  name: "serve",
  description: `Starts the backend: the AgentConvoRouter (POST /v1/impact/turn), the PR comment bot
(POST /webhooks/github), GET /healthz and GET /metrics. Stops cleanly on SIGTERM/SIGINT:
answers the requests in flight, gives running jobs IMPACT_DRAIN_TIMEOUT_MS to finish and
leaves the rest queued in the state store for the next start.`,
  options: {
    host: { type: "string", value: "HOST", help: `interface to bind (default ${DEFAULT_HOST})` },
    port: {
      type: "string",
      value: "N",
      help: `port (default PORT, else ${DEFAULT_PORT}; 0 picks a free one)`,
    },
  },
  footer: serveEnvHelp(),
  run: async ({ values, io }) => {
    const env = parseServeEnv(io.env);
    const port = values.port === undefined ? (env.PORT ?? DEFAULT_PORT) : parsePort(values.port, "--port");
    const host = values.host ?? DEFAULT_HOST;
    // The state store's SQLite is WebAssembly. V8's optimizing tier recompiled its hot
    // functions at every start (about half the CPU a start took) for queries that take
    // microseconds either way: the baseline compiler alone is enough here. Set before the
    // binding loads, in this process only (a job's CLI runs in a process of its own).
    setFlagsFromString("--liftoff-only");
    // Only this command in cli/ loads the backend (its environment table above is a small module).
    const [{ createApp }, { backendFromEnv, createLogger, listen }] = await Promise.all([
      import("../../backend/app.js"),
      import("../../backend/server.js"),
    ]);
    const logger = createLogger(io.stdout, io.env);
    const { deps, queue, store, drainTimeoutMs, parts } = await backendFromEnv(env, logger);
    const app = createApp(deps);
    let server: Awaited<ReturnType<typeof listen>>;
    try {
      server = await listen(app.fetch, {
        host,
        port,
        onClose: async () => {
          await queue?.close(drainTimeoutMs);
          await store?.close();
        },
      });
    } catch (error) {
      await store?.close();
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(`cannot listen on ${host}:${port}: ${code ?? String(error)}`, {
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
