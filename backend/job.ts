/** One pull request to run Impact on (from an accepted webhook delivery). */
export interface PullRequestJob {
  deliveryId: string;
  repository: { fullName: string; cloneUrl: string };
  number: number;
  headSha: string;
  baseSha: string;
  /** The GitHub App installation that sent the delivery (App mode). */
  installationId?: number | undefined;
  /** The PR's `updated_at` in the delivery: an older one than the PR's latest is stale. */
  updatedAt?: string | undefined;
}

/** How a job ended when it did not throw: `dropped` when its head is no longer the PR's. */
export type JobResult = { state: "done" } | { state: "dropped"; reason: string };
