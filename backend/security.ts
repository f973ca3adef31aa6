import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Whether `presented` equals one of `accepted`, in time that depends on neither the
 * tokens' contents nor which one matched: both sides are hashed to equal-length digests,
 * and every accepted token is compared.
 */
export function tokenMatches(presented: string, accepted: readonly string[]): boolean {
  const digest = sha256(presented);
  let matched = false;
  for (const token of accepted) {
    if (timingSafeEqual(digest, sha256(token))) matched = true;
  }
  return matched;
}

/** The token of an `Authorization: Bearer <token>` header; undefined for any other header. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1];
}

/** Whether a header has the shape of `X-Hub-Signature-256` (`sha256=` and 64 hex digits). */
export function isSignatureHeader(header: string | null | undefined): header is string {
  return typeof header === "string" && /^sha256=[0-9a-f]{64}$/i.test(header);
}

/** Whether a well-formed signature header names `digest` (the body's HMAC), in constant time. */
export function signatureMatches(header: string, digest: Buffer): boolean {
  const given = Buffer.from(header.slice("sha256=".length), "hex");
  return given.length === digest.length && timingSafeEqual(given, digest);
}

/** A stable, non-reversible name for a token in logs and rate-limit keys. */
export function tokenId(token: string): string {
  return sha256(token).toString("hex").slice(0, 12);
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Seconds until a request would be allowed (when not allowed). */
  retryAfterSeconds: number;
}

/**
 * A token bucket per key: `perMinute` requests a minute on average, bursts up to
 * `burst`. The keys are the configured bearer tokens, so the map stays small.
 */
export class RateLimiter {
  readonly #perMs: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(options: { perMinute: number; burst?: number; now?: (() => number) | undefined }) {
    this.#perMs = options.perMinute / 60_000;
    this.#burst = options.burst ?? Math.max(1, options.perMinute);
    this.#now = options.now ?? Date.now;
  }

  take(key: string): RateLimitDecision {
    const now = this.#now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.#burst, at: now };
    bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.at) * this.#perMs);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.#perMs / 1000)),
    };
  }
}

/**
 * A budget of model tokens per key (a router bearer token) and fixed window: a turn is
 * refused while the key has spent its budget, or when its estimated prompt would pass
 * what is left; each answered turn is charged what the upstream reported.
 */
export class TokenBudget {
  readonly #tokens: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #spent = new Map<string, { since: number; tokens: number }>();

  constructor(options: { tokens: number; windowMs: number; now?: (() => number) | undefined }) {
    this.#tokens = options.tokens;
    this.#windowMs = options.windowMs;
    this.#now = options.now ?? Date.now;
  }

  /** Whether `key` may start a turn whose prompt is about `estimate` tokens. */
  check(key: string, estimate: number): RateLimitDecision & { remaining: number } {
    const window = this.#window(key);
    const remaining = Math.max(0, this.#tokens - window.tokens);
    if (remaining > 0 && estimate <= remaining) return { allowed: true, retryAfterSeconds: 0, remaining };
    const retryAfterSeconds = Math.max(1, Math.ceil((window.since + this.#windowMs - this.#now()) / 1000));
    return { allowed: false, retryAfterSeconds, remaining };
  }

  charge(key: string, tokens: number): void {
    this.#window(key).tokens += tokens;
  }

  #window(key: string): { since: number; tokens: number } {
    const now = this.#now();
    let window = this.#spent.get(key);
    if (!window || now - window.since >= this.#windowMs) {
      window = { since: now, tokens: 0 };
      this.#spent.set(key, window);
    }
    return window;
  }
}
