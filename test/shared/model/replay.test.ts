import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ModelApiError, UsageError } from "../../../shared/errors.js";
import { createOpenAIModelClient } from "../../../shared/model/openai-client.js";
import { createRecordingModelClient, createReplayModelClient } from "../../../shared/model/replay.js";
import type { ModelClient, ModelRequest, ModelResponse } from "../../../shared/model/types.js";
import { makeTempDir } from "../../helpers/git-repo.js";
import { type ScriptedModelServer, startScriptedModelServer } from "../../helpers/scripted-model-server.js";

const API_KEY = "sk-test-not-a-real-key-for-replay";

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const tool = {
  type: "function" as const,
  function: { name: "edit_article", parameters: { type: "object", properties: {} } },
};

function firstRequest(article: string): ModelRequest {
  return {
    model: "test-model",
    article,
    messages: [
      { role: "system", content: "system prompt" },
      { role: "user", content: `Article: ${article}\nThe key ${API_KEY} must not be recorded.` },
    ],
    tools: [tool],
  };
}

function followUp(request: ModelRequest, answer: ModelResponse, result: string): ModelRequest {
  const toolCall = answer.message.tool_calls?.[0];
  return {
    ...request,
    messages: [
      ...request.messages,
      answer.message,
      ...(toolCall ? [{ role: "tool" as const, tool_call_id: toolCall.id, content: result }] : []),
    ],
  };
}

/** Two turns for an article: a tool call, then a closing text. */
async function conversation(client: ModelClient, article: string): Promise<ModelResponse[]> {
  const signal = new AbortController().signal;
  const first = firstRequest(article);
  const one = await client.complete(first, signal);
  const two = await client.complete(followUp(first, one, "edited"), signal);
  return [one, two];
}

async function recordTwoArticles(file: string) {
  const server = await startScriptedModelServer({
    "docs/a.md": [
      { toolCalls: [{ name: "edit_article", arguments: { path: "docs/a.md" } }], delayMs: 20 },
      { content: "Updated the flag name in docs/a.md." },
    ],
    "docs/b.md": [
      { toolCalls: [{ name: "edit_article", arguments: { path: "docs/b.md" } }] },
      { content: "Nothing else to change in docs/b.md.", usage: { promptTokens: 9, completionTokens: 3 } },
    ],
  });
  servers.push(server);
  const inner = createOpenAIModelClient({
    apiKey: API_KEY,
    baseURL: server.url,
    model: "test-model",
    stream: true,
  });
  const recorder = createRecordingModelClient(inner, file, { env: { OPENAI_API_KEY: API_KEY } });
  // Concurrently, as the runner does; b finishes its first call before a.
  const [a, b] = await Promise.all([
    conversation(recorder, "docs/a.md"),
    conversation(recorder, "docs/b.md"),
  ]);
  await recorder.flush();
  return { server, a, b };
}

describe("record and replay", () => {
  it("replays a recorded run with the same answers and no network request", async () => {
    const dir = makeTempDir();
    const file = join(dir, "out", "run.recording.json");
    const { server, a, b } = await recordTwoArticles(file);
    expect(server.requests.filter((request) => request.unexpected)).toEqual([]);
    const seen = server.requests.length;

    const replay = await createReplayModelClient(file);
    expect(replay.model).toBe("test-model");
    // The other order this time: answers follow the article, not the global order.
    const replayedB = await conversation(replay, "docs/b.md");
    const replayedA = await conversation(replay, "docs/a.md");
    const strip = (responses: ModelResponse[]) => responses.map(({ retries: _retries, ...rest }) => rest);
    expect(strip(replayedA)).toEqual(strip(a));
    expect(strip(replayedB)).toEqual(strip(b));
    expect(server.requests).toHaveLength(seen);
    // Atomic write: no temp file is left beside the recording.
    expect(readdirSync(join(dir, "out"))).toEqual(["run.recording.json"]);
  });

  it("writes a versioned, article-keyed recording with no secret in it", async () => {
    const dir = makeTempDir();
    const file = join(dir, "run.json");
    await recordTwoArticles(file);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(API_KEY);
    const recording = JSON.parse(text);
    expect(Object.keys(recording)).toEqual(["version", "kind", "model", "toolSets", "articles"]);
    expect(Object.keys(recording.articles)).toEqual(["docs/a.md", "docs/b.md"]);
    const [toolSet] = Object.keys(recording.toolSets);
    expect(recording.articles["docs/b.md"][1]).toMatchInlineSnapshot(
      { request: { tools: toolSet } },
      `
      {
        "request": {
          "messages": [
            {
              "content": "system prompt",
              "role": "system",
            },
            {
              "content": "Article: docs/b.md
      The key [redacted] must not be recorded.",
              "role": "user",
            },
            {
              "content": null,
              "role": "assistant",
              "tool_calls": [
                {
                  "function": {
                    "arguments": "{"path":"docs/b.md"}",
                    "name": "edit_article",
                  },
                  "id": "call_1_0",
                  "type": "function",
                },
              ],
            },
            {
              "content": "edited",
              "role": "tool",
              "tool_call_id": "call_1_0",
            },
          ],
          "model": "test-model",
          "tools": "${toolSet}",
        },
        "response": {
          "finishReason": "stop",
          "message": {
            "content": "Nothing else to change in docs/b.md.",
            "role": "assistant",
          },
          "usage": {
            "completionTokens": 3,
            "promptTokens": 9,
          },
        },
        "retries": 0,
      }
    `,
    );
  });

  it("fails a call past the recording with a non-retryable error naming the article", async () => {
    const dir = makeTempDir();
    const file = join(dir, "run.json");
    await recordTwoArticles(file);
    const replay = await createReplayModelClient(file);
    await conversation(replay, "docs/a.md");
    const signal = new AbortController().signal;
    const extra = await replay.complete(firstRequest("docs/a.md"), signal).catch((error: unknown) => error);
    expect(extra).toBeInstanceOf(ModelApiError);
    expect((extra as ModelApiError).retryable).toBe(false);
    expect((extra as Error).message).toMatchInlineSnapshot(
      `"replay: no recorded answer for call 3 of docs/a.md (the recording has 2 for it)"`,
    );
    const unknown = await replay
      .complete(firstRequest("docs/zzz.md"), signal)
      .catch((error: unknown) => error);
    expect((unknown as Error).message).toMatchInlineSnapshot(
      `"replay: no recorded answer for call 1 of docs/zzz.md (the recording has 0 for it)"`,
    );
  });

  it("records a failed call and replays the same failure", async () => {
    const dir = makeTempDir();
    const file = join(dir, "run.json");
    const server = await startScriptedModelServer([{ status: 400, body: "context too long" }]);
    servers.push(server);
    const inner = createOpenAIModelClient({ apiKey: API_KEY, baseURL: server.url, model: "test-model" });
    const recorder = createRecordingModelClient(inner, file, { env: {} });
    const signal = new AbortController().signal;
    const live = await recorder.complete(firstRequest("docs/a.md"), signal).catch((error: unknown) => error);
    await recorder.flush();
    const replay = await createReplayModelClient(file);
    const replayed = await replay
      .complete(firstRequest("docs/a.md"), signal)
      .catch((error: unknown) => error);
    expect(replayed).toBeInstanceOf(ModelApiError);
    expect((replayed as Error).message).toBe((live as Error).message);
    expect((replayed as Error).message).toMatchInlineSnapshot(
      `"model API error (test-model): HTTP 400: context too long"`,
    );
  });

  it("refuses a bad recording file with a one-line usage error", async () => {
    const dir = makeTempDir();
    const messageFor = async (content: string | undefined) => {
      const file = join(dir, "bad.json");
      if (content !== undefined) writeFileSync(file, content);
      const error = await createReplayModelClient(
        content === undefined ? join(dir, "missing.json") : file,
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UsageError);
      return (error as Error).message.replaceAll(dir, "<dir>");
    };
    expect(await messageFor(undefined)).toMatchInlineSnapshot(
      `"replay file <dir>/missing.json: cannot read it (ENOENT)"`,
    );
    expect(await messageFor("{not json")).toMatch(/^replay file <dir>\/bad\.json: not JSON \(.*\)$/);
    expect(
      await messageFor(
        JSON.stringify({
          version: 2,
          kind: "impact-model-recording",
          model: "m",
          toolSets: {},
          articles: {},
        }),
      ),
    ).toMatchInlineSnapshot(
      `"replay file <dir>/bad.json: not an impact model recording version 1: version: expected 1"`,
    );
    expect(
      await messageFor(
        JSON.stringify({
          version: 1,
          kind: "impact-model-recording",
          model: "m",
          toolSets: {},
          articles: { "docs/a.md": [{ request: { model: "m", messages: [], tools: "x" } }] },
        }),
      ),
    ).toMatchInlineSnapshot(
      `"replay file <dir>/bad.json: not an impact model recording version 1: articles["docs/a.md"][0]: each call needs exactly one of response and error"`,
    );
  });

  it("replays answers byte for byte, redacting only known secret values in them", async () => {
    const dir = makeTempDir();
    const file = join(dir, "run.json");
    const answer = `Set the bearer token IMPACT_SERVER_TOKENS_EXAMPLE in sk-shaped-docs-example; not ${API_KEY}.`;
    const server = await startScriptedModelServer([{ content: answer }]);
    servers.push(server);
    const inner = createOpenAIModelClient({ apiKey: API_KEY, baseURL: server.url, model: "test-model" });
    const recorder = createRecordingModelClient(inner, file, { env: { OPENAI_API_KEY: API_KEY } });
    await recorder.complete(firstRequest("docs/a.md"), new AbortController().signal);
    await recorder.flush();
    expect(readFileSync(file, "utf8")).not.toContain(API_KEY);
    const replay = await createReplayModelClient(file);
    const replayed = await replay.complete(firstRequest("docs/a.md"), new AbortController().signal);
    expect(replayed.message.content).toMatchInlineSnapshot(
      `"Set the bearer token IMPACT_SERVER_TOKENS_EXAMPLE in sk-shaped-docs-example; not [redacted]."`,
    );
  });
});
