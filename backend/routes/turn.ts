import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Logger } from "pino";
import { isAbortError, ModelApiError, ModelProtocolError } from "../../shared/errors.js";
import {
  DEFAULT_ROUTER_MAX_TOKENS,
  DEFAULT_ROUTER_TOKENS_PER_DAY,
  ROUTER_BYTES_PER_TOKEN,
  ROUTER_TOKEN_WINDOW_MS,
  TURN_BODY_LIMIT,
} from "../../shared/limits.js";
import { TurnRequestSchema, type TurnResponse } from "../../shared/model/router-client.js";
import type { ChatMessage, ModelClient, ToolDefinition } from "../../shared/model/types.js";
import { bearerToken, RateLimiter, TokenBudget, tokenId, tokenMatches } from "../security.js";
import { fail, failInvalidBody } from "./fail.js";

const DEFAULT_TURN_TIMEOUT_MS = 150_000;

export interface RouterDeps {
  /** Accepted bearer tokens (IMPACT_SERVER_TOKENS). */
  tokens: readonly string[];
  /** The upstream model (createOpenAIModelClient with the server's key). */
  upstream: ModelClient;
  systemPrompt: () => Promise<string>;
  /** The same manifest the CLI uses (buildToolManifest, which builds each variant once). */
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

type TurnEnv = { Variables: { tokenId: string } };

/**
 * The AgentConvoRouter, POST /v1/impact/turn: a bearer token of `router.tokens`, its rate
 * limit and token budget, then one upstream turn with the router's own system prompt,
 * manifest, models and token cap.
 */
export function turnRoutes(
  router: RouterDeps,
  options: { logger: Logger; now?: (() => number) | undefined },
) {
  const { logger } = options;
  const limiter = new RateLimiter({ ...router.rateLimit, now: options.now });
  const tokenBudget = new TokenBudget({
    tokens: router.tokenBudget?.tokens ?? DEFAULT_ROUTER_TOKENS_PER_DAY,
    windowMs: router.tokenBudget?.windowMs ?? ROUTER_TOKEN_WINDOW_MS,
    now: options.now,
  });
  const allowedModels = new Set(router.models ?? [router.upstream.model]);
  const timeoutMs = router.timeoutMs ?? DEFAULT_TURN_TIMEOUT_MS;
  const app = new Hono<TurnEnv>();

  app.post(
    "/v1/impact/turn",
    async (c, next) => {
      const presented = bearerToken(c.req.header("authorization"));
      if (presented === undefined || !tokenMatches(presented, router.tokens)) {
        return fail(c, 401, "unauthorized", "missing or wrong bearer token");
      }
      const key = tokenId(presented);
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
      let json: unknown;
      try {
        json = JSON.parse(await c.req.text());
      } catch {
        return fail(c, 400, "invalid_json", "the body is not JSON");
      }
      const parsed = TurnRequestSchema.safeParse(json);
      if (!parsed.success) return failInvalidBody(c, "invalid body", parsed.error, true);
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
      const budget = tokenBudget.check(c.get("tokenId"), estimate);
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
            tools: router.tools({ allowCreate }),
            allowCreate,
            maxTokens: router.maxTokens ?? DEFAULT_ROUTER_MAX_TOKENS,
          },
          signal,
        );
        tokenBudget.charge(c.get("tokenId"), response.usage.promptTokens + response.usage.completionTokens);
        log.info(
          { ms: Math.round(performance.now() - started), usage: response.usage, retries: response.retries },
          "turn answered",
        );
        const body: TurnResponse = {
          message: {
            role: "assistant",
            content: response.message.content,
            tool_calls: response.message.tool_calls,
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
  return app;
}
