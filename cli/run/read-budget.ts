import { DEFAULT_READ_BYTES_IN_FLIGHT } from "../../shared/limits.js";

/**
 * One budget for the bytes of files the read tools hold at once, shared by every article of
 * a run (it lives on the run's Workspace). A search loading batches of large files waits
 * here until the bytes it asks for are free, so parallel calls across concurrent articles
 * cannot load more than `capacity` bytes together. Waiters are served in order; a request
 * larger than the whole budget asks for the whole budget (it runs alone).
 */
export class ReadBudget {
  readonly capacity: number;
  #inUse = 0;
  #peak = 0;
  #waited = 0;
  #peakAsked = 0;
  /** Bytes asked for by requests not yet released, held or waiting. */
  #asked = 0;
  readonly #waiting: {
    bytes: number;
    signal: AbortSignal | undefined;
    grant: () => void;
    cancel: (reason: unknown) => void;
  }[] = [];
  /** One abort listener per signal however many of its calls wait (a run shares one signal). */
  readonly #watched = new Map<AbortSignal, () => void>();

  constructor(capacity: number = DEFAULT_READ_BYTES_IN_FLIGHT) {
    if (!Number.isFinite(capacity) || capacity < 1) throw new Error(`bug: read budget ${capacity}`);
    this.capacity = Math.floor(capacity);
  }

  /** Bytes held now. */
  get inUse(): number {
    return this.#inUse;
  }

  /** The most bytes ever held at once: never above `capacity`. */
  get peak(): number {
    return this.#peak;
  }

  /** The most bytes ever asked for at once (held or waiting): what the reads would have loaded without the budget. */
  get peakAsked(): number {
    return this.#peakAsked;
  }

  /** How many requests had to wait for bytes to be released. */
  get waited(): number {
    return this.#waited;
  }

  /**
   * Waits until `bytes` (at most the whole budget) are free and takes them; the returned
   * function gives them back (once). Rejects with the signal's reason when it aborts first.
   */
  async acquire(bytes: number, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    const requested = Math.max(0, Math.ceil(bytes));
    const wanted = Math.min(requested, this.capacity);
    this.#asked += requested;
    this.#peakAsked = Math.max(this.#peakAsked, this.#asked);
    if (this.#waiting.length === 0 && this.#inUse + wanted <= this.capacity) {
      this.#take(wanted);
    } else {
      this.#waited += 1;
      await new Promise<void>((resolve, reject) => {
        this.#waiting.push({
          bytes: wanted,
          signal,
          grant: resolve,
          cancel: (reason) => {
            this.#asked -= requested;
            reject(reason);
          },
        });
        if (signal) this.#watch(signal);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inUse -= wanted;
      this.#asked -= requested;
      this.#serve();
    };
  }

  #take(bytes: number): void {
    this.#inUse += bytes;
    this.#peak = Math.max(this.#peak, this.#inUse);
  }

  /** Grants waiters in order while the first one fits. */
  #serve(): void {
    for (;;) {
      const first = this.#waiting[0];
      if (!first || this.#inUse + first.bytes > this.capacity) break;
      this.#waiting.shift();
      this.#take(first.bytes);
      first.grant();
    }
    this.#unwatchIdle();
  }

  #watch(signal: AbortSignal): void {
    if (this.#watched.has(signal)) return;
    const onAbort = () => {
      this.#watched.delete(signal);
      for (const waiter of this.#waiting.filter((entry) => entry.signal === signal)) {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1);
        waiter.cancel(signal.reason);
      }
      this.#serve();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    this.#watched.set(signal, onAbort);
  }

  /** Drops the listeners of signals no call waits on any more. */
  #unwatchIdle(): void {
    for (const [signal, onAbort] of this.#watched) {
      if (this.#waiting.some((entry) => entry.signal === signal)) continue;
      signal.removeEventListener("abort", onAbort);
      this.#watched.delete(signal);
    }
  }
}
