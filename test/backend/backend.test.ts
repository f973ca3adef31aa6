import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ServeEnvSchema } from "../../backend/env.js";
import type { CommandIo } from "../../cli/io.js";
import { main } from "../../cli/main.js";
import { makeTempDir } from "../helpers/git-repo.js";
import { startScriptedModelServer } from "../helpers/scripted-model-server.js";

const UPSTREAM_KEY = "sk-test-not-a-real-key-serve";
const TOKEN = "impact-serve-test-token-0001";

function serveIo(env: Record<string, string>) {
  const controller = new AbortController();
  const io = {
    out: "",
    err: "",
    cwd: process.cwd(),
    env,
    isTTY: false,
    signal: controller.signal,
    readStdin: async () => "",
    stdout: (text: string) => {
      io.out += text;
    },
    stderr: (text: string) => {
      io.err += text;
    },
  } satisfies CommandIo & { out: string; err: string };
  return { io, stop: () => controller.abort() };
}

async function waitForUrl(io: { out: string }): Promise<string> {
  for (;;) {
    const line = io.out.split("\n").find((entry) => entry.includes('"msg":"listening"'));
    if (line) return (JSON.parse(line) as { url: string }).url;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("impact serve", () => {
  it("serves the router and the webhook on a real port, logs without secrets, and stops when its signal aborts", async () => {
    const upstream = await startScriptedModelServer([{ content: "all good" }]);
    const env = {
      IMPACT_SERVER_TOKENS: `${TOKEN}, impact-serve-test-token-0002`,
      OPENAI_API_KEY: UPSTREAM_KEY,
      OPENAI_BASE_URL: upstream.url,
      IMPACT_MODEL: "gpt-test",
      GITHUB_WEBHOOK_SECRET: "whsec-serve-test-secret",
      GITHUB_TOKEN: "ghs_serve_test_not_a_real_token",
      IMPACT_DATA_DIR: makeTempDir(),
    };
    const { io, stop } = serveIo(env);
    const exited = main(["serve", "--host", "127.0.0.1", "--port", "0"], io);
    const url = await waitForUrl(io);

    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({
      ok: true,
      store: { kind: "sqlite", ok: true },
    });
    const answer = await fetch(`${url}/v1/impact/turn`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ article: { path: "docs/a.md" }, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { message: { content: string } }).message.content).toBe("all good");

    const ping = JSON.stringify({ zen: "Design for failure.", hook_id: 1 });
    const signature = `sha256=${createHmac("sha256", env.GITHUB_WEBHOOK_SECRET).update(ping).digest("hex")}`;
    const webhook = await fetch(`${url}/webhooks/github`, {
      method: "POST",
      headers: { "x-github-event": "ping", "x-github-delivery": "ping-1", "x-hub-signature-256": signature },
      body: ping,
    });
    expect(webhook.status).toBe(204);

    stop();
    expect(await exited).toBe(0);
    expect(io.err).toBe("");
    const messages = io.out
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages[0]).toBe("listening");
    expect(messages.slice(-2)).toEqual([
      "shutting down: no new connections; finishing requests in flight",
      "stopped",
    ]);
    for (const secret of [UPSTREAM_KEY, TOKEN, env.GITHUB_TOKEN, env.GITHUB_WEBHOOK_SECRET]) {
      expect(io.out).not.toContain(secret);
    }
    await upstream.close();
  });

  it("refuses to start without anything to serve, or with a bad setting, in one line", async () => {
    const router = { IMPACT_SERVER_TOKENS: TOKEN, OPENAI_API_KEY: UPSTREAM_KEY };
    const run = async (argv: string[], env: Record<string, string>) => {
      const { io } = serveIo(env);
      const code = await main(["serve", ...argv], io);
      return `${code} ${io.err}`;
    };
    expect(await run([], {})).toMatchInlineSnapshot(`
      "2 impact serve: nothing to serve; set IMPACT_SERVER_TOKENS and OPENAI_API_KEY (router) and/or GITHUB_WEBHOOK_SECRET and GITHUB_TOKEN (PR bot)
      "
    `);
    expect(
      await run([], { IMPACT_SERVER_TOKENS: "short", OPENAI_API_KEY: UPSTREAM_KEY }),
    ).toMatchInlineSnapshot(`
      "2 impact serve: IMPACT_SERVER_TOKENS: every token needs at least 16 characters (make one with: openssl rand -hex 24)
      "
    `);
    expect(await run([], { IMPACT_SERVER_TOKENS: TOKEN })).toMatchInlineSnapshot(`
      "2 impact serve: IMPACT_SERVER_TOKENS is set but OPENAI_API_KEY is not
      "
    `);
    expect(await run(["--port", "http"], { PORT: "1" })).toMatchInlineSnapshot(`
      "2 impact serve: --port must be a number from 0 to 65535, got "http"
      "
    `);
    expect(await run([], { PORT: "99999" })).toContain('got "99999"');
    expect(
      await run([], { ...router, IMPACT_BOT_CONCURRENCY: "two", IMPACT_RATE_LIMIT: "-1" }),
    ).toMatchInlineSnapshot(`
      "2 impact serve: IMPACT_RATE_LIMIT: must be a positive number, got "-1" (and 1 more)
      "
    `);
    // An empty variable is unset: the default applies (PORT="" was refused as a port before).
    expect(await run([], { PORT: "", IMPACT_SERVER_TOKENS: "" })).toContain("nothing to serve");
    expect(
      await run(["--port", "http"], {
        ...router,
        IMPACT_RATE_LIMIT: "",
        IMPACT_BOT_CONCURRENCY: " ",
        PORT: "",
      }),
    ).toMatchInlineSnapshot(`
      "2 impact serve: --port must be a number from 0 to 65535, got "http"
      "
    `);
  });

  it("prints its environment table from the one schema, which docs/backend.md lists too", async () => {
    const { io } = serveIo({});
    expect(await main(["serve", "--help"], io)).toBe(0);
    const names = Object.keys(ServeEnvSchema.shape);
    expect(names.length).toBeGreaterThan(25);
    const doc = readFileSync(join(import.meta.dirname, "..", "..", "docs", "backend.md"), "utf8");
    const documented = [...doc.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]);
    expect(documented.sort()).toEqual([...names].sort());
    for (const name of names) expect(io.out).toMatch(new RegExp(`^  ${name} +(router|bot|server)`, "m"));
    expect(io.out).toContain("Environment (an empty variable counts as unset):");
    expect(io.out).toMatch(/^ {2}IMPACT_ROUTER_TOKENS_PER_DAY +router +.*\(default 5,000,000\)$/m);
  });
});
