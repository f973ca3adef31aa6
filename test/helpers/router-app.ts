import { onTestFinished } from "vitest";
import { createApp } from "../../backend/app.js";
import type { RouterDeps } from "../../backend/routes/turn.js";
import { createLogger } from "../../backend/server.js";
import { createOpenAIModelClient } from "../../shared/model/openai-client.js";
import { systemPrompt } from "../../shared/prompts.js";
import { buildToolManifest } from "../../shared/tools/manifest.js";
import { type Script, type ScriptedModelServer, startScriptedModelServer } from "./scripted-model-server.js";

/** The upstream model key the router holds: a fake, the scripted server takes any. */
export const ROUTER_UPSTREAM_KEY = "sk-test-not-a-real-key-upstream";
/** Bearer tokens the router accepts. */
export const ROUTER_TOKEN = "impact-test-token-0123456789";
export const ROUTER_OTHER_TOKEN = "impact-test-token-abcdefghij";

export interface RouterApp {
  app: ReturnType<typeof createApp>;
  upstream: ScriptedModelServer;
  /** Every log line so far (the upstream key is redacted from them, as in `impact serve`). */
  logs: string[];
  /** `postTurn` to this app. */
  turn(body: unknown, token?: string): Promise<Response>;
  /** Closes the upstream; also done when the test ends. */
  close(): Promise<void>;
}

/**
 * The router app (createApp with router deps, no port) in front of a scripted upstream model
 * on 127.0.0.1 that answers `script`, accepting both test tokens; `options` replace its deps.
 */
export async function startRouterApp(
  script: Script,
  options: Partial<RouterDeps> & { now?: () => number } = {},
): Promise<RouterApp> {
  const { now, ...deps } = options;
  const upstream = await startScriptedModelServer(script);
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= upstream.close());
  onTestFinished(close);
  const logs: string[] = [];
  const app = createApp({
    logger: createLogger((line) => logs.push(line), { OPENAI_API_KEY: ROUTER_UPSTREAM_KEY }),
    router: {
      tokens: [ROUTER_TOKEN, ROUTER_OTHER_TOKEN],
      upstream: createOpenAIModelClient({
        apiKey: ROUTER_UPSTREAM_KEY,
        baseURL: upstream.url,
        model: "gpt-test",
        retry: { maxRetries: 0 },
      }),
      systemPrompt,
      tools: buildToolManifest,
      rateLimit: { perMinute: 600 },
      ...deps,
    },
    now,
  });
  return { app, upstream, logs, turn: (body, token) => postTurn(app, body, token), close };
}

/** POST /v1/impact/turn to `app` with `body` (a string is sent as it is) and `token` as bearer (none when empty). */
export async function postTurn(
  app: { fetch: (request: Request) => Response | Promise<Response> },
  body: unknown,
  token = ROUTER_TOKEN,
): Promise<Response> {
  return app.fetch(
    new Request("http://router.test/v1/impact/turn", {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}
