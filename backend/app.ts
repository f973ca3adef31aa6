import { Hono } from "hono";
import type { Logger } from "pino";
import type { BackendMetrics } from "./metrics.js";
import { fail } from "./routes/fail.js";
import { healthRoutes, type StoreHealth } from "./routes/health.js";
import { type RouterDeps, turnRoutes } from "./routes/turn.js";
import { type WebhookDeps, webhookRoutes } from "./routes/webhook.js";

export interface AppDeps {
  logger: Logger;
  /** Absent: the router endpoint answers 503 not_configured. */
  router?: RouterDeps;
  /** Absent: the webhook answers 503 not_configured. */
  webhook?: WebhookDeps;
  /** Reported by /healthz (503 when it does not answer). */
  store?: StoreHealth;
  /** Served on GET /metrics; absent: 404. */
  metrics?: BackendMetrics;
  /** When set, GET /metrics wants it as a bearer token (IMPACT_METRICS_TOKEN). */
  metricsToken?: string;
  now?: (() => number) | undefined;
}

/**
 * The backend as a fetch(Request) → Response app (`app.fetch`): one sub-app per route
 * group (routes/turn.ts, routes/webhook.ts, routes/health.ts), each built only from the
 * dependencies it needs; a part that is not configured answers 503. It binds no port;
 * backend/server.ts does.
 */
export function createApp(deps: AppDeps): Hono {
  const { logger } = deps;
  const app = new Hono();
  app.onError((error, c) => {
    logger.error({ err: { name: error.name, message: error.message } }, "unhandled error");
    return fail(c, 500, "internal", "internal error");
  });
  app.notFound((c) => fail(c, 404, "not_found", `no route for ${c.req.method} ${c.req.path}`));

  const { metrics } = deps;
  if (metrics) {
    app.use("/webhooks/github", async (c, next) => {
      await next();
      metrics.webhookAnswered(c.res.status);
    });
  }

  app.route("/", healthRoutes(deps));
  if (deps.router) {
    app.route("/", turnRoutes(deps.router, deps));
  } else {
    app.post("/v1/impact/turn", (c) =>
      fail(c, 503, "not_configured", "the router is not configured on this server"),
    );
  }
  if (deps.webhook) {
    app.route("/", webhookRoutes(deps.webhook, deps));
  } else {
    app.post("/webhooks/github", (c) =>
      fail(c, 503, "not_configured", "the webhook is not configured on this server"),
    );
  }
  return app;
}
