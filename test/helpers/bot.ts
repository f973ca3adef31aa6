import { createApp } from "../../backend/app.js";
import type { GitHubAuth } from "../../backend/github-auth.js";
import { type CliRunner, createPullRequestPipeline } from "../../backend/run-job.js";
import { createLogger } from "../../backend/server.js";
import type { StateStore } from "../../backend/store/state-store.js";
import { main } from "../../cli/main.js";
import { createGitHubClient } from "../../shared/github-client.js";
import { DEFAULT_RESULT_CACHE_BYTES_PER_REPOSITORY } from "../../shared/limits.js";
import { captureIo } from "./io.js";
import { tempQueue, tempStateStore } from "./state-store.js";
import { signedDelivery } from "./webhook-delivery.js";

export interface PullRequestBot {
  app: ReturnType<typeof createApp>;
  store: StateStore;
  /** Every log line so far (secrets redacted). */
  logs: string[];
  /** Log entries at error level or above. */
  failures(): Array<{ level: number; msg: string; error?: string; code?: string }>;
  /** Posts a signed delivery of `body`, waits until the queue is idle, and returns the HTTP status. */
  deliver(body: string, id: string): Promise<number>;
}

/**
 * The CLI's `main` in this process, with the cwd, environment and signal the pipeline gives
 * a child: the bot's tests check the pipeline, not the process start, which `impact serve`'s
 * own tests (serve-restart, serve-drain, serve-postgres) cover with real processes.
 */
export const inProcessCli: CliRunner = async (args, { cwd, env, signal }) => {
  const io = captureIo(cwd, env, { signal });
  const code = await main(args, io);
  return { code, signal: null, stdout: io.out, stderr: io.err };
};

/**
 * The PR bot in process (webhook app, queue on a temp SQLite store, the real pipeline
 * running the CLI in process too, see `inProcessCli`), against a model server at
 * `modelUrl` and a GitHub API at `githubUrl`, authenticated by `auth`.
 */
export async function startPullRequestBot(options: {
  secret: string;
  auth: GitHubAuth;
  githubUrl: string;
  modelUrl: string;
  modelKey: string;
  /** Values the logger redacts, besides the model key. */
  secrets?: Record<string, string>;
  /** App mode: ask the API for the PR's current head, and refuse deliveries without an installation. */
  app?: boolean;
}): Promise<PullRequestBot> {
  const logs: string[] = [];
  const logger = createLogger((line) => logs.push(line), {
    ...options.secrets,
    OPENAI_API_KEY: options.modelKey,
  });
  const store = await tempStateStore();
  const { queue } = await tempQueue({
    logger,
    store,
    run: createPullRequestPipeline({
      cli: inProcessCli,
      runEnv: {
        OPENAI_API_KEY: options.modelKey,
        OPENAI_BASE_URL: options.modelUrl,
        IMPACT_MODEL: "test-model",
      },
      // Octokit's throttling spaces writes a second apart; the fake GitHub has no rate limit.
      commentEnv: { GITHUB_API_URL: options.githubUrl, IMPACT_GITHUB_THROTTLE: "off" },
      auth: options.auth,
      ...(options.app
        ? { headCheck: createGitHubClient({ apiUrl: options.githubUrl, throttle: false }) }
        : {}),
      timeoutMs: 120_000,
      state: { store, cacheBytes: DEFAULT_RESULT_CACHE_BYTES_PER_REPOSITORY },
      logger,
    }),
  });
  const app = createApp({
    logger,
    webhook: {
      secret: options.secret,
      enqueue: (job, keys) => queue.enqueue(job, keys),
      ...(options.app ? { requireInstallation: true } : {}),
    },
  });
  const deliver = async (body: string, id: string) => {
    const response = await app.fetch(signedDelivery(options.secret, body, id));
    await queue.idle();
    return response.status;
  };
  const failures = () =>
    logs
      .map((line) => JSON.parse(line) as { level: number; msg: string; error?: string; code?: string })
      .filter((entry) => entry.level >= 50);
  return { app, store, logs, failures, deliver };
}
