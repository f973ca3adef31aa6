/**
 * The PR bot's caps and timings, each configurable by the environment variable named
 * beside it (see docs/backend.md).
 */

/** IMPACT_BOT_MAX_PENDING: jobs waiting at most, all repositories together. */
export const DEFAULT_BOT_MAX_PENDING = 100;
/**
 * IMPACT_BOT_MAX_PENDING_PER_REPOSITORY: jobs one repository may have waiting, so that one
 * repository's flood of pull requests cannot lock out the others.
 */
export const DEFAULT_BOT_MAX_PENDING_PER_REPOSITORY = 20;
/** A job that was running when its server died runs again; one that dies this often fails. */
export const JOB_MAX_ATTEMPTS = 2;
/** IMPACT_DRAIN_TIMEOUT_MS: on SIGTERM, running jobs get this long to finish before they go back to the queue. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 25_000;
/** How often a worker looks for queued jobs other instances took (it is also woken by its own deliveries). */
export const JOB_POLL_MS = 1_000;
/** A running job's instance renews its claim this often ... */
export const JOB_HEARTBEAT_MS = 5_000;
/**
 * IMPACT_JOB_LEASE_MS: ... and another instance takes a running job back into the queue
 * when its claim was not renewed for this long (its instance died).
 */
export const DEFAULT_JOB_LEASE_MS = 60_000;
/** Delivery ids and body digests are remembered this long (GitHub redelivers within days at most, by hand). */
export const DELIVERY_TTL_MS = 26 * 60 * 60 * 1000;
/** Finished jobs stay in the store this long (for the metrics and an operator's look). */
export const FINISHED_JOB_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Old deliveries and finished jobs are swept this often. */
export const STORE_SWEEP_MS = 10 * 60 * 1000;
/** Asking the GitHub API for a PR's head, or for an installation token, gives up after this long. */
export const GITHUB_API_TIMEOUT_MS = 30_000;
