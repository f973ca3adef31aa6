import { setTimeout as sleepTimer } from "node:timers/promises";
import { isAbortError, ModelApiError } from "../errors.js";
import { plural } from "../render/markdown.js";

/** How a model client retries: capped exponential backoff with jitter, `retry-after` honoured up to a cap. */
export interface RetryPolicy {
  /** Retries after the first attempt (so `maxRetries + 1` attempts in all). */
  maxRetries: number;
  /** Backoff before the first retry; doubled for each further one. */
  baseMs: number;
  /** Upper bound of the exponential backoff. */
  maxMs: number;
  /** Upper bound of a server's `retry-after`/`retry-after-ms` wish. */
  maxRetryAfterMs: number;
}

const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 4,
  baseMs: 500,
  maxMs: 8_000,
  maxRetryAfterMs: 30_000,
};

/** A retry policy plus who hears about each retry. */
export interface RetryLoopPolicy extends RetryPolicy {
  onRetry?: ((info: RetryInfo) => void) | undefined;
}

/** How a model client is told to retry: the fields of the default policy it changes, and who hears about each retry. */
export interface RetryOptions {
  retry?: Partial<RetryPolicy> | undefined;
  onRetry?: ((info: RetryInfo) => void) | undefined;
}

/** The loop policy of a client: the default policy with the fields `options.retry` sets. */
export function retryLoopPolicy(options: RetryOptions): RetryLoopPolicy {
  return { ...DEFAULT_RETRY_POLICY, ...options.retry, onRetry: options.onRetry };
}

/**
 * The one retry loop of the model clients. Runs `attempt`; on failure `classify` turns the
 * error into a ModelApiError (or throws it on, when it is not a model API failure). A
 * retryable failure is tried again after {@link retryDelayMs}, up to `policy.maxRetries`
 * times; a `retry-after` above `maxRetryAfterMs` is waited for only up to that cap (the
 * server may well be ready sooner, and one more try costs less than failing the article).
 * An abort of `signal` ends the loop at once, during an attempt or a wait.
 */
export async function withRetries<T>(
  policy: RetryLoopPolicy,
  attempt: (signal: AbortSignal) => Promise<T>,
  classify: (error: unknown) => ModelApiError,
  signal: AbortSignal,
): Promise<{ value: T; retries: number }> {
  for (let retries = 0; ; retries += 1) {
    if (signal.aborted) throw abortErrorFor(signal);
    let failure: ModelApiError;
    try {
      return { value: await attempt(signal), retries };
    } catch (error) {
      if (signal.aborted) throw abortErrorFor(signal);
      failure = classify(error);
    }
    if (!failure.retryable) throw failure;
    if (retries >= policy.maxRetries) {
      if (retries === 0) throw failure;
      throw new ModelApiError(
        `${failure.message} (still failing after ${plural(retries, "retry", "retries")})`,
        {
          retryable: true,
          reason: failure.reason,
          status: failure.status,
          retryAfterMs: failure.retryAfterMs,
          cause: failure,
        },
      );
    }
    const delayMs = retryDelayMs(policy, retries + 1, failure.retryAfterMs);
    policy.onRetry?.({
      attempt: retries + 1,
      delayMs,
      reason: failure.status === undefined ? failure.reason : String(failure.status),
    });
    await abortableSleep(delayMs, signal);
  }
}

/** Told before every retry sleep, for progress lines and the audit's retry count. */
export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  /** Why: "429", "500", "timeout", "connection". */
  reason: string;
}

/**
 * The wait before retry number `attempt` (1-based). A server's wish (`retryAfterMs`) wins
 * over the backoff but never exceeds `maxRetryAfterMs`; the backoff gets "equal jitter"
 * (half fixed, half random) so concurrent articles do not retry in lockstep.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) {
    return Math.min(Math.ceil(retryAfterMs), policy.maxRetryAfterMs);
  }
  const exponential = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}

/**
 * Reads `retry-after-ms` (milliseconds) or `retry-after` (seconds, or an HTTP date) from
 * response headers; undefined when absent or unreadable.
 */
export function parseRetryAfter(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const milliseconds = headers.get("retry-after-ms");
  if (milliseconds !== null) {
    const value = Number.parseFloat(milliseconds);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers.get("retry-after");
  if (after === null) return undefined;
  const trimmed = after.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number.parseFloat(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The error to throw when `signal` has fired: its reason when that is an abort error, else a fresh AbortError. */
export function abortErrorFor(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && isAbortError(reason)) return reason;
  return new DOMException("The operation was aborted", "AbortError");
}

/** Sleeps `ms`, rejecting at once with an abort error when `signal` fires. */
export async function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw abortErrorFor(signal);
  try {
    await sleepTimer(ms, undefined, { signal });
  } catch (error) {
    if (signal.aborted) throw abortErrorFor(signal);
    throw error;
  }
}
