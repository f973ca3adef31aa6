import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { QueueObserver } from "./queue.js";
import { JOB_STATES, type StateStore } from "./store/state-store.js";

/** The server's Prometheus metrics (GET /metrics), in a registry of its own. */
export interface BackendMetrics {
  registry: Registry;
  /** Counts each webhook answer by HTTP status. */
  webhookAnswered(status: number): void;
  /** Adds one run's model usage. */
  modelUsage(usage: { promptTokens: number; completionTokens: number; costUsd?: number | undefined }): void;
  observer: QueueObserver;
  /** Adds the gauges read from the state store: jobs by state, and whether it answers. */
  watchStore(store: StateStore): void;
}

export function createMetrics(): BackendMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "impact_" });
  const webhook = new Counter({
    name: "impact_webhook_deliveries_total",
    help: "Webhook deliveries answered, by HTTP status",
    labelNames: ["status"],
    registers: [registry],
  });
  const tokens = new Counter({
    name: "impact_model_tokens_total",
    help: "Model tokens used by the PR bot's runs, by kind (prompt, completion)",
    labelNames: ["kind"],
    registers: [registry],
  });
  const cost = new Counter({
    name: "impact_model_cost_usd_total",
    help: "Model cost of the PR bot's runs in US dollars (runs whose price is known)",
    registers: [registry],
  });
  const seconds = new Histogram({
    name: "impact_job_duration_seconds",
    help: "How long PR bot jobs took on this instance, by how they ended",
    labelNames: ["outcome"],
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 900],
    registers: [registry],
  });
  const watchStore = (store: StateStore) => {
    new Gauge({
      name: "impact_jobs",
      help: "PR bot jobs in the state store, by state (all instances)",
      labelNames: ["state"],
      registers: [registry],
      async collect() {
        // A store that does not answer shows in impact_state_store_up; this gauge keeps its last values.
        const counts = await store.counts().catch(() => undefined);
        if (counts) for (const state of JOB_STATES) this.set({ state }, counts[state]);
      },
    });
    new Gauge({
      name: "impact_state_store_up",
      help: "1 when the state store answers, else 0",
      registers: [registry],
      async collect() {
        this.set(
          await store.ping().then(
            () => 1,
            () => 0,
          ),
        );
      },
    });
  };
  return {
    registry,
    webhookAnswered: (status) => webhook.inc({ status: String(status) }),
    modelUsage: (usage) => {
      tokens.inc({ kind: "prompt" }, usage.promptTokens);
      tokens.inc({ kind: "completion" }, usage.completionTokens);
      if (usage.costUsd !== undefined) cost.inc(usage.costUsd);
    },
    observer: { jobFinished: (outcome, duration) => seconds.observe({ outcome }, duration) },
    watchStore,
  };
}
