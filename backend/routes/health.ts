import { Hono } from "hono";
import type { Logger } from "pino";
import type { BackendMetrics } from "../metrics.js";
import { bearerToken, tokenMatches } from "../security.js";
import { fail } from "./fail.js";

/** What /healthz reports of the state store. */
export interface StoreHealth {
  kind: string;
  ping(): Promise<void>;
}

export interface HealthDeps {
  logger: Logger;
  /** Reported by /healthz (503 when it does not answer). */
  store?: StoreHealth;
  /** Served on GET /metrics; absent: 404. */
  metrics?: BackendMetrics;
  /** When set, GET /metrics wants `Authorization: Bearer <this>` (IMPACT_METRICS_TOKEN). */
  metricsToken?: string;
}

/** GET /healthz (no auth) and GET /metrics (Prometheus text; a bearer token when one is set). */
export function healthRoutes(deps: HealthDeps) {
  const app = new Hono();

  app.get("/healthz", async (c) => {
    const store = deps.store;
    if (!store) return c.json({ ok: true });
    try {
      await store.ping();
      return c.json({ ok: true, store: { kind: store.kind, ok: true } });
    } catch (error) {
      deps.logger.error(
        { error: error instanceof Error ? error.message : String(error) },
        "state store unavailable",
      );
      return c.json({ ok: false, store: { kind: store.kind, ok: false } }, 503);
    }
  });

  app.get("/metrics", async (c) => {
    const metrics = deps.metrics;
    if (!metrics) return fail(c, 404, "not_found", "metrics are not served by this server");
    if (deps.metricsToken !== undefined) {
      const presented = bearerToken(c.req.header("authorization"));
      if (presented === undefined || !tokenMatches(presented, [deps.metricsToken])) {
        c.header("www-authenticate", 'Bearer realm="metrics"');
        return fail(c, 401, "unauthorized", "missing or wrong bearer token for /metrics");
      }
    }
    const { registry } = metrics;
    return c.body(await registry.metrics(), 200, { "content-type": registry.contentType });
  });

  return app;
}
