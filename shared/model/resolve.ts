import { resolve as resolvePath } from "node:path";
import { UsageError } from "../errors.js";
import type { ResolvedSettings } from "../settings.js";
import { DEFAULT_MODEL, REPLAY_PREFIX } from "./model-names.js";
import { createOpenAIModelClient } from "./openai-client.js";
import { createReplayModelClient } from "./replay.js";
import type { RetryInfo } from "./retry.js";
import type { ModelClient } from "./types.js";

// In a module of their own so that commands which may not need a model can name them
// without loading the OpenAI SDK.
export { DEFAULT_MODEL, REPLAY_PREFIX };

export interface ResolveModelOptions {
  /** The model, key, base URL and router, resolved by resolveSettings (flag, env, config, default). */
  settings: Pick<ResolvedSettings, "model" | "apiKey" | "baseUrl" | "routerUrl" | "routerToken">;
  /** Directory a relative `replay:FILE` is read from; default the process's. */
  cwd?: string | undefined;
  stream?: boolean | undefined;
  timeoutMs?: number | undefined;
  onRetry?: ((info: RetryInfo) => void) | undefined;
}

const NO_KEY_MESSAGE =
  "no model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible server), " +
  "or use a router with --router URL or IMPACT_ROUTER_URL, or replay a recording with --model replay:FILE " +
  "(`impact plan` needs no key)";

/**
 * Picks the ModelClient for a run: `replay:FILE` → the replay client (no network, no key);
 * else a router URL (--router or IMPACT_ROUTER_URL) → the router client; else an API key
 * (OPENAI_API_KEY, with OPENAI_BASE_URL) → the OpenAI client. Nothing of these → UsageError saying how to
 * set one up.
 */
export async function resolveModelClient(options: ResolveModelOptions): Promise<ModelClient> {
  const { settings } = options;
  const model = settings.model;
  if (model.startsWith(REPLAY_PREFIX)) {
    const file = model.slice(REPLAY_PREFIX.length);
    if (!file) throw new UsageError("--model replay:FILE needs a file name after replay:");
    return createReplayModelClient(resolvePath(options.cwd ?? process.cwd(), file));
  }
  // resolveSettings gives no empty strings: a URL or token is set or undefined.
  if (settings.routerUrl) {
    // Loaded lazily: only router runs pay for it.
    const { createRouterModelClient } = await import("./router-client.js");
    return createRouterModelClient({
      url: settings.routerUrl,
      token: settings.routerToken,
      model,
      timeoutMs: options.timeoutMs,
      onRetry: options.onRetry,
    });
  }
  const apiKey = settings.apiKey;
  if (!apiKey) throw new UsageError(NO_KEY_MESSAGE, { code: "config" });
  return createOpenAIModelClient({
    apiKey,
    model,
    baseURL: settings.baseUrl,
    stream: options.stream,
    timeoutMs: options.timeoutMs,
    onRetry: options.onRetry,
  });
}
