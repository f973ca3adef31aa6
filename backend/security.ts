import { createHash, createHmac, timingSafeEqual } from "node:crypto";

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

/** Checks GitHub's `X-Hub-Signature-256: sha256=<hex>` over the raw body, in constant time. */
export function verifyGitHubSignature(
  secret: string,
  rawBody: Uint8Array,
  header: string | undefined,
): boolean {
  if (!header || !/^sha256=[0-9a-f]{64}$/i.test(header)) return false;
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  const given = Buffer.from(header.slice("sha256=".length), "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
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

  constructor(options: { perMinute: number; burst?: number; now?: () => number }) {
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
 * Remembers ids (webhook deliveries) for at least `ttlMs`, at most `max` of them; the
 * oldest go first when full.
 */
export class SeenIds {
  readonly #ids = new Map<string, number>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: { ttlMs: number; max: number; now?: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#max = options.max;
    this.#now = options.now ?? Date.now;
  }

  /** Records `id`; returns false when it was already seen (and not expired). */
  add(id: string): boolean {
    const now = this.#now();
    for (const [key, at] of this.#ids) {
      if (now - at < this.#ttlMs && this.#ids.size < this.#max) break;
      this.#ids.delete(key);
    }
    const at = this.#ids.get(id);
    if (at !== undefined && now - at < this.#ttlMs) return false;
    // Delete first so the map stays in time order (set() would keep an old key's place).
    this.#ids.delete(id);
    this.#ids.set(id, now);
    return true;
  }

  /** Records all of `ids`, or none when any was already seen (and not expired). */
  addAll(ids: readonly string[]): boolean {
    const now = this.#now();
    if (ids.some((id) => now - (this.#ids.get(id) ?? Number.NEGATIVE_INFINITY) < this.#ttlMs)) return false;
    for (const id of ids) this.add(id);
    return true;
  }

  /** Forgets `id` (its delivery was not acted on, so a redelivery may be). */
  delete(id: string): void {
    this.#ids.delete(id);
  }

  get size(): number {
    return this.#ids.size;
  }
}
