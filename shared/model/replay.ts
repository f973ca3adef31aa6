import { mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { isAbortError, MODEL_ERROR_REASONS, ModelApiError, UsageError } from "../errors.js";
import { writeFileAtomic } from "../fs.js";
import { contentHash } from "../hash.js";
import { MAX_USAGE_TOKENS } from "../limits.js";
import { redactSecrets, redactSecretValues } from "../redact.js";
import { describeFirstIssue } from "../zod-issues.js";
import { abortErrorFor } from "./retry.js";
import type { ModelClient, ModelResponse, ToolDefinition } from "./types.js";

/**
 * The recording file (`impact run --record FILE`, replayed with `--model replay:FILE`),
 * version 1. Calls are grouped by article, in the order the article's loop made them, so
 * concurrent articles replay deterministically. Tool manifests are stored once in
 * `toolSets`, keyed by a hash, since every call of a run sends the same one.
 */
const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

const RecordedResponseSchema = z.object({
  message: z.object({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    tool_calls: z.array(ToolCallSchema).exactOptional(),
  }),
  finishReason: z.string().nullable(),
  usage: z.object({
    promptTokens: z.number().int().min(0).max(MAX_USAGE_TOKENS),
    completionTokens: z.number().int().min(0).max(MAX_USAGE_TOKENS),
    cachedPromptTokens: z.number().int().min(0).max(MAX_USAGE_TOKENS).optional(),
  }),
});

const RecordedCallSchema = z
  .object({
    request: z.object({
      model: z.string(),
      /** The whole conversation sent, system prompt first (for diffing prompt changes). */
      messages: z.array(z.record(z.string(), z.unknown())),
      /** Key into `toolSets`. */
      tools: z.string(),
      allowCreate: z.boolean().optional(),
    }),
    /** The answer, or the error the call ended with (after the client's retries). */
    response: RecordedResponseSchema.optional(),
    error: z
      .object({
        message: z.string(),
        retryable: z.boolean(),
        reason: z.enum(MODEL_ERROR_REASONS).optional(),
        status: z.number().int().optional(),
      })
      .optional(),
    retries: z.number().int().min(0).default(0),
  })
  .refine((call) => (call.response === undefined) !== (call.error === undefined), {
    message: "each call needs exactly one of response and error",
  });

export const RecordingSchema = z.object({
  version: z.literal(1),
  kind: z.literal("impact-model-recording"),
  /** The model of the recorded run; the replay client reports it as its own. */
  model: z.string(),
  toolSets: z.record(z.string(), z.array(z.record(z.string(), z.unknown()))),
  articles: z.record(z.string(), z.array(RecordedCallSchema)),
});

export type Recording = z.infer<typeof RecordingSchema>;
export type RecordedCall = z.infer<typeof RecordedCallSchema>;

function sortedObject<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Wraps a client and keeps every request and its answer (or final error). `flush()`
 * writes the recording atomically; call it at the end of the run, interrupted or not.
 * Secrets are redacted from the file: `env` values of secret-named variables (default
 * `process.env`) everywhere, and key-shaped strings in the requests (not in the answers,
 * which must replay byte for byte).
 */
export function createRecordingModelClient(
  inner: ModelClient,
  file: string,
  options: { env?: Record<string, string | undefined> } = {},
): ModelClient & { flush(): Promise<void> } {
  const env = options.env ?? process.env;
  const articles = new Map<string, (RecordedCall | undefined)[]>();
  const toolSets = new Map<string, ToolDefinition[]>();
  let writing: Promise<void> = Promise.resolve();

  const toolSetKey = (tools: ToolDefinition[]) => {
    const key = contentHash(JSON.stringify(tools));
    if (!toolSets.has(key)) toolSets.set(key, tools);
    return key;
  };

  return {
    model: inner.model,
    async complete(request, signal) {
      const calls = articles.get(request.article) ?? [];
      articles.set(request.article, calls);
      // The slot is taken before the call so the order is the order of asking.
      const index = calls.length;
      calls.push(undefined);
      const recordedRequest: RecordedCall["request"] = {
        model: request.model,
        // Requests lose anything secret-shaped too; answers (below) only known secret values,
        // so that replay hands back exactly what the model said.
        messages: JSON.parse(redactSecrets(JSON.stringify(request.messages), env)) as Record<
          string,
          unknown
        >[],
        tools: toolSetKey(request.tools),
        allowCreate: request.allowCreate,
      };
      try {
        const response = await inner.complete(request, signal);
        calls[index] = {
          request: recordedRequest,
          response: {
            message: structuredClone(response.message),
            finishReason: response.finishReason,
            usage: { ...response.usage },
          },
          retries: response.retries,
        };
        return response;
      } catch (error) {
        if (error instanceof ModelApiError) {
          calls[index] = {
            request: recordedRequest,
            error: {
              message: error.message,
              retryable: error.retryable,
              reason: error.reason,
              status: error.status,
            },
            retries: 0,
          };
        } else if (!isAbortError(error)) {
          calls[index] = {
            request: recordedRequest,
            error: { message: error instanceof Error ? error.message : String(error), retryable: false },
            retries: 0,
          };
        }
        // An aborted call has no answer to replay; its slot is dropped on flush.
        throw error;
      }
    },
    flush() {
      const recording: Recording = {
        version: 1,
        kind: "impact-model-recording",
        model: inner.model,
        toolSets: sortedObject(
          Object.fromEntries(
            [...toolSets].map(([key, tools]) => [key, tools as unknown as Record<string, unknown>[]]),
          ),
        ),
        articles: sortedObject(
          Object.fromEntries(
            [...articles].map(([article, calls]) => {
              // Keep the prefix of finished calls: replay answers by position.
              const end = calls.indexOf(undefined);
              const done = (end === -1 ? calls : calls.slice(0, end)) as RecordedCall[];
              return [article, done];
            }),
          ),
        ),
      };
      const text = redactSecretValues(`${JSON.stringify(recording, null, 2)}\n`, env);
      writing = writing
        .catch(() => undefined)
        .then(async () => {
          await mkdir(dirname(file), { recursive: true });
          await writeFileAtomic(file, text);
        });
      return writing;
    },
  };
}

/** Reads and validates a recording; a bad file is a one-line UsageError. */
export async function readRecording(file: string): Promise<Recording> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new UsageError(`replay file ${file}: cannot read it (${code})`, { cause: error, code: "input" });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`replay file ${file}: not JSON (${(error as Error).message})`, {
      cause: error,
      code: "input",
    });
  }
  const parsed = RecordingSchema.safeParse(json);
  if (!parsed.success) {
    throw new UsageError(
      `replay file ${file}: not an impact model recording version 1: ${describeFirstIssue(parsed.error.issues, { root: "(top level)" })}`,
      { cause: parsed.error, code: "input" },
    );
  }
  return parsed.data;
}

/**
 * Answers the n-th call of an article with the n-th recorded answer for that article.
 * Never touches the network. A call with no recording rejects with a non-retryable
 * ModelApiError naming the article and the call number.
 */
export async function createReplayModelClient(file: string): Promise<ModelClient> {
  const recording = await readRecording(file);
  const served = new Map<string, number>();
  return {
    model: recording.model,
    async complete(request, signal): Promise<ModelResponse> {
      if (signal.aborted) throw abortErrorFor(signal);
      const index = served.get(request.article) ?? 0;
      served.set(request.article, index + 1);
      const calls = recording.articles[request.article] ?? [];
      const call = calls[index];
      if (!call) {
        throw new ModelApiError(
          `replay: no recorded answer for call ${index + 1} of ${request.article} (the recording has ${calls.length} for it)`,
          { retryable: false, reason: "replay" },
        );
      }
      if (call.error) {
        throw new ModelApiError(call.error.message, {
          retryable: call.error.retryable,
          // Recordings made before errors carried a reason: a status means an HTTP error.
          reason: call.error.reason ?? (call.error.status === undefined ? "connection" : "status"),
          status: call.error.status,
        });
      }
      const response = call.response!;
      return {
        message: structuredClone(response.message),
        finishReason: response.finishReason,
        usage: { ...response.usage },
        retries: call.retries,
      };
    },
  };
}
