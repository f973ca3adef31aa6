import { readFile } from "node:fs/promises";

/** What a GitHub Actions event payload says about its pull request. */
export interface PullRequestEvent {
  /** The pull request number, when the event has one. */
  number?: number;
  /** The names of the pull request's labels at the time of the event. */
  labels: string[];
}

/**
 * The pull request of the event at `GITHUB_EVENT_PATH` (set by GitHub Actions), or undefined
 * outside Actions or when the file cannot be read as an event.
 */
export async function readPullRequestEvent(
  env: Record<string, string | undefined>,
): Promise<PullRequestEvent | undefined> {
  if (!env.GITHUB_EVENT_PATH) return undefined;
  let event: { pull_request?: { number?: unknown; labels?: unknown }; number?: unknown };
  try {
    event = JSON.parse(await readFile(env.GITHUB_EVENT_PATH, "utf8"));
  } catch {
    return undefined;
  }
  if (typeof event !== "object" || event === null) return undefined;
  const number = event.pull_request?.number ?? event.number;
  const labels = Array.isArray(event.pull_request?.labels) ? event.pull_request.labels : [];
  return {
    ...(typeof number === "number" && Number.isInteger(number) && number > 0 ? { number } : {}),
    labels: labels
      .map((label: unknown) =>
        typeof label === "object" && label !== null && "name" in label ? label.name : undefined,
      )
      .filter((name): name is string => typeof name === "string"),
  };
}
