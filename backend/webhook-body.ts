import { createHmac } from "node:crypto";
import { WEBHOOK_BODY_LIMIT, WEBHOOK_BODY_READ_MS, WEBHOOK_CONCURRENT_BODIES } from "../shared/limits.js";
import { isSignatureHeader, signatureMatches } from "./security.js";

/** Why a webhook body was not taken, with the status it answers. */
export type WebhookBodyRefusal =
  | { ok: false; status: 401; code: "unauthorized"; message: string }
  | { ok: false; status: 413; code: "body_too_large"; message: string }
  | { ok: false; status: 408; code: "body_timeout"; message: string }
  | { ok: false; status: 503; code: "busy"; message: string; retryAfterSeconds: number };

/** What the gate did, for tests and logs: nothing here grows with the bodies refused. */
export interface WebhookBodyStats {
  /** Bodies being read now (not yet verified). */
  reading: number;
  /** The most bodies read at once. */
  peakReading: number;
  /** Bytes of unverified bodies held now, and the most ever held at once. */
  bytesHeld: number;
  peakBytesHeld: number;
  /** Refused before reading a byte: no or malformed signature header, a declared length over the cap, or all slots busy. */
  refusedUnsigned: number;
  refusedDeclaredTooLarge: number;
  refusedBusy: number;
  /** Stopped while reading: over the cap, or too slow. */
  stoppedTooLarge: number;
  stoppedSlow: number;
  /** Read whole, signature wrong. */
  refusedSignature: number;
}

/**
 * Reads webhook bodies without letting unauthenticated senders use the server's memory:
 * a request without a well-formed `X-Hub-Signature-256` or with a declared length over
 * the cap is refused before its body is read; at most `maxConcurrent` bodies are read at
 * once (the rest get 503 at once); a body is hashed chunk by chunk as it streams in and
 * dropped the moment it passes `maxBytes` or `readMs`; only a body whose HMAC matches
 * comes back.
 */
export class WebhookBodyGate {
  readonly maxBytes: number;
  readonly maxConcurrent: number;
  readonly readMs: number;
  readonly #stats: WebhookBodyStats = {
    reading: 0,
    peakReading: 0,
    bytesHeld: 0,
    peakBytesHeld: 0,
    refusedUnsigned: 0,
    refusedDeclaredTooLarge: 0,
    refusedBusy: 0,
    stoppedTooLarge: 0,
    stoppedSlow: 0,
    refusedSignature: 0,
  };

  constructor(options: { maxBytes?: number; maxConcurrent?: number; readMs?: number } = {}) {
    this.maxBytes = options.maxBytes ?? WEBHOOK_BODY_LIMIT;
    this.maxConcurrent = options.maxConcurrent ?? WEBHOOK_CONCURRENT_BODIES;
    this.readMs = options.readMs ?? WEBHOOK_BODY_READ_MS;
  }

  get stats(): Readonly<WebhookBodyStats> {
    return { ...this.#stats };
  }

  /** The raw body when its signature checks out with `secret`, else why not. */
  async read(request: Request, secret: string): Promise<{ ok: true; raw: Uint8Array } | WebhookBodyRefusal> {
    const stats = this.#stats;
    const header = request.headers.get("x-hub-signature-256");
    if (!isSignatureHeader(header)) {
      stats.refusedUnsigned += 1;
      return unauthorized();
    }
    const declared = Number(request.headers.get("content-length") ?? Number.NaN);
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      stats.refusedDeclaredTooLarge += 1;
      return this.#tooLarge();
    }
    if (stats.reading >= this.maxConcurrent) {
      stats.refusedBusy += 1;
      return {
        ok: false,
        status: 503,
        code: "busy",
        message: "too many webhook bodies being received; redeliver later",
        retryAfterSeconds: 5,
      };
    }
    stats.reading += 1;
    stats.peakReading = Math.max(stats.peakReading, stats.reading);
    let held = 0;
    const hmac = createHmac("sha256", secret);
    const chunks: Uint8Array[] = [];
    const reader = request.body?.getReader();
    let timer: NodeJS.Timeout | undefined;
    try {
      if (reader) {
        const deadline = new Promise<"slow">((resolve) => {
          timer = setTimeout(() => resolve("slow"), this.readMs);
        });
        for (;;) {
          const next = await Promise.race([reader.read(), deadline]);
          if (next === "slow") {
            stats.stoppedSlow += 1;
            await reader.cancel().catch(() => {});
            return {
              ok: false,
              status: 408,
              code: "body_timeout",
              message: `the webhook body did not arrive within ${this.readMs} ms`,
            };
          }
          if (next.done) break;
          held += next.value.byteLength;
          stats.bytesHeld += next.value.byteLength;
          stats.peakBytesHeld = Math.max(stats.peakBytesHeld, stats.bytesHeld);
          if (held > this.maxBytes) {
            stats.stoppedTooLarge += 1;
            await reader.cancel().catch(() => {});
            return this.#tooLarge();
          }
          hmac.update(next.value);
          chunks.push(next.value);
        }
      }
      if (!signatureMatches(header, hmac.digest())) {
        stats.refusedSignature += 1;
        return unauthorized();
      }
      return { ok: true, raw: Buffer.concat(chunks) };
    } finally {
      clearTimeout(timer);
      stats.reading -= 1;
      stats.bytesHeld -= held;
    }
  }

  #tooLarge(): WebhookBodyRefusal {
    return {
      ok: false,
      status: 413,
      code: "body_too_large",
      message: `webhook body over ${this.maxBytes} bytes`,
    };
  }
}

function unauthorized(): WebhookBodyRefusal {
  return { ok: false, status: 401, code: "unauthorized", message: "missing or wrong X-Hub-Signature-256" };
}
