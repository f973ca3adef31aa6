import { resolve as resolvePath } from "node:path";
import { UsageError } from "../errors.js";
import { DEFAULT_MODEL, REPLAY_PREFIX } from "./model-names.js";
import { createOpenAIModelClient } from "./openai-client.js";
import { createReplayModelClient } from "./replay.js";
import type { RetryInfo } from "./retry.js";
import type { ModelClient } from "./types.js";

// In a module of their own so that commands which may not need a model can name them
// without loading the OpenAI SDK.
export { DEFAULT_MODEL, REPLAY_PREFIX };

export interface ResolveModelOptions {
  /** `--model`: a model name, or `replay:FILE`. Falls back to IMPACT_MODEL, then DEFAULT_MODEL. */
  model?: string;
  env: Record<string, string | undefined>;
  /** Directory a relative `replay:FILE` is read from; default the process's. */
  cwd?: string;
  stream?: boolean;
  timeoutMs?: number;
  onRetry?: (info: RetryInfo) => void;
  /** `--router URL`; IMPACT_ROUTER_URL / IMPACT_ROUTER_TOKEN when not given. */
  router?: { url: string; token?: string };
}

const NO_KEY_MESSAGE =
  "no model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible server), " +
  "or use a router with --router URL or IMPACT_ROUTER_URL, or replay a recording with --model replay:FILE " +
  "(`impact plan` needs no key)";

/**
 * Picks the ModelClient for a run: `replay:FILE` → the replay client (no network, no key);
 * else a router (`router` or IMPACT_ROUTER_URL) → the router client; else OPENAI_API_KEY
 * (with OPENAI_BASE_URL) → the OpenAI client. Nothing of these → UsageError saying how to
 * set one up.
 */
export async function resolveModelClient(options: ResolveModelOptions): Promise<ModelClient> {
  const env = options.env;
  const model = options.model || env.IMPACT_MODEL || DEFAULT_MODEL;
  if (model.startsWith(REPLAY_PREFIX)) {
    const file = model.slice(REPLAY_PREFIX.length);
    if (!file) throw new UsageError("--model replay:FILE needs a file name after replay:");
    return createReplayModelClient(resolvePath(options.cwd ?? process.cwd(), file));
  }
  const router =
    options.router ??
    (env.IMPACT_ROUTER_URL
      ? { url: env.IMPACT_ROUTER_URL, ...(env.IMPACT_ROUTER_TOKEN ? { token: env.IMPACT_ROUTER_TOKEN } : {}) }
      : undefined);
  if (router) {
    // Loaded lazily: only router runs pay for it.
    const { createRouterModelClient } = await import("./router-client.js");
    return createRouterModelClient({
      url: router.url,
      ...(router.token ? { token: router.token } : {}),
      model,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    });
  }
  const apiKey = env.OPENAI_API_KEY;
  if (!apiKey) throw new UsageError(NO_KEY_MESSAGE, { code: "config" });
  return createOpenAIModelClient({
    apiKey,
    model,
    ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
    ...(options.stream === undefined ? {} : { stream: options.stream }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
  });
}
