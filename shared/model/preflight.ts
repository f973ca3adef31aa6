import { ModelApiError, ModelProtocolError, UsageError } from "../errors.js";
import type { ModelClient } from "./types.js";

/**
 * Checks a model setup with the client's one cheap request before any article starts, so
 * a wrong key, base URL or server fails once (exit 2, one line naming the base URL and
 * what to fix) instead of once per article. A busy server (429, 5xx) passes: the run's
 * retries deal with that. Clients without a preflight (replay) pass.
 */
export async function preflightModel(client: ModelClient, signal: AbortSignal): Promise<void> {
  if (!client.preflight) return;
  if (client.endpoint !== undefined && !isHttpUrl(client.endpoint)) {
    throw setupError(
      `the model API base URL "${client.endpoint}" is not an http(s) URL; set OPENAI_BASE_URL to the server's API root (e.g. https://api.openai.com/v1)`,
    );
  }
  const where = client.endpoint === undefined ? "the model API" : withoutCredentials(client.endpoint);
  try {
    await client.preflight(signal);
  } catch (error) {
    // Busy is not broken: the run's retries wait for a server that answers 429 or 5xx.
    if (error instanceof ModelApiError && error.reason === "status" && error.retryable) return;
    const message = preflightMessage(error, where);
    if (message === undefined) throw error;
    throw setupError(message, error);
  }
}

/** The one line for a failed preflight, from the error's structured fields; undefined to pass it on. */
function preflightMessage(error: unknown, where: string): string | undefined {
  if (error instanceof ModelProtocolError) {
    return `${where} is not an OpenAI-compatible API (${error.message}); check OPENAI_BASE_URL (it usually ends in /v1)`;
  }
  if (!(error instanceof ModelApiError)) return undefined;
  if (error.reason === "timeout") {
    return `${where} did not answer in time; check OPENAI_BASE_URL and that the server is running`;
  }
  if (error.reason === "connection") {
    return `cannot connect to ${where}; check OPENAI_BASE_URL and that the server is running`;
  }
  if (error.status === 401 || error.status === 403) {
    return `${where} refused the key (HTTP ${error.status}); check OPENAI_API_KEY`;
  }
  if (error.status === 404) {
    return `${where} has no OpenAI-compatible model list (HTTP 404); check OPENAI_BASE_URL (it usually ends in /v1)`;
  }
  return `${where} refused the preflight request (HTTP ${error.status}); check OPENAI_BASE_URL and OPENAI_API_KEY`;
}

/**
 * Whether a model call's failure means the setup is wrong for every article, not this one:
 * the key refused (401/403, or the router's token), or the model unknown (404 from the API,
 * which the preflight found serving, or the router's `model_not_allowed`). The run stops
 * there (docs/models.md) instead of failing each article on its own.
 */
export function setupFailure(
  error: unknown,
  client: Pick<ModelClient, "model" | "endpoint" | "credential">,
  /** What stopped, at the end of the line (the judge says its own). */
  stopped = "the run stopped; no article was started after it",
): string | undefined {
  if (!(error instanceof ModelApiError) || error.reason !== "status") return undefined;
  const where = client.endpoint === undefined ? "the model API" : safeEndpoint(client.endpoint);
  const model = JSON.stringify(client.model);
  if (error.status === 401 || error.status === 403)
    return `model setup: ${where} refused the key for model ${model} (HTTP ${error.status}); check ${client.credential ?? "OPENAI_API_KEY"}; ${stopped}`;
  if (error.status === 404 || error.apiCode === "model_not_found" || error.apiCode === "model_not_allowed")
    return `model setup: ${where} does not serve model ${model} (HTTP ${error.status}); set --model or IMPACT_MODEL to a model it serves; ${stopped}`;
  return undefined;
}

/** An endpoint as messages show it: without credentials, and as given when it is no URL. */
function safeEndpoint(endpoint: string): string {
  return URL.canParse(endpoint) ? withoutCredentials(endpoint) : "the model API";
}

function setupError(message: string, cause?: unknown): UsageError {
  return new UsageError(`model setup: ${message}; no article was started`, { code: "config", cause });
}

/** Whether `text` is an http(s) URL ("localhost:11434" parses as a URL of scheme "localhost:"). */
function isHttpUrl(text: string): boolean {
  return URL.canParse(text) && ["http:", "https:"].includes(new URL(text).protocol);
}

/** A base URL as it may be shown: without a user name or password in it. */
function withoutCredentials(endpoint: string): string {
  const url = new URL(endpoint);
  url.username = "";
  url.password = "";
  return url.toString().replace(/\/$/, "");
}
