import { afterEach, describe, expect, it } from "vitest";
import { isAbortError, ModelApiError, ModelProtocolError } from "../../../shared/errors.js";
import {
  createOpenAIModelClient,
  type OpenAIModelClientOptions,
} from "../../../shared/model/openai-client.js";
import type { RetryInfo } from "../../../shared/model/retry.js";
import type { ModelRequest } from "../../../shared/model/types.js";
import {
  type Script,
  type ScriptedModelServer,
  startScriptedModelServer,
} from "../../helpers/scripted-model-server.js";

const API_KEY = "sk-test-not-a-real-key-0123456789";

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function setup(script: Script, options: Partial<OpenAIModelClientOptions> = {}) {
  const server = await startScriptedModelServer(script);
  servers.push(server);
  const retries: RetryInfo[] = [];
  const client = createOpenAIModelClient({
    apiKey: API_KEY,
    baseURL: server.url,
    model: "test-model",
    onRetry: (info) => retries.push(info),
    ...options,
    // A fast backoff, whatever else a test sets of the policy.
    retry: { baseMs: 1, maxMs: 4, ...options.retry },
  });
  return { server, client, retries };
}

const editTool = {
  type: "function" as const,
  function: {
    name: "edit_article",
    description: "Edits the article.",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
};

function request(article = "docs/a.md"): ModelRequest {
  return {
    model: "test-model",
    article,
    messages: [
      { role: "system", content: "You keep docs true." },
      { role: "user", content: `Article: ${article}\nHash: 0123456789abcdef` },
    ],
    tools: [editTool],
  };
}

const signal = () => new AbortController().signal;

/** Polls until `predicate` holds (the server saw a request), without asserting on time. */
async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 5));
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

const editCall = {
  name: "edit_article",
  arguments: {
    path: "docs/a.md",
    edits: [{ old_string: "--out", new_string: "--output", reason: "renamed" }],
  },
};

describe("createOpenAIModelClient through the openai SDK", () => {
  it("answers a non-streaming call with tool calls, usage and the finish reason", async () => {
    const { client, server } = await setup([
      {
        content: "Fixing the flag.",
        toolCalls: [editCall],
        usage: { promptTokens: 120, completionTokens: 30 },
      },
    ]);
    const response = await client.complete(request(), signal());
    expect(response).toMatchInlineSnapshot(`
      {
        "finishReason": "tool_calls",
        "message": {
          "content": "Fixing the flag.",
          "role": "assistant",
          "tool_calls": [
            {
              "function": {
                "arguments": "{"path":"docs/a.md","edits":[{"old_string":"--out","new_string":"--output","reason":"renamed"}]}",
                "name": "edit_article",
              },
              "id": "call_0_0",
              "type": "function",
            },
          ],
        },
        "retries": 0,
        "usage": {
          "completionTokens": 30,
          "promptTokens": 120,
        },
      }
    `);
    const [sent] = server.requests;
    expect(sent?.body.stream).toBeFalsy();
    expect(sent?.body.model).toBe("test-model");
    expect(sent?.body.tools).toEqual([editTool]);
    expect(sent?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent?.article).toBe("docs/a.md");
  });

  it("assembles a streamed answer: content pieces, tool-call deltas and the usage chunk", async () => {
    const { client, server } = await setup(
      [
        {
          content: "Two edits coming.",
          toolCalls: [editCall, { name: "read_file", arguments: { path: "src/cli.ts" } }],
          usage: { promptTokens: 77, completionTokens: 11 },
        },
      ],
      { stream: true },
    );
    const response = await client.complete(request(), signal());
    expect(server.requests[0]?.body.stream).toBe(true);
    expect(server.requests[0]?.body.stream_options).toEqual({ include_usage: true });
    expect(response.message.content).toBe("Two edits coming.");
    expect(
      response.message.tool_calls?.map((call) => [
        call.id,
        call.function.name,
        JSON.parse(call.function.arguments),
      ]),
    ).toMatchInlineSnapshot(`
        [
          [
            "call_0_0",
            "edit_article",
            {
              "edits": [
                {
                  "new_string": "--output",
                  "old_string": "--out",
                  "reason": "renamed",
                },
              ],
              "path": "docs/a.md",
            },
          ],
          [
            "call_0_1",
            "read_file",
            {
              "path": "src/cli.ts",
            },
          ],
        ]
      `);
    expect(response.finishReason).toBe("tool_calls");
    expect(response.usage).toEqual({ promptTokens: 77, completionTokens: 11 });
  });

  it("passes finish_reason through and reads missing usage as zeros", async () => {
    const { client } = await setup([{ content: "cut", finishReason: "length", usage: null }]);
    const response = await client.complete(request(), signal());
    expect(response.finishReason).toBe("length");
    expect(response.usage).toEqual({ promptTokens: 0, completionTokens: 0, unreported: true });
    expect(response.message.tool_calls).toBeUndefined();
  });

  it("honours retry-after on a 429, and caps it", async () => {
    const { client, retries, server } = await setup(
      [
        { status: 429, retryAfter: "0.03" },
        { status: 429, retryAfterMs: "25" },
        { status: 429, retryAfter: "3600" },
        { content: "ok" },
      ],
      { retry: { maxRetryAfterMs: 40 } },
    );
    const response = await client.complete(request(), signal());
    expect(response.message.content).toBe("ok");
    expect(response.retries).toBe(3);
    expect(retries).toEqual([
      { attempt: 1, delayMs: 30, reason: "429" },
      { attempt: 2, delayMs: 25, reason: "429" },
      { attempt: 3, delayMs: 40, reason: "429" },
    ]);
    expect(server.requests).toHaveLength(4);
  });

  it("retries a 500, then succeeds", async () => {
    const { client, retries } = await setup([{ status: 500 }, { content: "fine now" }]);
    const response = await client.complete(request(), signal());
    expect(response.message.content).toBe("fine now");
    expect(response.retries).toBe(1);
    expect(retries.map((info) => info.reason)).toEqual(["500"]);
    expect(retries[0]?.delayMs).toBeLessThanOrEqual(4);
  });

  it("retries a dropped connection, then succeeds", async () => {
    const { client, retries } = await setup([{ drop: true }, { content: "back" }]);
    expect((await client.complete(request(), signal())).message.content).toBe("back");
    expect(retries.map((info) => info.reason)).toEqual(["connection"]);
  });

  it("retries a stream dropped half way, then succeeds", async () => {
    const { client, retries } = await setup([{ drop: true, afterHeaders: true }, { content: "whole" }], {
      stream: true,
    });
    expect((await client.complete(request(), signal())).message.content).toBe("whole");
    expect(retries.map((info) => info.reason)).toEqual(["connection"]);
  });

  it("gives up after maxRetries with a retryable ModelApiError", async () => {
    const { client, server } = await setup(
      [{ status: 503 }, { status: 502 }, { status: 500, body: "still down" }],
      {
        retry: { maxRetries: 2 },
      },
    );
    const error = await rejection(client.complete(request(), signal()));
    expect(error).toBeInstanceOf(ModelApiError);
    expect((error as ModelApiError).retryable).toBe(true);
    expect((error as ModelApiError).status).toBe(500);
    expect((error as Error).message).toMatchInlineSnapshot(
      `"model API error (test-model): HTTP 500: still down (still failing after 2 retries)"`,
    );
    expect(server.requests).toHaveLength(3);
  });

  it("times out a call that never answers, and retries it", async () => {
    const { client, server, retries } = await setup([{ hang: true }, { hang: true }], {
      timeoutMs: 150,
      retry: { maxRetries: 1 },
    });
    const error = await rejection(client.complete(request(), signal()));
    expect((error as Error).message).toMatchInlineSnapshot(
      `"model API error (test-model): no answer within 150 ms (still failing after 1 retry)"`,
    );
    expect(retries.map((info) => info.reason)).toEqual(["timeout"]);
    // The client may give up on the retry before the server has read it (a loaded machine).
    await until(() => server.requests.length >= 2);
    expect(server.requests).toHaveLength(2);
  });

  it("times out a stream that stalls half way, covering the whole answer, and retries it", async () => {
    // Long enough that the retry's whole answer fits in it on a loaded machine.
    const { client, retries } = await setup([{ hang: true, afterHeaders: true }, { content: "complete" }], {
      stream: true,
      timeoutMs: 1_000,
    });
    expect((await client.complete(request(), signal())).message.content).toBe("complete");
    expect(retries.map((info) => info.reason)).toEqual(["timeout"]);
  });

  it("stops at once when aborted in the middle of a stream", async () => {
    const { client, server } = await setup([{ hang: true, afterHeaders: true }], {
      stream: true,
      timeoutMs: 600_000,
    });
    const controller = new AbortController();
    const pending = client.complete(request(), controller.signal);
    // The server has sent the headers and the first chunk: the abort lands while the body is read.
    await until(() => server.requests[0]?.stalled === true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    expect(isAbortError(await rejection(pending))).toBe(true);
  });

  it("retries a stream that ends cleanly but before its finish_reason", async () => {
    const { client, retries } = await setup([{ content: "half", finishReason: null }, { content: "whole" }], {
      stream: true,
    });
    const response = await client.complete(request(), signal());
    expect([response.message.content, response.finishReason]).toEqual(["whole", "stop"]);
    expect(retries.map((info) => info.reason)).toEqual(["connection"]);
  });

  it("stops at once when aborted during a request", async () => {
    // A long timeout: only the abort can end this call before the test's own timeout.
    const { client, server } = await setup([{ hang: true }], { timeoutMs: 600_000 });
    const controller = new AbortController();
    const pending = client.complete(request(), controller.signal);
    await until(() => server.requests.length === 1);
    controller.abort();
    const error = await rejection(pending);
    expect(isAbortError(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it("stops at once when aborted during a backoff sleep", async () => {
    const controller = new AbortController();
    const { client, server } = await setup([{ status: 429, retryAfter: "3600" }, { content: "never" }], {
      retry: { maxRetryAfterMs: 3_600_000 },
      onRetry: () => controller.abort(),
    });
    const error = await rejection(client.complete(request(), controller.signal));
    expect(isAbortError(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it("rejects an answer with no choices as a protocol error, streaming or not", async () => {
    const plain = await setup([{ emptyChoices: true }]);
    expect(await rejection(plain.client.complete(request(), signal()))).toBeInstanceOf(ModelProtocolError);
    const streamed = await setup([{ emptyChoices: true }], { stream: true });
    const error = await rejection(streamed.client.complete(request(), signal()));
    expect(error).toBeInstanceOf(ModelProtocolError);
    expect((error as Error).message).toMatchInlineSnapshot(`"the model API streamed no choices"`);
  });

  it("fails a 401 at once, without retrying and without the key in the message", async () => {
    const { client, server } = await setup([
      {
        status: 401,
        body: `Incorrect API key provided: ${API_KEY}. Find your key at https://example.invalid.`,
      },
    ]);
    const error = await rejection(client.complete(request(), signal()));
    expect(error).toBeInstanceOf(ModelApiError);
    expect((error as ModelApiError).retryable).toBe(false);
    expect((error as ModelApiError).status).toBe(401);
    expect(String((error as Error).message)).not.toContain(API_KEY);
    expect(String((error as Error).stack)).not.toContain(API_KEY);
    expect((error as Error).message).toMatchInlineSnapshot(
      `"model API error (test-model): HTTP 401: Incorrect API key provided: [redacted]. Find your key at https://example.invalid."`,
    );
    expect(server.requests).toHaveLength(1);
  });

  it("marks a call past the end of the script as unexpected and answers it with a 500", async () => {
    const { client, server } = await setup([{ content: "only one" }], { retry: { maxRetries: 0 } });
    await client.complete(request(), signal());
    const error = await rejection(client.complete(request(), signal()));
    expect((error as Error).message).toMatchInlineSnapshot(
      `"model API error (test-model): HTTP 500: unexpected extra call"`,
    );
    expect(server.requests.map((sent) => sent.unexpected)).toEqual([false, true]);
  });

  it("answers from a script function, keyed by article and its call index", async () => {
    const { client } = await setup((sent) => ({ content: `${sent.article} #${sent.articleCallIndex}` }));
    const answers = [];
    for (const article of ["docs/a.md", "docs/b.md", "docs/a.md"]) {
      answers.push((await client.complete(request(article), signal())).message.content);
    }
    expect(answers).toEqual(["docs/a.md #0", "docs/b.md #0", "docs/a.md #1"]);
  });
});
