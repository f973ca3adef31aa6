import { createHash } from "node:crypto";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "pino";
import { z } from "zod";
import { isAbortError, ModelApiError, ModelProtocolError } from "../shared/errors.js";
import {
  DEFAULT_ROUTER_MAX_TOKENS,
  DEFAULT_ROUTER_TOKENS_PER_DAY,
  ROUTER_BYTES_PER_TOKEN,
  ROUTER_TOKEN_WINDOW_MS,
  TURN_BODY_LIMIT,
} from "../shared/limits.js";
import { TurnRequestSchema, type TurnResponse } from "../shared/model/router-client.js";
import type { ChatMessage, ModelClient, ToolDefinition } from "../shared/model/types.js";
import type { PullRequestJob } from "./job.js";
import type { BackendMetrics } from "./metrics.js";
import { RateLimiter, TokenBudget, tokenId, tokenMatches } from "./security.js";
import type { EnqueueOutcome } from "./store/state-store.js";
import { WebhookBodyGate } from "./webhook-body.js";

export const DEFAULT_TURN_TIMEOUT_MS = 150_000;

const ACTED_ON = new Set(["opened", "synchronize", "reopened", "ready_for_review"]);

export interface RouterDeps {
  /** Accepted bearer tokens (IMPACT_SERVER_TOKENS). */
  tokens: readonly string[];
  /** The upstream model (createOpenAIModelClient with the server's key). */
  upstream: ModelClient;
  systemPrompt: () => Promise<string>;
  /** The same manifest the CLI uses (buildToolManifest). */
  tools: (options: { allowCreate: boolean }) => ToolDefinition[];
  rateLimit: { perMinute: number; burst?: number };
  /** Whole-turn time limit, upstream retries included. */
  timeoutMs?: number;
  /** Model names a client may ask for (IMPACT_ROUTER_MODELS); default: the upstream's model only. */
  models?: readonly string[];
  /** Completion tokens asked of the upstream per turn, whatever the client sends (IMPACT_ROUTER_MAX_TOKENS). */
  maxTokens?: number;
  /** Tokens each bearer token may use per window (IMPACT_ROUTER_TOKENS_PER_DAY). */
  tokenBudget?: { tokens: number; windowMs?: number };
}

export interface WebhookDeps {
  secret: string;
  /** Reads and verifies bodies; default: a gate with the caps of shared/limits.ts. */
  bodies?: WebhookBodyGate;
  /**
   * Records the delivery by its keys (`delivery:<X-GitHub-Delivery>` and `body:<sha256 of
   * the signed body>`, so a replayed body under a fresh id is a duplicate too) and takes its
   * job, as one step (see EnqueueOutcome): queued, superseding an older push, a duplicate,
   * stale, or refused when full. A refused delivery, or one whose step failed, is not
   * recorded, so GitHub's redelivery is taken.
   */
  enqueue: (job: PullRequestJob, deliveryKeys: readonly string[]) => Promise<EnqueueOutcome> | EnqueueOutcome;
  /** App mode: a delivery that names no installation is ignored (204). */
  requireInstallation?: boolean;
}

/** What /healthz reports of the state store. */
export interface StoreHealth {
  kind: string;
  ping(): Promise<void>;
}

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
  now?: () => number;
}

export type ErrorCode =
  | "invalid_body"
  | "invalid_json"
  | "unauthorized"
  | "body_too_large"
  | "body_timeout"
  | "busy"
  | "rate_limited"
  | "upstream_error"
  | "upstream_timeout"
  | "not_configured"
  | "model_not_allowed"
  | "token_budget"
  | "not_found"
  | "queue_full"
  | "internal";

type AppEnv = { Variables: { tokenId: string; webhookBody: Uint8Array } };

function fail(
  c: Context,
  status: ContentfulStatusCode,
  code: ErrorCode,
  message: string,
  extra: object = {},
) {
  return c.json({ error: { code, message, ...extra } }, status);
}

const PullRequestEventSchema = z.object({
  action: z.string(),
  number: z.number().int().positive(),
  pull_request: z.object({
    head: z.object({ sha: z.string().regex(/^[0-9a-f]{40}$/) }),
    base: z.object({ sha: z.string().regex(/^[0-9a-f]{40}$/) }),
    updated_at: z.string().datetime().optional(),
  }),
  installation: z.object({ id: z.number().int().positive() }).optional(),
  repository: z.object({
    full_name: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/),
    clone_url: z.string().min(1).max(2048),
  }),
});

function issuesOf(error: z.ZodError) {
  return error.issues.slice(0, 20).map((issue) => ({ path: issue.path.join("."), message: issue.message }));
}

/**
 * The backend as a fetch(Request) → Response app (`app.fetch`): the AgentConvoRouter
 * (POST /v1/impact/turn), the PR comment bot webhook (POST /webhooks/github) and
 * GET /healthz. It binds no port; backend/server.ts does.
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const { logger } = deps;
  const app = new Hono<AppEnv>();
  const limiter = deps.router
    ? new RateLimiter({ ...deps.router.rateLimit, ...(deps.now ? { now: deps.now } : {}) })
    : undefined;
  const tokenBudget = deps.router
    ? new TokenBudget({
        tokens: deps.router.tokenBudget?.tokens ?? DEFAULT_ROUTER_TOKENS_PER_DAY,
        windowMs: deps.router.tokenBudget?.windowMs ?? ROUTER_TOKEN_WINDOW_MS,
        ...(deps.now ? { now: deps.now } : {}),
      })
    : undefined;
  const allowedModels = deps.router ? new Set(deps.router.models ?? [deps.router.upstream.model]) : new Set();
  // The manifest is the same for every turn with the same options; build it once.
  const manifests = new Map<boolean, ToolDefinition[]>();
  const toolsFor = (allowCreate: boolean): ToolDefinition[] => {
    let tools = manifests.get(allowCreate);
    if (!tools) {
      tools = deps.router!.tools({ allowCreate });
      manifests.set(allowCreate, tools);
    }
    return tools;
  };

  app.onError((error, c) => {
    logger.error({ err: { name: error.name, message: error.message } }, "unhandled error");
    return fail(c, 500, "internal", "internal error");
  });
  app.notFound((c) => fail(c, 404, "not_found", `no route for ${c.req.method} ${c.req.path}`));

  app.get("/healthz", async (c) => {
    const store = deps.store;
    if (!store) return c.json({ ok: true });
    try {
      await store.ping();
      return c.json({ ok: true, store: { kind: store.kind, ok: true } });
    } catch (error) {
      logger.error(
        { error: error instanceof Error ? error.message : String(error) },
        "state store unavailable",
      );
      return c.json({ ok: false, store: { kind: store.kind, ok: false } }, 503);
    }
  });

  app.get("/metrics", async (c) => {
    if (!deps.metrics) return fail(c, 404, "not_found", "metrics are not served by this server");
    const { registry } = deps.metrics;
    return c.body(await registry.metrics(), 200, { "content-type": registry.contentType });
  });

  app.use("/webhooks/github", async (c, next) => {
    await next();
    deps.metrics?.webhookAnswered(c.res.status);
  });

  app.post(
    "/v1/impact/turn",
    async (c, next) => {
      const router = deps.router;
      if (!router || !limiter)
        return fail(c, 503, "not_configured", "the router is not configured on this server");
      const header = c.req.header("authorization") ?? "";
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match || !tokenMatches(match[1]!, router.tokens)) {
        return fail(c, 401, "unauthorized", "missing or wrong bearer token");
      }
      const key = tokenId(match[1]!);
      const decision = limiter.take(key);
      if (!decision.allowed) {
        c.header("retry-after", String(decision.retryAfterSeconds));
        return fail(c, 429, "rate_limited", `rate limit reached; retry in ${decision.retryAfterSeconds}s`);
      }
      c.set("tokenId", key);
      await next();
    },
    bodyLimit({
      maxSize: TURN_BODY_LIMIT,
      onError: (c) => fail(c, 413, "body_too_large", `request body over ${TURN_BODY_LIMIT} bytes`),
    }),
    async (c) => {
      const router = deps.router!;
      let json: unknown;
      try {
        json = JSON.parse(await c.req.text());
      } catch {
        return fail(c, 400, "invalid_json", "the body is not JSON");
      }
      const parsed = TurnRequestSchema.safeParse(json);
      if (!parsed.success) {
        const issues = issuesOf(parsed.error);
        const first = issues[0];
        return fail(c, 400, "invalid_body", `invalid body at ${first?.path || "(top)"}: ${first?.message}`, {
          issues,
        });
      }
      const turn = parsed.data;
      // The router is no general model proxy: its own models, prompt, manifest and token caps.
      const model = turn.model ?? router.upstream.model;
      if (!allowedModels.has(model))
        return fail(
          c,
          400,
          "model_not_allowed",
          `model ${JSON.stringify(model.slice(0, 100))} is not served by this router; ask for one of: ${[...allowedModels].join(", ")}`,
        );
      const estimate = Math.ceil(JSON.stringify(turn.messages).length / ROUTER_BYTES_PER_TOKEN);
      const budget = tokenBudget!.check(c.get("tokenId"), estimate);
      if (!budget.allowed) {
        c.header("retry-after", String(budget.retryAfterSeconds));
        return fail(
          c,
          429,
          "token_budget",
          `this token's model budget is used up (${budget.remaining} tokens left, the turn needs about ${estimate}); retry in ${budget.retryAfterSeconds}s`,
        );
      }
      const allowCreate = turn.allowCreate ?? false;
      const timeoutMs = router.timeoutMs ?? DEFAULT_TURN_TIMEOUT_MS;
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([timeout, c.req.raw.signal]);
      const started = performance.now();
      const log = logger.child({ tokenId: c.get("tokenId"), article: turn.article.path });
      try {
        const response = await router.upstream.complete(
          {
            model,
            article: turn.article.path,
            messages: [
              { role: "system", content: await router.systemPrompt() },
              ...(turn.messages as ChatMessage[]),
            ],
            tools: toolsFor(allowCreate),
            allowCreate,
            maxTokens: router.maxTokens ?? DEFAULT_ROUTER_MAX_TOKENS,
          },
          signal,
        );
        tokenBudget!.charge(c.get("tokenId"), response.usage.promptTokens + response.usage.completionTokens);
        log.info(
          { ms: Math.round(performance.now() - started), usage: response.usage, retries: response.retries },
          "turn answered",
        );
        const body: TurnResponse = {
          message: {
            role: "assistant",
            content: response.message.content,
            ...(response.message.tool_calls ? { tool_calls: response.message.tool_calls } : {}),
          },
          usage: response.usage,
          finishReason: response.finishReason,
        };
        return c.json(body, 200);
      } catch (error) {
        const ms = Math.round(performance.now() - started);
        const message = error instanceof Error ? error.message : String(error);
        if (timeout.aborted || (error instanceof ModelApiError && error.reason === "timeout")) {
          log.warn({ ms, error: message }, "upstream timeout");
          return fail(c, 504, "upstream_timeout", `the upstream model did not answer within ${timeoutMs} ms`);
        }
        if (isAbortError(error)) {
          log.info({ ms }, "client went away");
          return fail(c, 504, "upstream_timeout", "the request was aborted");
        }
        if (error instanceof ModelApiError || error instanceof ModelProtocolError) {
          log.warn({ ms, error: message }, "upstream error");
          // The upstream's own words stay in the (redacted) log; the client gets the status only.
          const status = error instanceof ModelApiError && error.status ? `HTTP ${error.status}` : error.code;
          return fail(c, 502, "upstream_error", `the upstream model failed (${status})`);
        }
        throw error;
      }
    },
  );

  const bodies = deps.webhook?.bodies ?? new WebhookBodyGate();
  app.post(
    "/webhooks/github",
    // Hashed as it streams in, refused early (no signature, too large, too many at once).
    async (c, next) => {
      const webhook = deps.webhook;
      if (!webhook) return fail(c, 503, "not_configured", "the webhook is not configured on this server");
      const body = await bodies.read(c.req.raw, webhook.secret);
      if (!body.ok) {
        if (body.status === 503) c.header("retry-after", String(body.retryAfterSeconds));
        return fail(c, body.status, body.code, body.message);
      }
      c.set("webhookBody", body.raw);
      await next();
    },
    async (c) => {
      const webhook = deps.webhook!;
      const raw = c.get("webhookBody");
      const event = c.req.header("x-github-event") ?? "";
      const delivery = c.req.header("x-github-delivery") ?? "";
      if (!/^[A-Za-z0-9-]{1,100}$/.test(delivery)) {
        return fail(c, 400, "invalid_body", "missing or malformed X-GitHub-Delivery");
      }
      const log = logger.child({ delivery, event });
      let json: unknown;
      try {
        json = JSON.parse(new TextDecoder().decode(raw));
      } catch {
        return fail(c, 400, "invalid_json", "the body is not JSON");
      }
      const action = (json as { action?: unknown } | null)?.action;
      if (event !== "pull_request" || typeof action !== "string" || !ACTED_ON.has(action)) {
        log.info({ action }, "event ignored");
        return c.body(null, 204);
      }
      const parsed = PullRequestEventSchema.safeParse(json);
      if (!parsed.success) {
        const issues = issuesOf(parsed.error);
        return fail(c, 400, "invalid_body", `invalid pull_request payload at ${issues[0]?.path || "(top)"}`, {
          issues,
        });
      }
      const payload = parsed.data;
      if (webhook.requireInstallation && !payload.installation) {
        log.info("delivery names no App installation; ignored");
        return c.body(null, 204);
      }
      const job: PullRequestJob = {
        deliveryId: delivery,
        repository: { fullName: payload.repository.full_name, cloneUrl: payload.repository.clone_url },
        number: payload.number,
        headSha: payload.pull_request.head.sha,
        baseSha: payload.pull_request.base.sha,
        ...(payload.installation ? { installationId: payload.installation.id } : {}),
        ...(payload.pull_request.updated_at ? { updatedAt: payload.pull_request.updated_at } : {}),
      };
      const keys = [`delivery:${delivery}`, `body:${createHash("sha256").update(raw).digest("hex")}`];
      const outcome = await webhook.enqueue(job, keys);
      if (outcome === "duplicate") {
        log.info("duplicate delivery ignored");
        return c.body(null, 204);
      }
      if (outcome === "full" || outcome === "repository_full") {
        log.warn({ repository: job.repository.fullName, outcome }, "queue full; delivery refused");
        c.header("retry-after", "60");
        return fail(
          c,
          503,
          "queue_full",
          outcome === "full"
            ? "too many pull requests queued; redeliver later"
            : `too many pull requests of ${job.repository.fullName} queued; redeliver later`,
        );
      }
      if (outcome === "stale") {
        log.info(
          { repository: job.repository.fullName, pr: job.number },
          "older than the PR's latest delivery; ignored",
        );
        return c.body(null, 204);
      }
      log.info({ repository: job.repository.fullName, pr: job.number, outcome }, "pull request queued");
      return c.json({ queued: true, superseded: outcome === "superseded" }, 202);
    },
  );

  return app;
}
