import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
} from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import { ModelApiError, type ModelErrorReason, ModelProtocolError } from "../errors.js";
import { DEFAULT_TIMEOUT_MS, PREFLIGHT_TIMEOUT_MS } from "../limits.js";
import { redactSecrets } from "../redact.js";
import { parseRetryAfter, type RetryOptions, retryLoopPolicy, withRetries } from "./retry.js";
import type {
  AssistantMessage,
  ModelClient,
  ModelRequest,
  ModelResponse,
  ModelUsage,
  ToolCall,
} from "./types.js";
import { checkedUsage } from "./usage.js";

export interface OpenAIModelClientOptions extends RetryOptions {
  apiKey: string;
  /** Any OpenAI-compatible server; default https://api.openai.com/v1. */
  baseURL?: string | undefined;
  model: string;
  /** Stream the answer (SSE) and assemble it; default false. */
  stream?: boolean | undefined;
  /** Per attempt, covering the whole answer (a stream included); default 120 s. */
  timeoutMs?: number | undefined;
}

const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";

/** HTTP statuses worth another try: timeouts, lock conflicts, rate limits, server errors. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** A stream that ended before its answer was complete: retried like a dropped connection. */
class StreamCutOff extends Error {
  constructor() {
    super("the stream ended before the answer was complete");
    this.name = "StreamCutOff";
  }
}

/** undici's ways of saying the connection went away in the middle of a body. */
const DROPPED = /terminated|other side closed|socket|ECONNRESET|EPIPE|fetch failed|premature close/i;

/**
 * A ModelClient over the openai SDK's chat completions with tools. The SDK's own retry is
 * off (`maxRetries: 0`): it neither caps `retry-after` nor stops its sleep on abort, so this
 * client retries 429s, 5xx, timeouts and dropped connections itself.
 */
export function createOpenAIModelClient(options: OpenAIModelClientOptions): ModelClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const baseURL = options.baseURL ?? DEFAULT_OPENAI_BASE_URL;
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL,
    maxRetries: 0,
    // Our own timer governs each attempt; the SDK's is only a backstop.
    timeout: timeoutMs + 5_000,
  });
  const redact = (text: string) =>
    redactSecrets(options.apiKey ? text.split(options.apiKey).join("[redacted]") : text, {});

  async function attempt(
    request: ModelRequest,
    signal: AbortSignal,
  ): Promise<Omit<ModelResponse, "retries">> {
    const body: ChatCompletionCreateParamsBase = {
      model: request.model || options.model,
      messages: request.messages,
      ...(request.tools.length > 0 ? { tools: request.tools } : {}),
      ...(request.maxTokens !== undefined ? { max_completion_tokens: request.maxTokens } : {}),
    };
    if (options.stream) {
      const stream = await client.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        { signal },
      );
      return assembleStream(stream, signal);
    }
    const completion = await client.chat.completions.create({ ...body, stream: false }, { signal });
    return normaliseCompletion(completion);
  }

  /** Sorts a failed attempt into "try again" or "give up"; anything not from the API is thrown on. */
  function classify(error: unknown, timedOut: boolean): ModelApiError {
    const failure = (
      message: string,
      details: {
        retryable: boolean;
        reason: ModelErrorReason;
        status?: number;
        retryAfterMs?: number | undefined;
        apiCode?: string | undefined;
      },
    ) => new ModelApiError(`model API error (${options.model}): ${message}`, { ...details, cause: error });
    if (timedOut || error instanceof APIConnectionTimeoutError) {
      return failure(`no answer within ${timeoutMs} ms`, { retryable: true, reason: "timeout" });
    }
    if (error instanceof APIConnectionError) {
      return failure(`connection failed: ${redact(error.message)}`, {
        retryable: true,
        reason: "connection",
      });
    }
    if (error instanceof APIError && typeof error.status === "number") {
      return failure(`HTTP ${error.status}: ${redact(error.message.replace(/^\d{3}\s*/, ""))}`, {
        retryable: isRetryableStatus(error.status),
        reason: "status",
        status: error.status,
        retryAfterMs: parseRetryAfter(error.headers),
        apiCode: typeof error.code === "string" ? error.code : undefined,
      });
    }
    if (error instanceof StreamCutOff) {
      return failure(error.message, { retryable: true, reason: "connection" });
    }
    if (error instanceof Error && !(error instanceof ModelProtocolError) && DROPPED.test(error.message)) {
      return failure(`connection dropped: ${redact(error.message)}`, {
        retryable: true,
        reason: "connection",
      });
    }
    throw error;
  }

  return {
    model: options.model,
    endpoint: baseURL,
    async preflight(signal) {
      // The model list: answered by every OpenAI-compatible server, free, and behind the same key.
      let response: Response;
      try {
        response = await client.models
          .list({ signal: AbortSignal.any([signal, AbortSignal.timeout(PREFLIGHT_TIMEOUT_MS)]) })
          .asResponse();
      } catch (error) {
        if (signal.aborted) throw error;
        throw classify(error, error instanceof Error && error.name === "TimeoutError");
      }
      const text = await response.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (!Array.isArray((body as { data?: unknown } | undefined)?.data)) {
        const type = response.headers.get("content-type")?.split(";")[0] ?? "no content type";
        throw new ModelProtocolError(`GET /models answered ${type}, not an OpenAI-compatible model list`);
      }
    },
    async complete(request, signal) {
      // Each attempt gets its own timer; `timedOut` tells classify which abort was ours.
      let timedOut = false;
      const { value, retries } = await withRetries(
        retryLoopPolicy(options),
        async (outer) => {
          timedOut = false;
          const attemptController = new AbortController();
          const timer = setTimeout(() => {
            timedOut = true;
            attemptController.abort();
          }, timeoutMs);
          try {
            return await attempt(request, AbortSignal.any([outer, attemptController.signal]));
          } finally {
            clearTimeout(timer);
          }
        },
        (error) => classify(error, timedOut),
        signal,
      );
      return { ...value, retries };
    },
  };
}

function functionCalls(calls: ChatCompletion.Choice["message"]["tool_calls"]): ToolCall[] {
  return (calls ?? []).filter((call): call is ToolCall => call.type === "function");
}

function normaliseCompletion(completion: ChatCompletion): Omit<ModelResponse, "retries"> {
  const choice = completion.choices?.[0];
  if (!choice) throw new ModelProtocolError("the model API answered with no choices");
  const toolCalls = functionCalls(choice.message?.tool_calls);
  const message: AssistantMessage = { role: "assistant", content: choice.message?.content ?? null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    message,
    finishReason: choice.finish_reason ?? null,
    usage: usageOf(completion.usage),
  };
}

/** Assembles content, tool-call deltas (by index) and the final usage chunk of a stream. */
async function assembleStream(
  stream: AsyncIterable<ChatCompletionChunk>,
  signal: AbortSignal,
): Promise<Omit<ModelResponse, "retries">> {
  let content = "";
  let sawChoice = false;
  let finishReason: string | null = null;
  let usage: ModelUsage = { promptTokens: 0, completionTokens: 0, unreported: true };
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  for await (const chunk of stream) {
    if (chunk.usage) usage = usageOf(chunk.usage);
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      sawChoice = true;
      const delta = choice.delta ?? {};
      if (typeof delta.content === "string") content += delta.content;
      (delta.tool_calls ?? []).forEach((part, position) => {
        // Some servers leave out `index` when they send each call whole.
        const index = part.index ?? position;
        const call = calls.get(index) ?? { id: "", name: "", arguments: "" };
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments) call.arguments += part.function.arguments;
        calls.set(index, call);
      });
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  }
  // The SDK's stream ends quietly when aborted: without this, half an answer would pass as whole.
  if (signal.aborted) throw new DOMException("The operation was aborted", "AbortError");
  if (!sawChoice) throw new ModelProtocolError("the model API streamed no choices");
  // Every OpenAI-compatible server ends a choice with a finish_reason; a stream without one was cut off.
  if (finishReason === null) throw new StreamCutOff();
  // An empty stream of text is no text, as `content: null` is in a non-streamed answer.
  const message: AssistantMessage = { role: "assistant", content: content === "" ? null : content };
  const toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(
      ([index, call]): ToolCall => ({
        id: call.id || `call_${index}`,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      }),
    );
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return { message, finishReason, usage };
}

/** The API's usage block, checked (checkedUsage); cached prompt tokens (`prompt_tokens_details.cached_tokens`) only when given. */
function usageOf(usage: CompletionUsage | null | undefined): ModelUsage {
  if (!usage) return { promptTokens: 0, completionTokens: 0, unreported: true };
  return checkedUsage({
    prompt_tokens: usage?.prompt_tokens,
    completion_tokens: usage?.completion_tokens,
    cached_tokens: usage?.prompt_tokens_details?.cached_tokens,
  });
}
