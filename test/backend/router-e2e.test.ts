import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../backend/app.js";
import { createLogger, listen } from "../../backend/server.js";
import { main } from "../../cli/main.js";
import type { Audit } from "../../shared/audit.js";
import { createOpenAIModelClient } from "../../shared/model/openai-client.js";
import { systemPrompt } from "../../shared/prompts.js";
import { buildToolManifest } from "../../shared/tools/manifest.js";
import { captureIo, fixScript, portRepo, readAuditAt } from "../helpers/audit-fixture.js";
import { startScriptedModelServer } from "../helpers/scripted-model-server.js";

const UPSTREAM_KEY = "sk-test-not-a-real-key-e2e";
const TOKEN = "impact-e2e-router-token-0001";

/** What must be the same whichever way the model was reached. */
function essence(audit: Audit) {
  return audit.articles.map((article) => ({
    path: article.path,
    status: article.status,
    patch: article.patch,
    editReasons: article.editReasons,
    hashAfter: article.hashAfter,
  }));
}

describe("impact run --router", () => {
  it("drives the model through impact serve's router and gets the same audit as a direct run", async () => {
    const names = ["alpha", "beta"];
    const repo = portRepo(names);

    const direct = await startScriptedModelServer(fixScript(names));
    const directIo = captureIo(repo.dir, {
      OPENAI_API_KEY: UPSTREAM_KEY,
      OPENAI_BASE_URL: direct.url,
      IMPACT_MODEL: "m",
    });
    expect(
      await main(["run", "--no-cache", "--out", "direct.json", "--patch", "direct.patch"], directIo),
    ).toBe(0);
    await direct.close();

    const upstream = await startScriptedModelServer(fixScript(names));
    const app = createApp({
      logger: createLogger(() => {}, {}),
      router: {
        tokens: [TOKEN],
        upstream: createOpenAIModelClient({ apiKey: UPSTREAM_KEY, baseURL: upstream.url, model: "m" }),
        systemPrompt,
        tools: buildToolManifest,
        rateLimit: { perMinute: 600 },
      },
    });
    const server = await listen(app.fetch, { host: "127.0.0.1", port: 0 });
    // The client holds no model key: only the router's URL and token.
    const io = captureIo(repo.dir, { IMPACT_ROUTER_TOKEN: TOKEN, IMPACT_MODEL: "m" });
    const code = await main(
      ["run", "--no-cache", "--router", server.url, "--out", "routed.json", "--patch", "routed.patch"],
      io,
    );
    expect(io.err).toBe("");
    expect(code).toBe(0);
    await server.close();
    await upstream.close();

    const routed = readAuditAt(join(repo.dir, "routed.json"));
    expect(routed.totals).toMatchObject({ articles: 2, updated: 2, failed: 0 });
    expect(essence(routed)).toEqual(essence(readAuditAt(join(repo.dir, "direct.json"))));
    expect(readFileSync(join(repo.dir, "routed.patch"), "utf8")).toBe(
      readFileSync(join(repo.dir, "direct.patch"), "utf8"),
    );
    // The upstream saw the router's system prompt and the CLI's manifest, with the server's key.
    const prompt = await systemPrompt();
    for (const request of upstream.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
      expect(request.body.messages?.[0]).toEqual({ role: "system", content: prompt });
      expect(request.body.messages?.filter((message) => message.role === "system")).toHaveLength(1);
      expect(request.body.tools).toEqual(buildToolManifest({ allowCreate: false }));
    }
    expect(upstream.requests.map((request) => request.article).sort()).toEqual([
      "docs/alpha.md",
      "docs/beta.md",
    ]);
    expect(readFileSync(join(repo.dir, "routed.json"), "utf8")).not.toContain(TOKEN);
  });
});
