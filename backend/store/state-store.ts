import { UsageError } from "../../shared/errors.js";
import {
  DELIVERY_TTL_MS,
  FINISHED_JOB_TTL_MS,
  JOB_MAX_ATTEMPTS,
  PULL_REQUEST_TTL_MS,
  RESULT_CACHE_TTL_MS,
} from "../../shared/limits.js";
import type { PullRequestJob } from "../job.js";
import type { SqlDriver } from "./driver.js";
import { migrate } from "./migrations.js";

export const JOB_STATES = ["queued", "running", "done", "failed", "dropped", "superseded"] as const;
export type JobState = (typeof JOB_STATES)[number];
/** How a job ended: `dropped` when its head was no longer the PR's (or the PR closed). */
export type FinishedState = Extract<JobState, "done" | "failed" | "dropped">;

/**
 * What became of a delivery offered to the queue: `queued`; `superseded` (queued, and an
 * older job of the same PR was dropped or stopped); `duplicate` (its id or body was seen
 * before: ignored); `stale` (older than the PR's latest delivery: ignored); `full` or
 * `repository_full` (refused; GitHub may redeliver later).
 */
export type EnqueueOutcome = "queued" | "superseded" | "duplicate" | "stale" | "full" | "repository_full";

export interface EnqueueResult {
  outcome: EnqueueOutcome;
  /** Jobs of the same PR that were running and are superseded now (their instance stops them). */
  stopped: string[];
}

export interface QueueCaps {
  maxPending: number;
  maxPendingPerRepository: number;
}

export interface ClaimedJob {
  job: PullRequestJob;
  attempt: number;
}

interface JobRow {
  id: string;
  repository: string;
  number: number;
  head_sha: string;
  base_sha: string;
  clone_url: string;
  installation_id: number | null;
  updated_at: string | null;
  attempts: number;
}

class Refused {
  constructor(readonly outcome: EnqueueOutcome) {}
}

/**
 * The PR bot's durable state: deliveries seen, jobs and their states, each PR's latest
 * head and comment id, and each repository's result cache. One implementation over SQL that both SQLite (one instance) and
 * Postgres (several instances, jobs claimed with FOR UPDATE SKIP LOCKED) run.
 */
export class StateStore {
  readonly #driver: SqlDriver;
  readonly #now: () => number;

  constructor(driver: SqlDriver, now: () => number = Date.now) {
    this.#driver = driver;
    this.#now = now;
  }

  get kind(): SqlDriver["kind"] {
    return this.#driver.kind;
  }

  get location(): string {
    return this.#driver.location;
  }

  /**
   * Records a delivery and queues its job in one transaction, newest wins: the PR's queued
   * and running jobs are superseded. `duplicate` when any of `deliveryKeys` was seen within
   * DELIVERY_TTL_MS; refused (`full`, `repository_full`) when past the caps; `stale` when
   * older than the PR's latest delivery (the keys are recorded, the job is not). A refused
   * delivery, or a failure anywhere on the way, records nothing, so GitHub's redelivery
   * is taken.
   */
  async enqueue(
    job: PullRequestJob,
    caps: QueueCaps,
    deliveryKeys: readonly string[] = [],
  ): Promise<EnqueueResult> {
    try {
      return await this.#driver.transaction(async (tx) => {
        const now = this.#now();
        for (const deliveryKey of deliveryKeys) {
          const inserted = await tx.query(
            `INSERT INTO deliveries (key, seen_at) VALUES ($1, $2)
             ON CONFLICT (key) DO UPDATE SET seen_at = excluded.seen_at WHERE deliveries.seen_at < $3
             RETURNING key`,
            [deliveryKey, now, now - DELIVERY_TTL_MS],
          );
          if (inserted.length === 0) throw new Refused("duplicate");
        }
        const key = [job.repository.fullName, job.number] as const;
        // Taking the PR's row first makes concurrent deliveries of one PR take turns.
        await tx.query(
          `INSERT INTO pull_requests (repository, number, head_sha, updated_at, changed_at)
           VALUES ($1, $2, $3, $4, $5) ON CONFLICT (repository, number) DO NOTHING`,
          [...key, job.headSha, job.updatedAt ?? null, now],
        );
        const [current] = await tx.query<{ head_sha: string; updated_at: string | null }>(
          `SELECT head_sha, updated_at FROM pull_requests WHERE repository = $1 AND number = $2${this.#forUpdate("")}`,
          key,
        );
        if (current?.updated_at && job.updatedAt && job.updatedAt < current.updated_at) {
          return { outcome: "stale", stopped: [] };
        }
        const [counts] = await tx.query<{ total: number; repository: number; running: number }>(
          `SELECT count(*) FILTER (WHERE state = 'queued' AND NOT (repository = $1 AND number = $2)) AS total,
                  count(*) FILTER (WHERE state = 'queued' AND repository = $1 AND number <> $2) AS repository,
                  count(*) FILTER (WHERE state = 'running' AND repository = $1 AND number = $2) AS running
           FROM jobs WHERE state IN ('queued', 'running')`,
          key,
        );
        // A push to a PR that is running takes that run's place, so it may pass the caps (by
        // at most the running jobs): the waiting list stays bounded.
        if (Number(counts?.running ?? 0) === 0) {
          if (Number(counts?.repository ?? 0) >= caps.maxPendingPerRepository)
            throw new Refused("repository_full");
          if (Number(counts?.total ?? 0) >= caps.maxPending) throw new Refused("full");
        }
        await tx.query(
          `UPDATE pull_requests SET head_sha = $3, updated_at = $4, changed_at = $5
           WHERE repository = $1 AND number = $2`,
          [...key, job.headSha, job.updatedAt ?? current?.updated_at ?? null, now],
        );
        const superseded = await tx.query<{ id: string; state: string }>(
          `UPDATE jobs SET state = 'superseded', finished_at = $3, reason = $4
           WHERE repository = $1 AND number = $2 AND state IN ('queued', 'running')
           RETURNING id, state`,
          [...key, now, `superseded by delivery ${job.deliveryId}`],
        );
        await tx.query(
          `INSERT INTO jobs (id, repository, number, head_sha, base_sha, clone_url, installation_id, updated_at, state, enqueued_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'queued', $9)`,
          [
            job.deliveryId,
            ...key,
            job.headSha,
            job.baseSha,
            job.repository.cloneUrl,
            job.installationId ?? null,
            job.updatedAt ?? null,
            now,
          ],
        );
        return {
          outcome: superseded.length > 0 ? "superseded" : "queued",
          stopped: superseded.filter((row) => row.state === "running").map((row) => row.id),
        };
      });
    } catch (error) {
      if (error instanceof Refused) return { outcome: error.outcome, stopped: [] };
      throw error;
    }
  }

  /**
   * Takes the next queued job for `instance`, fairly: repositories with fewer running jobs
   * first, then the one served least recently, then the oldest job. A PR with a job still
   * running waits. Postgres skips rows other instances are claiming.
   */
  async claim(instance: string): Promise<ClaimedJob | undefined> {
    return this.#driver.transaction(async (tx) => {
      const now = this.#now();
      const [row] = await tx.query<JobRow>(
        `SELECT j.id, j.repository, j.number, j.head_sha, j.base_sha, j.clone_url, j.installation_id, j.updated_at, j.attempts
         FROM jobs j
         WHERE j.state = 'queued'
           AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.repository = j.repository AND r.number = j.number AND r.state = 'running')
         ORDER BY
           (SELECT count(*) FROM jobs r WHERE r.repository = j.repository AND r.state = 'running'),
           COALESCE((SELECT max(r.claimed_at) FROM jobs r WHERE r.repository = j.repository), 0),
           j.enqueued_at, j.id
         LIMIT 1${this.#forUpdate("j")}`,
      );
      if (!row) return undefined;
      await tx.query(
        `UPDATE jobs SET state = 'running', claimed_by = $2, claimed_at = $3, heartbeat_at = $3, attempts = attempts + 1
         WHERE id = $1`,
        [row.id, instance, now],
      );
      return { job: jobOf(row), attempt: Number(row.attempts) + 1 };
    });
  }

  /** Renews `instance`'s claim; false when the job is no longer its running job (superseded). */
  async heartbeat(id: string, instance: string): Promise<boolean> {
    const rows = await this.#driver.query(
      `UPDATE jobs SET heartbeat_at = $3 WHERE id = $1 AND claimed_by = $2 AND state = 'running' RETURNING id`,
      [id, instance, this.#now()],
    );
    return rows.length > 0;
  }

  async finish(id: string, instance: string, state: FinishedState, reason?: string): Promise<void> {
    await this.#driver.query(
      `UPDATE jobs SET state = $3, finished_at = $4, reason = $5
       WHERE id = $1 AND claimed_by = $2 AND state = 'running'`,
      [id, instance, state, this.#now(), reason ?? null],
    );
  }

  /** Puts a running job back in the queue without counting the attempt (a drain stopped it). */
  async release(id: string, instance: string): Promise<void> {
    await this.#driver.query(
      `UPDATE jobs SET state = 'queued', attempts = attempts - 1, claimed_by = NULL, heartbeat_at = NULL
       WHERE id = $1 AND claimed_by = $2 AND state = 'running'`,
      [id, instance],
    );
  }

  /**
   * Jobs whose instance died (no heartbeat since `staleBefore`) run again, once: a job
   * that was already run JOB_MAX_ATTEMPTS times fails instead.
   */
  async recover(staleBefore: number): Promise<{ requeued: string[]; failed: string[] }> {
    return this.#driver.transaction(async (tx) => {
      const failed = await tx.query<{ id: string }>(
        `UPDATE jobs SET state = 'failed', finished_at = $3, reason = $4
         WHERE state = 'running' AND heartbeat_at < $1 AND attempts >= $2 RETURNING id`,
        [
          staleBefore,
          JOB_MAX_ATTEMPTS,
          this.#now(),
          `its server stopped while running it, ${JOB_MAX_ATTEMPTS} times`,
        ],
      );
      const requeued = await tx.query<{ id: string }>(
        `UPDATE jobs SET state = 'queued', claimed_by = NULL, heartbeat_at = NULL
         WHERE state = 'running' AND heartbeat_at < $1 RETURNING id`,
        [staleBefore],
      );
      return { requeued: requeued.map((row) => row.id), failed: failed.map((row) => row.id) };
    });
  }

  /** Jobs by state. */
  async counts(): Promise<Record<JobState, number>> {
    const rows = await this.#driver.query<{ state: JobState; count: number }>(
      "SELECT state, count(*) AS count FROM jobs GROUP BY state",
    );
    const counts = Object.fromEntries(JOB_STATES.map((state) => [state, 0])) as Record<JobState, number>;
    for (const row of rows) if (row.state in counts) counts[row.state] = Number(row.count);
    return counts;
  }

  /** A job's state and attempts (for tests and operators). */
  async job(
    id: string,
  ): Promise<
    { state: JobState; attempts: number; claimedBy: string | null; reason: string | null } | undefined
  > {
    const [row] = await this.#driver.query<{
      state: JobState;
      attempts: number;
      claimed_by: string | null;
      reason: string | null;
    }>("SELECT state, attempts, claimed_by, reason FROM jobs WHERE id = $1", [id]);
    return (
      row && {
        state: row.state,
        attempts: Number(row.attempts),
        claimedBy: row.claimed_by,
        reason: row.reason,
      }
    );
  }

  /** The id of the bot's comment on a pull request, as the last job left it; undefined when none is known. */
  async commentId(repository: string, number: number): Promise<number | undefined> {
    const [row] = await this.#driver.query<{ comment_id: number | null }>(
      "SELECT comment_id FROM pull_requests WHERE repository = $1 AND number = $2",
      [repository, number],
    );
    return row?.comment_id == null ? undefined : Number(row.comment_id);
  }

  /** Records the id of the bot's comment on a pull request (null: it has none now). */
  async setCommentId(repository: string, number: number, id: number | null): Promise<void> {
    await this.#driver.query(
      `INSERT INTO pull_requests (repository, number, head_sha, changed_at, comment_id) VALUES ($1, $2, '', $3, $4)
       ON CONFLICT (repository, number) DO UPDATE SET comment_id = excluded.comment_id`,
      [repository, number, this.#now(), id],
    );
  }

  /** Every cached result of a repository, by key (their JSON text as stored). */
  async cachedResults(repository: string): Promise<Map<string, string>> {
    const rows = await this.#driver.query<{ key: string; entry: string }>(
      "SELECT key, entry FROM result_cache WHERE repository = $1",
      [repository],
    );
    return new Map(rows.map((row) => [row.key, row.entry]));
  }

  /**
   * Stores results of a repository (or marks them used, when the entry is the same), then
   * evicts that repository's least recently used entries until it holds at most `maxBytes`.
   */
  async putCachedResults(
    repository: string,
    entries: ReadonlyArray<{ key: string; entry: string }>,
    maxBytes: number,
  ): Promise<void> {
    if (entries.length === 0) return;
    await this.#driver.transaction(async (tx) => {
      const now = this.#now();
      // In key order, so two instances storing the same keys at once cannot deadlock.
      const sorted = [...entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      for (const { key, entry } of sorted) {
        await tx.query(
          `INSERT INTO result_cache (repository, key, entry, bytes, used_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (repository, key) DO UPDATE SET entry = excluded.entry, bytes = excluded.bytes, used_at = excluded.used_at`,
          [repository, key, entry, Buffer.byteLength(entry), now],
        );
      }
      // Eviction takes no lock: entries a concurrent job has not committed yet count at the next put.
      const rows = await tx.query<{ key: string; bytes: number }>(
        `SELECT key, bytes FROM result_cache WHERE repository = $1 ORDER BY used_at DESC, key`,
        [repository],
      );
      let total = 0;
      const evicted: string[] = [];
      for (const row of rows) {
        total += Number(row.bytes);
        if (total > maxBytes) evicted.push(row.key);
      }
      for (const key of evicted) {
        await tx.query("DELETE FROM result_cache WHERE repository = $1 AND key = $2", [repository, key]);
      }
    });
  }

  /**
   * Drops what nothing will ask for again: deliveries past DELIVERY_TTL_MS, finished jobs
   * past FINISHED_JOB_TTL_MS, pull requests without a delivery for PULL_REQUEST_TTL_MS (and
   * no job waiting or running: a later push starts afresh, its comment found by the marker),
   * and cached results no job used for RESULT_CACHE_TTL_MS (a repository the bot no longer
   * serves keeps nothing).
   */
  async sweep(): Promise<void> {
    const now = this.#now();
    await this.#driver.query("DELETE FROM deliveries WHERE seen_at < $1", [now - DELIVERY_TTL_MS]);
    await this.#driver.query(
      "DELETE FROM jobs WHERE state NOT IN ('queued', 'running') AND finished_at < $1",
      [now - FINISHED_JOB_TTL_MS],
    );
    await this.#driver.query(
      `DELETE FROM pull_requests WHERE changed_at < $1 AND NOT EXISTS (
         SELECT 1 FROM jobs j WHERE j.repository = pull_requests.repository AND j.number = pull_requests.number
           AND j.state IN ('queued', 'running'))`,
      [now - PULL_REQUEST_TTL_MS],
    );
    await this.#driver.query("DELETE FROM result_cache WHERE used_at < $1", [now - RESULT_CACHE_TTL_MS]);
  }

  /** Throws when the database does not answer (for /healthz). */
  async ping(): Promise<void> {
    await this.#driver.query("SELECT 1 AS ok");
  }

  close(): Promise<void> {
    return this.#driver.close();
  }

  #forUpdate(table: string): string {
    if (this.#driver.kind !== "postgres") return "";
    return table ? ` FOR UPDATE OF ${table} SKIP LOCKED` : " FOR UPDATE";
  }
}

function jobOf(row: JobRow): PullRequestJob {
  return {
    deliveryId: row.id,
    repository: { fullName: row.repository, cloneUrl: row.clone_url },
    number: Number(row.number),
    headSha: row.head_sha,
    baseSha: row.base_sha,
    installationId: row.installation_id === null ? undefined : Number(row.installation_id),
    updatedAt: row.updated_at ?? undefined,
  };
}

/**
 * Opens the state store: Postgres when `databaseUrl` is set, else SQLite in `dataDir`;
 * brings its schema up to date.
 */
export async function openStateStore(options: {
  dataDir: string;
  databaseUrl?: string | undefined;
}): Promise<StateStore> {
  // Each driver loads only when chosen: a server on SQLite never loads the Postgres client,
  // and one on Postgres never compiles SQLite's WebAssembly.
  const driver = options.databaseUrl
    ? await (await import("./postgres.js")).openPostgres(options.databaseUrl)
    : (await import("./sqlite.js")).openSqlite(options.dataDir);
  try {
    await migrate(driver);
  } catch (error) {
    await driver.close().catch(() => {});
    if (error instanceof UsageError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`the state database at ${driver.location} cannot be used: ${reason}`, {
      code: "config",
      cause: error,
    });
  }
  return new StateStore(driver);
}
