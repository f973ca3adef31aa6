import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
} from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import { ModelApiError, ModelProtocolError } from "../errors.js";
import { redactSecrets } from "../redact.js";
import {
  abortableSleep,
  abortErrorFor,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  type RetryInfo,
  type RetryPolicy,
  retryDelayMs,
} from "./retry.js";
import type {
  AssistantMessage,
  ModelClient,
  ModelRequest,
  ModelResponse,
  ModelUsage,
  ToolCall,
} from "./types.js";

export interface OpenAIModelClientOptions {
  apiKey: string;
  /** Any OpenAI-compatible server; default https://api.openai.com/v1. */
  baseURL?: string;
  model: string;
  /** Stream the answer (SSE) and assemble it; default false. */
  stream?: boolean;
  /** Per attempt, covering the whole answer (a stream included); default 120 s. */
  timeoutMs?: number;
  maxRetries?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  maxRetryAfterMs?: number;
  onRetry?: (info: RetryInfo) => void;
}

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
export const DEFAULT_TIMEOUT_MS = 120_000;

/** HTTP statuses worth another try: timeouts, lock conflicts, rate limits, server errors. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** One failed attempt, sorted into "try again" or "give up". */
interface AttemptFailure {
  retryable: boolean;
  reason: string;
  message: string;
  status?: number;
  retryAfterMs?: number;
  cause: unknown;
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
  const policy: RetryPolicy = {
    maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    baseMs: options.retryBaseMs ?? DEFAULT_RETRY_POLICY.baseMs,
    maxMs: options.retryMaxMs ?? DEFAULT_RETRY_POLICY.maxMs,
    maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
  };
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL ?? DEFAULT_OPENAI_BASE_URL,
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

  function classify(error: unknown, timedOut: boolean): AttemptFailure {
    if (timedOut || error instanceof APIConnectionTimeoutError) {
      return {
        retryable: true,
        reason: "timeout",
        message: `no answer within ${timeoutMs} ms`,
        cause: error,
      };
    }
    if (error instanceof APIConnectionError) {
      return {
        retryable: true,
        reason: "connection",
        message: `connection failed: ${redact(error.message)}`,
        cause: error,
      };
    }
    if (error instanceof APIError && typeof error.status === "number") {
      return {
        retryable: isRetryableStatus(error.status),
        reason: String(error.status),
        status: error.status,
        message: `HTTP ${error.status}: ${redact(error.message.replace(/^\d{3}\s*/, ""))}`,
        retryAfterMs: parseRetryAfter(error.headers),
        cause: error,
      };
    }
    if (error instanceof StreamCutOff) {
      return { retryable: true, reason: "connection", message: error.message, cause: error };
    }
    if (error instanceof Error && !(error instanceof ModelProtocolError) && DROPPED.test(error.message)) {
      return {
        retryable: true,
        reason: "connection",
        message: `connection dropped: ${redact(error.message)}`,
        cause: error,
      };
    }
    throw error;
  }

  return {
    model: options.model,
    async complete(request, signal) {
      for (let retries = 0; ; retries += 1) {
        if (signal.aborted) throw abortErrorFor(signal);
        const attemptController = new AbortController();
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          attemptController.abort();
        }, timeoutMs);
        let failure: AttemptFailure;
        try {
          const response = await attempt(request, AbortSignal.any([signal, attemptController.signal]));
          return { ...response, retries };
        } catch (error) {
          if (signal.aborted) throw abortErrorFor(signal);
          failure = classify(error, timedOut);
        } finally {
          clearTimeout(timer);
        }
        if (!failure.retryable) {
          throw new ModelApiError(`model API error (${options.model}): ${failure.message}`, {
            retryable: false,
            status: failure.status,
          });
        }
        if (retries >= policy.maxRetries) {
          throw new ModelApiError(
            `model API still failing after ${retries} ${retries === 1 ? "retry" : "retries"} (${options.model}): ${failure.message}`,
            { retryable: true, status: failure.status },
          );
        }
        const delayMs = retryDelayMs(policy, retries + 1, failure.retryAfterMs);
        options.onRetry?.({ attempt: retries + 1, delayMs, reason: failure.reason });
        await abortableSleep(delayMs, signal);
      }
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
  let usage: ModelUsage = { promptTokens: 0, completionTokens: 0 };
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

/** The API's usage block; cached prompt tokens (`prompt_tokens_details.cached_tokens`) only when given. */
function usageOf(usage: CompletionUsage | null | undefined): ModelUsage {
  const cached = usage?.prompt_tokens_details?.cached_tokens;
  return {
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
    ...(typeof cached === "number" && cached > 0 ? { cachedPromptTokens: cached } : {}),
  };
}
