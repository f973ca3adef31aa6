import { Octokit } from "@octokit/core";
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";

const GitHubOctokit = Octokit.plugin(retry, throttling);
/** The one GitHub API client of the CLI and the backend: Octokit with retries and throttling. */
export type GitHubClient = InstanceType<typeof GitHubOctokit>;

/** How many times a rate-limited request is tried again before giving up. */
const RATE_LIMIT_RETRIES = 3;
/** Never sleep longer than this for a rate limit; a CI job has better things to do. */
const MAX_RATE_LIMIT_WAIT_SECONDS = 120;
const DEFAULT_GITHUB_API_URL = "https://api.github.com";

export interface GitHubClientOptions {
  /**
   * Sent with every request. Absent: requests carry their own `authorization` header (the
   * backend's jobs, each with its own token) or none (the App's JWT requests sign themselves).
   */
  token?: string | undefined;
  /** REST API root; default https://api.github.com (GitHub Enterprise: https://HOST/api/v3). */
  apiUrl?: string | undefined;
  /** Milliseconds per second of `retry-after`; tests shrink it. Default 1000. */
  retryAfterBaseMs?: number;
  /**
   * Octokit's throttling: writes spaced as GitHub asks (a second apart, three for ones that
   * notify) and retries on rate limits. Default on; off (`IMPACT_GITHUB_THROTTLE=off`) for an
   * API without rate limits, such as a GitHub Enterprise Server with them turned off.
   */
  throttle?: boolean;
  /** Each request (each try) gives up after this long; default: no limit. */
  timeoutMs?: number;
  /** Receives one line per retry, for the user. */
  onRetry?: (message: string) => void;
}

/** An Octokit with retries on 5xx and (throttled) on primary and secondary rate limits. */
export function createGitHubClient(options: GitHubClientOptions = {}): GitHubClient {
  const retryAfterBaseValue = options.retryAfterBaseMs ?? 1000;
  const onLimit =
    (kind: string) =>
    (retryAfter: number, request: { method: string; url: string }, _o: unknown, count: number) => {
      if (count >= RATE_LIMIT_RETRIES || retryAfter > MAX_RATE_LIMIT_WAIT_SECONDS) return false;
      options.onRetry?.(
        `GitHub ${kind} rate limit on ${request.method} ${request.url}; retrying in ${retryAfter}s`,
      );
      return true;
    };
  const { timeoutMs } = options;
  return new GitHubOctokit({
    auth: options.token,
    baseUrl: (options.apiUrl ?? DEFAULT_GITHUB_API_URL).replace(/\/+$/, ""),
    userAgent: "impact-docs",
    retry: { retryAfterBaseValue },
    throttle: {
      enabled: options.throttle ?? true,
      retryAfterBaseValue,
      onRateLimit: onLimit("primary"),
      onSecondaryRateLimit: onLimit("secondary"),
    },
    ...(timeoutMs === undefined
      ? {}
      : {
          request: {
            fetch: (url: string | URL, init: RequestInit = {}) =>
              fetch(url, {
                ...init,
                signal: init.signal
                  ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)])
                  : AbortSignal.timeout(timeoutMs),
              }),
          },
        }),
    // Octokit's default logger writes warnings to the console; the caller decides what to print.
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
}
