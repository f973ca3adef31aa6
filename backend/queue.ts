import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "pino";
import { DEFAULT_JOB_LEASE_MS, JOB_HEARTBEAT_MS, JOB_POLL_MS, STORE_SWEEP_MS } from "../shared/limits.js";
import type { JobResult, PullRequestJob } from "./job.js";
import type { EnqueueOutcome, FinishedState, QueueCaps, StateStore } from "./store/state-store.js";

export type RunJob = (job: PullRequestJob, signal: AbortSignal) => Promise<JobResult | undefined>;

/** What the queue reports as jobs end (the metrics). */
export interface QueueObserver {
  jobFinished(outcome: FinishedState | "superseded" | "released", seconds: number): void;
}

export interface PullRequestQueueOptions extends QueueCaps {
  store: StateStore;
  /** Jobs this instance runs at once. */
  concurrency: number;
  run: RunJob;
  logger: Logger;
  observer?: QueueObserver;
  /** This instance's name in the store's claims; default host, pid and a random part. */
  instance?: string;
  /**
   * A running job whose instance has not renewed its claim for this long is taken back
   * into the queue. With one instance (SQLite) every running job found at start is.
   */
  leaseMs?: number;
  /** Whether this process is the only one using the store (SQLite): then start() recovers every running job. */
  soleInstance: boolean;
  pollMs?: number;
  heartbeatMs?: number;
}

interface Running {
  job: PullRequestJob;
  controller: AbortController;
  done: Promise<void>;
  /** Set when a drain stopped the job: it goes back to the queue. */
  released: boolean;
}

/**
 * The PR bot's worker on top of the durable StateStore: deliveries become queued jobs
 * in the store (newest wins per PR, capped per repository); each instance claims jobs up
 * to its concurrency, renews its claims while they run, and records how they ended.
 */
export class PullRequestQueue {
  readonly #options: PullRequestQueueOptions;
  readonly #instance: string;
  readonly #running = new Map<string, Running>();
  #accepting = false;
  #pumping: Promise<void> | undefined;
  #pumpAgain = false;
  #timers: NodeJS.Timeout[] = [];
  #idle: Array<() => void> = [];

  constructor(options: PullRequestQueueOptions) {
    this.#options = options;
    this.#instance = options.instance ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  }

  get instance(): string {
    return this.#instance;
  }

  /** Takes back the jobs of dead instances (or, alone, of this folder's last run) and starts claiming. */
  async start(): Promise<void> {
    const { store, logger } = this.#options;
    const recovered = await this.#recover();
    if (recovered.requeued.length + recovered.failed.length > 0) {
      logger.info(recovered, "jobs of a stopped server taken back");
    }
    // A server restarted more often than the sweep's period still sweeps.
    await store.sweep().catch((error) => logger.warn({ error: messageOf(error) }, "state sweep failed"));
    this.#accepting = true;
    const poll = setInterval(() => this.#pump(), this.#options.pollMs ?? JOB_POLL_MS);
    const heartbeat = setInterval(
      () => void this.#heartbeat(),
      this.#options.heartbeatMs ?? JOB_HEARTBEAT_MS,
    );
    const sweep = setInterval(() => {
      store.sweep().catch((error) => logger.warn({ error: messageOf(error) }, "state sweep failed"));
      if (!this.#options.soleInstance) {
        this.#recover().catch((error) => logger.warn({ error: messageOf(error) }, "job recovery failed"));
      }
    }, this.#sweepMs());
    this.#timers = [poll, heartbeat, sweep];
    for (const timer of this.#timers) timer.unref();
    this.#pump();
  }

  /** Records the delivery's keys and queues its job, in one transaction (StateStore.enqueue). */
  async enqueue(job: PullRequestJob, deliveryKeys: readonly string[] = []): Promise<EnqueueOutcome> {
    const { store, maxPending, maxPendingPerRepository } = this.#options;
    const result = await store.enqueue(job, { maxPending, maxPendingPerRepository }, deliveryKeys);
    for (const id of result.stopped) {
      this.#running.get(id)?.controller.abort(new Error(`superseded by delivery ${job.deliveryId}`));
    }
    if (result.outcome === "queued" || result.outcome === "superseded") this.#pump();
    return result.outcome;
  }

  get running(): number {
    return this.#running.size;
  }

  /** Resolves when this instance runs nothing and finds nothing to claim. */
  idle(): Promise<void> {
    const promise = new Promise<void>((resolve) => this.#idle.push(resolve));
    this.#pump();
    return promise;
  }

  /**
   * Stops claiming; running jobs get `timeoutMs` to finish, then they are stopped and go
   * back to the queue (the next start, or another instance, runs them).
   */
  async close(timeoutMs = 0): Promise<void> {
    this.#accepting = false;
    for (const timer of this.#timers) clearInterval(timer);
    await this.#pumping;
    const all = () => Promise.all([...this.#running.values()].map((entry) => entry.done));
    if (this.#running.size > 0 && timeoutMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([all(), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
    }
    for (const entry of this.#running.values()) {
      entry.released = true;
      entry.controller.abort(new Error("server shutting down"));
    }
    await all();
  }

  #sweepMs(): number {
    return Math.min(STORE_SWEEP_MS, this.#options.leaseMs ?? DEFAULT_JOB_LEASE_MS);
  }

  #recover() {
    const staleBefore = this.#options.soleInstance
      ? Number.MAX_SAFE_INTEGER
      : Date.now() - (this.#options.leaseMs ?? DEFAULT_JOB_LEASE_MS);
    return this.#options.store.recover(staleBefore);
  }

  async #heartbeat(): Promise<void> {
    for (const [id, entry] of this.#running) {
      try {
        if (!(await this.#options.store.heartbeat(id, this.#instance))) {
          entry.controller.abort(new Error("the job was superseded or taken back"));
        }
      } catch (error) {
        this.#options.logger.warn({ delivery: id, error: messageOf(error) }, "heartbeat failed");
      }
    }
  }

  #pump(): void {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = (async () => {
      do {
        this.#pumpAgain = false;
        while (this.#accepting && this.#running.size < this.#options.concurrency) {
          let claimed: Awaited<ReturnType<StateStore["claim"]>>;
          try {
            claimed = await this.#options.store.claim(this.#instance);
          } catch (error) {
            this.#options.logger.warn({ error: messageOf(error) }, "claiming a job failed");
            break;
          }
          if (!claimed) break;
          this.#begin(claimed.job, claimed.attempt);
        }
      } while (this.#pumpAgain);
    })().finally(() => {
      this.#pumping = undefined;
      if (this.#running.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
    });
  }

  #begin(job: PullRequestJob, attempt: number): void {
    const controller = new AbortController();
    const entry: Running = { job, controller, done: Promise.resolve(), released: false };
    this.#running.set(job.deliveryId, entry);
    entry.done = this.#execute(entry, attempt);
  }

  async #execute(entry: Running, attempt: number): Promise<void> {
    const { job, controller } = entry;
    const { store, logger, observer } = this.#options;
    const log = logger.child({
      delivery: job.deliveryId,
      repository: job.repository.fullName,
      pr: job.number,
    });
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    let outcome: FinishedState | "superseded" | "released";
    try {
      log.info({ attempt }, "job started");
      const result = (await this.#options.run(job, controller.signal)) ?? { state: "done" };
      outcome = result.state;
      await store.finish(
        job.deliveryId,
        this.#instance,
        result.state,
        result.state === "dropped" ? result.reason : undefined,
      );
      if (result.state === "dropped") log.info({ reason: result.reason }, "job dropped");
      else log.info({ ms: Math.round(seconds() * 1000) }, "job finished");
    } catch (error) {
      const message = messageOf(error);
      const ms = Math.round(seconds() * 1000);
      try {
        if (entry.released) {
          outcome = "released";
          await store.release(job.deliveryId, this.#instance);
          log.info({ ms }, "job stopped by the shutdown; back in the queue");
        } else if (controller.signal.aborted) {
          outcome = "superseded";
          log.info({ ms, reason: message }, "job stopped");
        } else {
          outcome = "failed";
          await store.finish(job.deliveryId, this.#instance, "failed", message);
          log.error({ ms, error: message, ...codeOf(error) }, "job failed");
        }
      } catch (storeError) {
        outcome = "failed";
        log.error({ error: messageOf(storeError) }, "recording the job's end failed");
      }
    } finally {
      this.#running.delete(job.deliveryId);
    }
    observer?.jobFinished(outcome, seconds());
    this.#pump();
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function codeOf(error: unknown): { code?: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? { code } : {};
}
