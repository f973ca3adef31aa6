import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { UsageError } from "../../../shared/errors.js";
import { resolveModelClient } from "../../../shared/model/resolve.js";
import { resolveSettings } from "../../../shared/settings.js";
import { makeTempDir } from "../../helpers/git-repo.js";
import { type ScriptedModelServer, startScriptedModelServer } from "../../helpers/scripted-model-server.js";

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const request = (article: string) => ({
  model: "ignored-by-replay",
  article,
  messages: [{ role: "user" as const, content: `Article: ${article}` }],
  tools: [],
});

describe("resolveModelClient", () => {
  it("says how to configure a model when there is no key, router or replay", async () => {
    const error = await resolveModelClient({ settings: resolveSettings({ env: {} }) }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatchInlineSnapshot(
      `"no model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible server), or use a router with --router URL or IMPACT_ROUTER_URL, or replay a recording with --model replay:FILE (\`impact plan\` needs no key)"`,
    );
  });

  it("uses OPENAI_BASE_URL, OPENAI_API_KEY and IMPACT_MODEL, and --model over IMPACT_MODEL", async () => {
    const server = await startScriptedModelServer([{ content: "one" }, { content: "two" }]);
    servers.push(server);
    const env = {
      OPENAI_API_KEY: "sk-test-not-a-real-key",
      OPENAI_BASE_URL: server.url,
      IMPACT_MODEL: "env-model",
    };
    const fromEnv = await resolveModelClient({ settings: resolveSettings({ env }) });
    expect(fromEnv.model).toBe("env-model");
    await fromEnv.complete({ ...request("docs/a.md"), model: fromEnv.model }, new AbortController().signal);
    const fromFlag = await resolveModelClient({
      settings: resolveSettings({ env, flags: { model: "flag-model" } }),
      stream: true,
    });
    expect(fromFlag.model).toBe("flag-model");
    const answer = await fromFlag.complete(
      { ...request("docs/a.md"), model: fromFlag.model },
      new AbortController().signal,
    );
    expect(answer.message.content).toBe("two");
    expect(server.requests.map((sent) => [sent.body.model, Boolean(sent.body.stream)])).toEqual([
      ["env-model", false],
      ["flag-model", true],
    ]);
  });

  it("defaults the model to gpt-4.1-mini", async () => {
    const client = await resolveModelClient({
      settings: resolveSettings({ env: { OPENAI_API_KEY: "sk-test-not-a-real-key" } }),
    });
    expect(client.model).toBe("gpt-4.1-mini");
  });

  it("answers from a replay:FILE relative to cwd, needing no key", async () => {
    const dir = makeTempDir();
    writeFileSync(
      join(dir, "rec.json"),
      JSON.stringify({
        version: 1,
        kind: "impact-model-recording",
        model: "recorded-model",
        toolSets: {},
        articles: {
          "docs/a.md": [
            {
              request: { model: "recorded-model", messages: [], tools: "none" },
              response: {
                message: { role: "assistant", content: "Still correct." },
                finishReason: "stop",
                usage: { promptTokens: 5, completionTokens: 2 },
              },
            },
          ],
        },
      }),
    );
    const client = await resolveModelClient({
      settings: resolveSettings({ flags: { model: "replay:rec.json" } }),
      cwd: dir,
    });
    expect(client.model).toBe("recorded-model");
    const answer = await client.complete(request("docs/a.md"), new AbortController().signal);
    expect(answer).toEqual({
      message: { role: "assistant", content: "Still correct." },
      finishReason: "stop",
      usage: { promptTokens: 5, completionTokens: 2 },
      retries: 0,
    });
    await expect(
      resolveModelClient({ settings: resolveSettings({ flags: { model: "replay:" } }) }),
    ).rejects.toBeInstanceOf(UsageError);
  });

  it("takes the router branch for IMPACT_ROUTER_URL, even with an API key set", async () => {
    const seen: { path?: string | undefined; authorization?: string | undefined } = {};
    const router = createServer((incoming, response) => {
      seen.path = incoming.url;
      seen.authorization = incoming.headers.authorization;
      incoming.resume();
      incoming.on("end", () => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(
          JSON.stringify({
            message: { role: "assistant", content: "routed" },
            usage: { promptTokens: 3, completionTokens: 1 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => router.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = router.address() as AddressInfo;
      const env = {
        IMPACT_ROUTER_URL: `http://127.0.0.1:${port}/`,
        IMPACT_ROUTER_TOKEN: "test-token-not-real",
        OPENAI_API_KEY: "sk-test-not-a-real-key",
      };
      const client = await resolveModelClient({
        settings: resolveSettings({ env, flags: { model: "routed-model" } }),
      });
      const answer = await client.complete(request("docs/a.md"), new AbortController().signal);
      expect(answer.message.content).toBe("routed");
      expect(seen).toEqual({ path: "/v1/impact/turn", authorization: "Bearer test-token-not-real" });
    } finally {
      await new Promise((resolve) => router.close(resolve));
    }
  });
});
