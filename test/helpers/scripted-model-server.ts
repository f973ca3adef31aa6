import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A tool call the scripted model makes: arguments as an object (sent as JSON) or a raw string (for malformed JSON). */
export interface ScriptToolCall {
  id?: string;
  name: string;
  arguments: Record<string, unknown> | string;
}

/** One normal answer. */
interface ScriptReply {
  content?: string | null;
  toolCalls?: ScriptToolCall[];
  /** Default: "tool_calls" when there are tool calls, else "stop". null sends none. */
  finishReason?: string | null;
  /** Default: an estimate from the request size; null leaves usage out of the answer. */
  usage?: { promptTokens: number; completionTokens: number; cachedPromptTokens?: number } | null;
  /** Waits this long before answering (latency for benches, slowness for timeouts). */
  delayMs?: number;
}

/** A fault instead of an answer. */
type ScriptFault =
  | { status: number; retryAfter?: string; retryAfterMs?: string; body?: string; delayMs?: number }
  /** Destroys the socket: before any byte, or (`afterHeaders`) after the first streamed chunk / the headers. */
  | { drop: true; afterHeaders?: boolean; delayMs?: number }
  | { emptyChoices: true; delayMs?: number }
  /** Never answers (timeouts, aborts), or (`afterHeaders`) stalls after the first streamed chunk; closed by `close()`. */
  | { hang: true; afterHeaders?: boolean };

export type ScriptStep = ScriptReply | ScriptFault;

export interface RecordedRequest {
  method: string;
  /** URL path, e.g. /v1/chat/completions. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: {
    model?: string;
    messages?: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }>;
    tools?: unknown[];
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    [key: string]: unknown;
  };
  /** The article path from the first user message's "Article: PATH" line, if any. */
  article: string | undefined;
  /** 0-based index of this call among all calls / among the calls of its article. */
  callIndex: number;
  articleCallIndex: number;
  /** Whether the script had no step for this call (it got a 500 "unexpected extra call"). */
  unexpected: boolean;
  /** Set once a stalling stream (`hang` with `afterHeaders`) has written its first chunk. */
  stalled?: boolean;
}

export type Script =
  | ScriptStep[]
  /** Per-article scripts, keyed by article path; an article's n-th call gets its n-th step. */
  | Record<string, ScriptStep[]>
  | ((request: RecordedRequest, callIndex: number) => ScriptStep);

export interface ScriptedModelServer {
  /** Base URL including /v1, for OPENAI_BASE_URL / the SDK's baseURL. */
  url: string;
  requests: RecordedRequest[];
  /** How many times the model list (GET /models, the run's preflight) was asked for; not in `requests`. */
  readonly modelListRequests: number;
  close(): Promise<void>;
}

const ARTICLE_LINE = /^Article: (\S.*)$/m;

function articleOf(body: RecordedRequest["body"]): string | undefined {
  const first = body.messages?.find((message) => message.role === "user");
  const content = first?.content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content.map((part) => (part as { text?: string }).text ?? "").join("\n")
        : "";
  return ARTICLE_LINE.exec(text)?.[1]?.trim();
}

/** A rough, deterministic token count: 4 characters a token. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * The request's body; what came of it when the client gave up first (a timeout on a loaded
 * machine can fire before the body is read), so that request is still recorded.
 */
function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = () => resolve(Buffer.concat(chunks).toString("utf8"));
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", done);
    request.on("error", done);
    request.on("close", done);
  });
}

function wait(ms: number | undefined): Promise<void> {
  return ms ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

function toolCallsOf(step: ScriptReply, callIndex: number) {
  return (step.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_${callIndex}_${index}`,
    type: "function" as const,
    function: {
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
}

/**
 * A real OpenAI-compatible chat completions server on 127.0.0.1 (port 0), answering from a
 * script: plain JSON or SSE streaming (tool-call deltas in pieces, then a usage chunk),
 * whichever the request asks for. Every request is recorded; one past the end of the
 * script gets a 500 "unexpected extra call" and is marked `unexpected`.
 */
export async function startScriptedModelServer(script: Script): Promise<ScriptedModelServer> {
  const requests: RecordedRequest[] = [];
  let modelListRequests = 0;
  const perArticle = new Map<string, number>();
  const created = 1_700_000_000;

  const stepFor = (recorded: RecordedRequest): ScriptStep | undefined => {
    if (typeof script === "function") return script(recorded, recorded.callIndex);
    if (Array.isArray(script)) return script[recorded.callIndex];
    const steps = recorded.article === undefined ? undefined : script[recorded.article];
    return steps?.[recorded.articleCallIndex];
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const raw = await readBody(request);
    if (request.method === "GET" && request.url?.endsWith("/models")) {
      // The run's preflight: answered like any OpenAI-compatible server, not part of the script.
      modelListRequests += 1;
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ object: "list", data: [{ id: "scripted", object: "model" }] }));
      return;
    }
    let body: RecordedRequest["body"] = {};
    try {
      body = JSON.parse(raw) as RecordedRequest["body"];
    } catch {
      // Recorded as it is; the test sees the empty body.
    }
    const article = articleOf(body);
    const articleKey = article ?? "";
    const articleCallIndex = perArticle.get(articleKey) ?? 0;
    perArticle.set(articleKey, articleCallIndex + 1);
    const recorded: RecordedRequest = {
      method: request.method ?? "",
      path: request.url ?? "",
      headers: request.headers,
      body,
      article,
      callIndex: requests.length,
      articleCallIndex,
      unexpected: false,
    };
    requests.push(recorded);

    if (request.method !== "POST" || !request.url?.endsWith("/chat/completions")) {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: `no route ${request.method} ${request.url}` } }));
      return;
    }
    const step = stepFor(recorded);
    if (!step) {
      recorded.unexpected = true;
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "unexpected extra call", type: "server_error" } }));
      return;
    }
    if ("hang" in step) {
      if (step.afterHeaders) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write(
          `data: ${JSON.stringify({ id: "chatcmpl-stall", object: "chat.completion.chunk", created, model: body.model, choices: [{ index: 0, delta: { role: "assistant", content: "partial" }, finish_reason: null }] })}\n\n`,
          () => {
            recorded.stalled = true;
          },
        );
      }
      return;
    }
    await wait(step.delayMs);
    if ("drop" in step) {
      if (step.afterHeaders) {
        response.writeHead(200, { "content-type": body.stream ? "text/event-stream" : "application/json" });
        response.write(
          body.stream
            ? `data: ${JSON.stringify({ id: "chatcmpl-drop", object: "chat.completion.chunk", created, model: body.model, choices: [{ index: 0, delta: { role: "assistant", content: "partial" }, finish_reason: null }] })}\n\n`
            : '{"id":"chatcmpl-drop",',
        );
        setTimeout(() => request.socket.destroy(), 10);
      } else {
        request.socket.destroy();
      }
      return;
    }
    if ("status" in step) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (step.retryAfter !== undefined) headers["retry-after"] = step.retryAfter;
      if (step.retryAfterMs !== undefined) headers["retry-after-ms"] = step.retryAfterMs;
      response.writeHead(step.status, headers);
      response.end(
        JSON.stringify({ error: { message: step.body ?? `scripted ${step.status}`, type: "scripted" } }),
      );
      return;
    }
    if ("emptyChoices" in step) {
      if (body.stream) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end("data: [DONE]\n\n");
      } else {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(
          JSON.stringify({
            id: "chatcmpl-empty",
            object: "chat.completion",
            created,
            model: body.model,
            choices: [],
          }),
        );
      }
      return;
    }

    const toolCalls = toolCallsOf(step, recorded.callIndex);
    const content = step.content ?? null;
    const finishReason =
      step.finishReason === undefined ? (toolCalls.length > 0 ? "tool_calls" : "stop") : step.finishReason;
    const usage =
      step.usage === null
        ? undefined
        : {
            prompt_tokens:
              step.usage?.promptTokens ??
              estimateTokens(JSON.stringify(body.messages ?? []) + JSON.stringify(body.tools ?? [])),
            completion_tokens:
              step.usage?.completionTokens ?? estimateTokens((content ?? "") + JSON.stringify(toolCalls)),
          };
    const cachedTokens = step.usage?.cachedPromptTokens;
    const usageField = usage
      ? {
          usage: {
            ...usage,
            total_tokens: usage.prompt_tokens + usage.completion_tokens,
            ...(cachedTokens === undefined ? {} : { prompt_tokens_details: { cached_tokens: cachedTokens } }),
          },
        }
      : {};
    const id = `chatcmpl-${recorded.callIndex}`;

    if (!body.stream) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created,
          model: body.model,
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content,
                ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
              },
              finish_reason: finishReason,
            },
          ],
          ...usageField,
        }),
      );
      return;
    }

    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      response.write(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: body.model, choices, ...extra })}\n\n`,
      );
    send([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
    if (content) {
      // In two pieces, so the client has to assemble them.
      const middle = Math.ceil(content.length / 2);
      for (const piece of [content.slice(0, middle), content.slice(middle)]) {
        if (piece) send([{ index: 0, delta: { content: piece }, finish_reason: null }]);
      }
    }
    toolCalls.forEach((call, index) => {
      send([
        {
          index: 0,
          delta: {
            tool_calls: [
              { index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } },
            ],
          },
          finish_reason: null,
        },
      ]);
      const text = call.function.arguments;
      const size = Math.max(1, Math.ceil(text.length / 3));
      for (let start = 0; start < text.length; start += size) {
        send([
          {
            index: 0,
            delta: { tool_calls: [{ index, function: { arguments: text.slice(start, start + size) } }] },
            finish_reason: null,
          },
        ]);
      }
    });
    send([{ index: 0, delta: {}, finish_reason: finishReason }]);
    if (usage && body.stream_options?.include_usage) send([], usageField);
    response.end("data: [DONE]\n\n");
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: `scripted server bug: ${String(error)}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get modelListRequests() {
      return modelListRequests;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
