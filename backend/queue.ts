import type { Logger } from "pino";

/** One pull request to run Impact on (from an accepted webhook delivery). */
export interface PullRequestJob {
  deliveryId: string;
  repository: { fullName: string; cloneUrl: string };
  number: number;
  headSha: string;
  baseSha: string;
}

export type RunJob = (job: PullRequestJob, signal: AbortSignal) => Promise<void>;

export interface PullRequestQueueOptions {
  /** Jobs running at once. */
  concurrency: number;
  /** Jobs waiting at most; beyond that `enqueue` answers "full". */
  maxPending: number;
  run: RunJob;
  logger: Logger;
}

/**
 * A bounded queue with one job per pull request: a newer push replaces a waiting job of
 * the same PR, and aborts a running one (its result would be stale anyway).
 */
export class PullRequestQueue {
  readonly #options: PullRequestQueueOptions;
  readonly #pending = new Map<string, PullRequestJob>();
  readonly #running = new Map<
    string,
    { job: PullRequestJob; controller: AbortController; done: Promise<void> }
  >();
  #closed = false;
  #idle: Array<() => void> = [];

  constructor(options: PullRequestQueueOptions) {
    this.#options = options;
  }

  enqueue(job: PullRequestJob): "queued" | "superseded" | "full" {
    if (this.#closed) return "full";
    const key = keyOf(job);
    let superseded = this.#pending.delete(key);
    const running = this.#running.get(key);
    // A push to a running PR takes the place of that run, so it may pass the bound
    // (by at most `concurrency`): the pending list stays bounded.
    if (!superseded && !running && this.#pending.size >= this.#options.maxPending) return "full";
    if (running) {
      running.controller.abort(new Error(`superseded by delivery ${job.deliveryId}`));
      superseded = true;
    }
    this.#pending.set(key, job);
    this.#pump();
    return superseded ? "superseded" : "queued";
  }

  get pending(): number {
    return this.#pending.size;
  }

  get running(): number {
    return this.#running.size;
  }

  /** Resolves when nothing is running or waiting. */
  idle(): Promise<void> {
    if (this.#pending.size === 0 && this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Takes no more jobs, drops waiting ones, aborts running ones and waits for them to stop. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#pending.clear();
    for (const { controller } of this.#running.values()) controller.abort(new Error("server shutting down"));
    await Promise.all([...this.#running.values()].map((entry) => entry.done));
  }

  #pump(): void {
    for (const [key, job] of this.#pending) {
      if (this.#running.size >= this.#options.concurrency) break;
      // A superseded run of the same PR is still stopping; start after it ends.
      if (this.#running.has(key)) continue;
      this.#pending.delete(key);
      const controller = new AbortController();
      const log = this.#options.logger.child({
        delivery: job.deliveryId,
        repository: job.repository.fullName,
        pr: job.number,
      });
      const entry = { job, controller, done: Promise.resolve() };
      this.#running.set(key, entry);
      entry.done = this.#start(key, job, controller, log);
    }
  }

  async #start(key: string, job: PullRequestJob, controller: AbortController, log: Logger): Promise<void> {
    const started = Date.now();
    try {
      log.info("job started");
      await this.#options.run(job, controller.signal);
      log.info({ ms: Date.now() - started }, "job finished");
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log.warn(
        { ms: Date.now() - started, error: message, aborted: controller.signal.aborted },
        "job failed",
      );
    } finally {
      this.#running.delete(key);
      this.#pump();
      if (this.#pending.size === 0 && this.#running.size === 0) {
        for (const resolve of this.#idle.splice(0)) resolve();
      }
    }
  }
}

function keyOf(job: PullRequestJob): string {
  return `${job.repository.fullName}#${job.number}`;
}
