import { onTestFinished } from "vitest";
import { PullRequestQueue, type RunJob } from "../../backend/queue.js";
import { createLogger } from "../../backend/server.js";
import { openStateStore, type StateStore } from "../../backend/store/state-store.js";
import { makeTempDir } from "./git-repo.js";

/** A SQLite state store in a temp folder, closed when the test finishes. */
export async function tempStateStore(dataDir = makeTempDir("impact-state-")): Promise<StateStore> {
  const store = await openStateStore({ dataDir });
  onTestFinished(() => store.close());
  return store;
}

/** A started queue on a temp SQLite store; closed (running jobs stopped) when the test finishes. */
export async function tempQueue(options: {
  run: RunJob;
  /** Where the queue logs; silent when not given. */
  logger?: ReturnType<typeof createLogger>;
  concurrency?: number;
  maxPending?: number;
  maxPendingPerRepository?: number;
  store?: StateStore;
}): Promise<{ queue: PullRequestQueue; store: StateStore }> {
  const store = options.store ?? (await tempStateStore());
  const queue = new PullRequestQueue({
    store,
    concurrency: options.concurrency ?? 1,
    maxPending: options.maxPending ?? 10,
    maxPendingPerRepository: options.maxPendingPerRepository ?? 10,
    soleInstance: true,
    run: options.run,
    logger: options.logger ?? createLogger(() => {}, {}),
  });
  await queue.start();
  // Registered after the store's, so it runs first (vitest runs these hooks in reverse).
  onTestFinished(() => queue.close());
  return { queue, store };
}
