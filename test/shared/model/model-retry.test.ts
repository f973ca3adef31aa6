import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isAbortError, ModelApiError } from "../../../shared/errors.js";
import {
  abortableSleep,
  parseRetryAfter,
  type RetryInfo,
  type RetryPolicy,
  retryDelayMs,
  retryLoopPolicy,
  withRetries,
} from "../../../shared/model/retry.js";

const policy: RetryPolicy = { maxRetries: 4, baseMs: 500, maxMs: 8_000, maxRetryAfterMs: 30_000 };

describe("retry policy", () => {
  it("backs off exponentially with jitter, never past the cap", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          const exponential = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
          const delay = retryDelayMs(policy, attempt, undefined, () => r);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(exponential / 2));
          expect(delay).toBeLessThanOrEqual(exponential);
        },
      ),
    );
    expect(
      [1, 2, 3, 4, 5, 6].map((attempt) => retryDelayMs(policy, attempt, undefined, () => 0.999)),
    ).toEqual([500, 1000, 1999, 3998, 7996, 7996]);
  });

  it("takes the server's retry-after, capped", () => {
    expect(retryDelayMs(policy, 1, 1_200)).toBe(1_200);
    expect(retryDelayMs(policy, 1, 3_600_000)).toBe(30_000);
    expect(retryDelayMs(policy, 1, 0)).toBe(0);
  });

  it("reads retry-after-ms, retry-after in seconds and as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(parseRetryAfter(new Headers({ "retry-after": "1.5" }), now)).toBe(1_500);
    expect(parseRetryAfter(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:07 GMT" }), now)).toBe(7_000);
    expect(parseRetryAfter(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
  });

  it("is the default policy with the fields a client sets", () => {
    const onRetry = (_info: RetryInfo) => {};
    expect(retryLoopPolicy({})).toEqual({ ...policy, onRetry: undefined });
    expect(retryLoopPolicy({ retry: { maxRetries: 0 }, onRetry })).toEqual({
      ...policy,
      maxRetries: 0,
      onRetry,
    });
  });

  it("sleeps until aborted, then rejects with an abort error", async () => {
    const controller = new AbortController();
    const sleeping = abortableSleep(3_600_000, controller.signal).catch((error: unknown) => error);
    controller.abort();
    expect(isAbortError(await sleeping)).toBe(true);
    expect(isAbortError(await abortableSleep(1, controller.signal).catch((error: unknown) => error))).toBe(
      true,
    );
  });
});

describe("withRetries", () => {
  const fast: RetryPolicy = { maxRetries: 2, baseMs: 1, maxMs: 2, maxRetryAfterMs: 5 };
  const failing = (details: Partial<ModelApiError> = {}) =>
    new ModelApiError("HTTP 429: slow down", {
      retryable: details.retryable ?? true,
      reason: "status",
      status: 429,
      retryAfterMs: details.retryAfterMs,
    });
  const asModelError = (error: unknown) => {
    if (error instanceof ModelApiError) return error;
    throw error;
  };

  it("waits a retry-after above the cap only up to the cap, then tries again", async () => {
    const seen: RetryInfo[] = [];
    let calls = 0;
    const result = await withRetries(
      { ...fast, onRetry: (info) => seen.push(info) },
      async () => {
        calls += 1;
        if (calls === 1) throw failing({ retryAfterMs: 3_600_000 });
        return "ok";
      },
      asModelError,
      new AbortController().signal,
    );
    expect(result).toEqual({ value: "ok", retries: 1 });
    expect(seen).toEqual([{ attempt: 1, delayMs: 5, reason: "429" }]);
  });

  it("gives up after maxRetries, keeping reason, status and retryAfterMs", async () => {
    const error = await withRetries(
      fast,
      async () => {
        throw failing({ retryAfterMs: 1 });
      },
      asModelError,
      new AbortController().signal,
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelApiError);
    expect((error as ModelApiError).message).toBe("HTTP 429: slow down (still failing after 2 retries)");
    expect((error as ModelApiError).reason).toBe("status");
    expect((error as ModelApiError).status).toBe(429);
    expect((error as ModelApiError).retryAfterMs).toBe(1);
  });

  it("throws a failure that is not retryable at once, and anything classify throws on", async () => {
    let calls = 0;
    const refused = await withRetries(
      fast,
      async () => {
        calls += 1;
        throw failing({ retryable: false });
      },
      asModelError,
      new AbortController().signal,
    ).catch((caught: unknown) => caught);
    expect((refused as ModelApiError).message).toBe("HTTP 429: slow down");
    expect(calls).toBe(1);
    const bug = new TypeError("a bug");
    await expect(
      withRetries(
        fast,
        async () => {
          throw bug;
        },
        asModelError,
        new AbortController().signal,
      ),
    ).rejects.toBe(bug);
  });

  it("stops at once when aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    const error = await withRetries(
      fast,
      async () => {
        calls += 1;
        return "never";
      },
      asModelError,
      controller.signal,
    ).catch((caught: unknown) => caught);
    expect(isAbortError(error)).toBe(true);
    expect(calls).toBe(0);
  });
});
