import { z } from "zod";
import { ModelApiError, ModelProtocolError } from "../errors.js";
import { DEFAULT_ROUTER_TIMEOUT_MS, MAX_USAGE_TOKENS } from "../limits.js";
import { redactSecrets } from "../redact.js";
import { describeFirstIssue } from "../zod-issues.js";
import { abortErrorFor, parseRetryAfter, type RetryOptions, retryLoopPolicy, withRetries } from "./retry.js";
import type { ModelClient, ModelRequest, ModelResponse } from "./types.js";

/** Path of the AgentConvoRouter's turn endpoint. */
const TURN_PATH = "/v1/impact/turn";

const ToolCallSchema = z.object({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const ContentPartSchema = z.object({ type: z.literal("text"), text: z.string() });

/** One chat message after the system prompt: what a client may send to the router. */
const TurnMessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("user"), content: z.union([z.string(), z.array(ContentPartSchema).min(1)]) }),
  z.object({
    role: z.literal("assistant"),
    content: z.union([z.string(), z.null()]).optional(),
    tool_calls: z.array(ToolCallSchema).optional(),
  }),
  z.object({
    role: z.literal("tool"),
    tool_call_id: z.string().min(1),
    content: z.union([z.string(), z.array(ContentPartSchema).min(1)]),
  }),
]);

/** The body of POST /v1/impact/turn. */
export const TurnRequestSchema = z.object({
  article: z.object({ path: z.string().min(1).max(4096) }),
  messages: z.array(TurnMessageSchema).min(1).max(1000),
  model: z.string().min(1).max(200).optional(),
  /** Whether create_article belongs in the manifest (`--allow-create`). */
  allowCreate: z.boolean().optional(),
});

/** The 200 answer of POST /v1/impact/turn. */
const TurnResponseSchema = z.object({
  message: z.object({
    role: z.literal("assistant"),
    content: z.union([z.string(), z.null()]),
    tool_calls: z.array(ToolCallSchema).optional(),
  }),
  usage: z.object({
    promptTokens: z.number().int().nonnegative().max(MAX_USAGE_TOKENS),
    completionTokens: z.number().int().nonnegative().max(MAX_USAGE_TOKENS),
    cachedPromptTokens: z.number().int().nonnegative().max(MAX_USAGE_TOKENS).optional(),
    /** The upstream reported no usage: `--max-cost` charges the call's reservation. */
    unreported: z.literal(true).optional(),
  }),
  finishReason: z.union([z.string(), z.null()]).optional(),
});

type TurnRequest = z.infer<typeof TurnRequestSchema>;
export type TurnResponse = z.infer<typeof TurnResponseSchema>;

export interface RouterModelClientOptions extends RetryOptions {
  /** The router's base URL (`impact serve`), e.g. https://impact.example.com. */
  url: string;
  /** Bearer token, one of the router's IMPACT_SERVER_TOKENS. */
  token?: string | undefined;
  model: string;
  /** Per attempt; default 180 s (the router has its own upstream timeout). */
  timeoutMs?: number | undefined;
}

/**
 * A ModelClient that drives the model through the AgentConvoRouter: it sends the
 * conversation after the system prompt (the router adds its own prompt and the tool
 * manifest) and gets the assistant message back. Tools still run here, on the client.
 * Retries 429 (after `retry-after`), 502/503/504 and dropped connections.
 */
export function createRouterModelClient(options: RouterModelClientOptions): ModelClient {
  const endpoint = turnUrl(options.url);
  const timeoutMs = options.timeoutMs ?? DEFAULT_ROUTER_TIMEOUT_MS;
  const redact = (text: string) =>
    redactSecrets(options.token ? text.split(options.token).join("[redacted]") : text, {});

  async function attempt(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    const body: TurnRequest = {
      article: { path: request.article },
      // The router owns the system prompt; everything before the first non-system message stays here.
      messages: request.messages.filter((message) => message.role !== "system") as TurnRequest["messages"],
      // An empty model leaves the choice to the router.
      model: request.model || undefined,
      allowCreate: request.allowCreate,
    };
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, timeout]),
      });
    } catch (error) {
      if (signal.aborted) throw abortErrorFor(signal);
      if (timeout.aborted) {
        throw new ModelApiError(`router: no answer within ${timeoutMs} ms`, {
          retryable: true,
          reason: "timeout",
          cause: error,
        });
      }
      throw new ModelApiError(
        `router: connection to ${new URL(endpoint).origin} failed: ${redact(String(error))}`,
        { retryable: true, reason: "connection", cause: error },
      );
    }
    const text = await response.text().catch((error: unknown) => {
      if (signal.aborted) throw abortErrorFor(signal);
      throw new ModelApiError(`router: connection dropped: ${redact(String(error))}`, {
        retryable: true,
        reason: "connection",
      });
    });
    if (!response.ok) {
      const { message: detail, code: apiCode } = errorBody(text);
      const retryable =
        response.status === 429 ||
        response.status === 502 ||
        response.status === 503 ||
        response.status === 504;
      const hint = response.status === 401 ? " (check IMPACT_ROUTER_TOKEN)" : "";
      const retryAfterMs = parseRetryAfter(response.headers);
      throw new ModelApiError(`router: HTTP ${response.status}: ${redact(detail)}${hint}`, {
        retryable,
        reason: "status",
        status: response.status,
        retryAfterMs,
        apiCode,
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new ModelProtocolError("router: the answer is not JSON", { cause: error });
    }
    const parsed = TurnResponseSchema.safeParse(json);
    if (!parsed.success) {
      throw new ModelProtocolError(
        `router: unexpected answer: ${describeFirstIssue(parsed.error.issues, { root: "(top level)" })}`,
      );
    }
    const { message, usage, finishReason } = parsed.data;
    return {
      message: {
        role: "assistant",
        content: message.content,
        ...(message.tool_calls && message.tool_calls.length > 0 ? { tool_calls: message.tool_calls } : {}),
      },
      finishReason:
        finishReason ?? (message.tool_calls && message.tool_calls.length > 0 ? "tool_calls" : "stop"),
      usage,
      retries: 0,
    };
  }

  return {
    model: options.model,
    endpoint: options.url,
    credential: "IMPACT_ROUTER_TOKEN",
    async complete(request, signal) {
      const { value, retries } = await withRetries(
        retryLoopPolicy(options),
        (attemptSignal) => attempt(request, attemptSignal),
        (error) => {
          // attempt() throws ModelApiError for every API failure; anything else is not retried.
          if (error instanceof ModelApiError) return error;
          throw error;
        },
        signal,
      );
      return { ...value, retries };
    },
  };
}

function turnUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, "");
  return trimmed.endsWith(TURN_PATH) ? trimmed : `${trimmed}${TURN_PATH}`;
}

/** The router's error answer: `{error: {code, message}}`, or the start of whatever else came. */
function errorBody(text: string): { message: string; code?: string | undefined } {
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown; code?: unknown } };
    if (typeof json.error?.message === "string")
      return {
        message: json.error.message.slice(0, 500),
        code: typeof json.error.code === "string" ? json.error.code.slice(0, 100) : undefined,
      };
  } catch {
    // not our JSON error shape
  }
  return { message: text.slice(0, 200) || "no body" };
}
