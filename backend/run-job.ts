import { spawn } from "node:child_process";
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import { z } from "zod";
import { AuditTotalsSchema } from "../shared/audit.js";
import { docsRepositoryName, isGitUrl } from "../shared/docs-repository.js";
import type { GitHubClient } from "../shared/github-client.js";
import { RESULT_CACHE_ENTRY_MAX_BYTES } from "../shared/limits.js";
import { redactSecrets } from "../shared/redact.js";
import { RESULT_KEY_PATTERN, ResultCacheEntrySchema } from "../shared/result-cache-entry.js";
import { splitStateEntry } from "../shared/state-entry.js";
import type { GitHubAuth } from "./github-auth.js";
import type { JobResult, PullRequestJob } from "./job.js";
import type { RunJob } from "./queue.js";

/** Output kept per child process, for logs (the tail matters most). */
const OUTPUT_TAIL = 16 * 1024;
/** After SIGTERM, a child gets this long to write its partial audit before SIGKILL. */
const KILL_GRACE_MS = 10_000;

/**
 * Runs one `impact` command (`args` after the program) to its end. The bot's own is a child
 * process (see `run`); tests may run the CLI in process where the boundary is not the point.
 */
export type CliRunner = (
  args: string[],
  options: { cwd: string; env: Record<string, string>; signal: AbortSignal },
) => Promise<ProcessResult>;

export interface PipelineOptions {
  /**
   * How to start the impact CLI: a program and its leading arguments (`node dist/cli/bin.js`
   * by default, see server.ts), started as a child process for each command; or a runner.
   */
  cli: { command: string; args: string[] } | CliRunner;
  /** Environment for `impact run`: the model settings only (no GitHub token, no webhook secret). */
  runEnv: Record<string, string>;
  /** Environment for `impact comment` (GITHUB_API_URL); the job's token is added as GITHUB_TOKEN. */
  commentEnv: Record<string, string>;
  /**
   * Gives each job its token (the one GITHUB_TOKEN, or an App installation token): for
   * https clones, the head check and `impact comment` only; never written to disk.
   */
  auth: GitHubAuth;
  /**
   * The GitHub client to ask, before any work, whether the job's head is still the PR's
   * head (a replayed or late delivery is then dropped), with the job's token; absent: no check.
   */
  headCheck?: GitHubClient;
  /** Told the model usage of each finished `impact run` (the metrics). */
  onUsage?: (usage: { promptTokens: number; completionTokens: number; costUsd?: number | undefined }) => void;
  /** Whole-job time limit (clone, run, comment). */
  timeoutMs: number;
  /** Where clones go; default the system temp dir. */
  workRoot?: string;
  /**
   * What outlives a job in the state store (shared by every instance on it): the id of
   * each PR's comment, and each repository's result cache, kept within `cacheBytes` per
   * repository. Absent: every job searches for its comment and runs with no cache.
   */
  state?: { store: PipelineStore; cacheBytes: number } | undefined;
  logger: Logger;
}

/** The part of the state store a job uses (StateStore): comment ids and the result cache. */
interface PipelineStore {
  commentId(repository: string, number: number): Promise<number | undefined>;
  setCommentId(repository: string, number: number, id: number | null): Promise<void>;
  cachedResults(repository: string): Promise<Map<string, string>>;
  putCachedResults(
    repository: string,
    entries: ReadonlyArray<{ key: string; entry: string }>,
    maxBytes: number,
  ): Promise<void>;
}

interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * The PR bot's job: clone the repository at the PR's head, run `impact run` against the
 * base with the base commit's config, then `impact comment`, each as a child process of
 * the CLI (a process boundary between the server and untrusted repository content).
 */
export function createPullRequestPipeline(options: PipelineOptions): RunJob {
  const cli = options.cli;
  const impact: CliRunner =
    typeof cli === "function"
      ? cli
      : (args, runOptions) => run(cli.command, [...cli.args, ...args], runOptions);
  return async (job, outerSignal): Promise<JobResult> => {
    const signal = AbortSignal.any([outerSignal, AbortSignal.timeout(options.timeoutMs)]);
    const log = options.logger.child({ delivery: job.deliveryId });
    const credentials = await options.auth.forJob(job);
    const secrets = [
      credentials.token,
      ...Object.values(options.runEnv),
      ...Object.values(options.commentEnv),
    ];
    const redact = (text: string) => redactAll(text, secrets);
    let work: string | undefined;
    try {
      if (options.headCheck) {
        const moved = await headMovedOn(job, options.headCheck, credentials.token, signal);
        if (moved) return { state: "dropped", reason: moved };
      }
      work = await mkdtemp(join(options.workRoot ?? tmpdir(), "impact-pr-"));
      const clone = join(work, "repo");
      await fetchPullRequest(job, clone, credentials.token, signal, redact);

      // The base commit's config, never the PR's own: a fork must not choose its config.
      const configPath = join(work, "impact.config.json");
      const config = await run("git", ["show", `${job.baseSha}:impact.config.json`], {
        cwd: clone,
        env: gitEnv(),
        signal,
      });
      await writeFile(configPath, config.code === 0 ? config.stdout : "{}\n");
      log.info({ baseConfig: config.code === 0 }, "repository fetched");
      // Docs in a repository of their own (config docsRepo, a git URL): cloned beside the code,
      // and the run proposes edits to it (the comment on this pull request shows them).
      const docsUrl = config.code === 0 ? docsRepositoryUrl(config.stdout) : undefined;
      const docsDir = docsUrl === undefined ? undefined : join(work, "docs", docsRepositoryName(docsUrl));
      if (docsUrl !== undefined && docsDir !== undefined) {
        await cloneDocsRepository(job, docsUrl, docsDir, credentials.token, signal, redact);
        log.info({ docsRepository: docsRepositoryName(docsUrl) }, "docs repository fetched");
      }

      const auditPath = join(work, "audit.json");
      const cacheDir = join(work, "cache");
      if (options.state) await materializeCache(options.state.store, job.repository.fullName, cacheDir);
      const ran = await impact(
        [
          "run",
          "--repo",
          clone,
          "--base",
          job.baseSha,
          "--head",
          job.headSha,
          "--config",
          configPath,
          "--out",
          auditPath,
          "--patch",
          join(work, "impact.patch"),
          ...(docsDir === undefined ? [] : ["--docs-repo", docsDir]),
          ...(options.state ? ["--cache-dir", cacheDir] : ["--no-cache"]),
          "--quiet",
        ],
        { cwd: clone, env: { ...baseEnv(), ...options.runEnv }, signal },
      );
      // 0: all fine; 1: some articles failed, the audit is written and worth a comment.
      if (ran.code !== 0 && ran.code !== 1) {
        throw new Error(`impact run exited with ${describeExit(ran)}: ${redact(tail(ran.stderr, 2000))}`);
      }
      log.info({ exit: ran.code }, "impact run finished");
      if (options.state) {
        try {
          const kept = await keepCache(options.state, job.repository.fullName, cacheDir);
          if (kept.refused.length > 0) log.warn({ refused: kept.refused }, "cache entries not kept");
        } catch (error) {
          // The comment matters more than the cache: a store hiccup costs a model call next time.
          log.warn(
            { error: error instanceof Error ? error.message : String(error) },
            "result cache not saved",
          );
        }
      }
      if (options.onUsage) {
        const totals = await readTotals(auditPath);
        if (totals) options.onUsage(totals);
      }

      const commentId = await options.state?.store.commentId(job.repository.fullName, job.number);
      const comment = await impact(
        [
          "comment",
          auditPath,
          "--pr",
          String(job.number),
          "--repo",
          job.repository.fullName,
          ...(commentId === undefined ? [] : ["--comment-id", String(commentId)]),
          "--json",
        ],
        { cwd: work, env: { ...baseEnv(), ...options.commentEnv, GITHUB_TOKEN: credentials.token }, signal },
      );
      if (comment.code !== 0) {
        throw new Error(
          `impact comment exited with ${describeExit(comment)}: ${redact(tail(comment.stderr, 2000))}`,
        );
      }
      const written = CommentOutputSchema.safeParse(parseJson(comment.stdout));
      if (!written.success) {
        log.warn({ output: redact(tail(comment.stdout, 500)) }, "impact comment printed no JSON result");
      } else {
        const { action, id, url, foundBy } = written.data;
        log.info({ action, id, url, foundBy }, "comment done");
        const kept = action === "deleted" || action === "none" ? null : (id ?? null);
        // The comment is written; an id not kept only costs the next job a search.
        await options.state?.store
          .setCommentId(job.repository.fullName, job.number, kept)
          .catch((error: unknown) =>
            log.warn(
              { error: error instanceof Error ? error.message : String(error) },
              "comment id not saved",
            ),
          );
      }
      return { state: "done" };
    } finally {
      if (work) await rm(work, { recursive: true, force: true });
      await credentials.release();
    }
  };
}

const PullRequestStateSchema = z.object({
  state: z.string(),
  head: z.object({ sha: z.string() }),
});

/**
 * Why the job is moot, asked of the GitHub API: the PR's head moved on (a newer push, or a
 * replayed old delivery) or the PR is closed; undefined when the job's head is current.
 */
async function headMovedOn(
  job: PullRequestJob,
  github: GitHubClient,
  token: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  const [owner, repo] = job.repository.fullName.split("/") as [string, string];
  const pull = `${job.repository.fullName}#${job.number}`;
  let data: unknown;
  try {
    ({ data } = await github.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
      owner,
      repo,
      pull_number: job.number,
      headers: { authorization: `token ${token}` },
      request: { signal },
    }));
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status !== "number") throw error;
    throw new Error(`asking GitHub for ${pull} failed with HTTP ${status}`, { cause: error });
  }
  const parsed = PullRequestStateSchema.safeParse(data);
  if (!parsed.success) throw new Error(`GitHub's answer for ${pull} has no head sha`);
  if (parsed.data.state !== "open") return `the pull request is ${parsed.data.state}`;
  if (parsed.data.head.sha !== job.headSha) return `the pull request's head is ${parsed.data.head.sha} now`;
  return undefined;
}

/** What `impact comment --json` prints. */
const CommentOutputSchema = z.object({
  action: z.enum(["created", "updated", "unchanged", "deleted", "none"]),
  id: z.number().int().positive().optional(),
  url: z.string().optional(),
  foundBy: z.enum(["id", "marker"]).optional(),
});

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Materialized entries get this mtime; `impact run` touches the ones it reads (its LRU mark). */
const UNTOUCHED = new Date(0);

/**
 * Writes the repository's cached results from the store into the job's cache folder,
 * one `<key>.json` each, as `impact run --cache-dir` reads them. The child process gets
 * files, never a database connection.
 */
async function materializeCache(store: PipelineStore, repository: string, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [key, entry] of await store.cachedResults(repository)) {
    if (!RESULT_KEY_PATTERN.test(key)) continue;
    const path = join(dir, `${key}.json`);
    await writeFile(path, entry);
    await utimes(path, UNTOUCHED, UNTOUCHED);
  }
}

/**
 * Keeps what the run wrote or read in the job's cache folder: new entries are stored,
 * entries it read are marked used. Each must be a regular file named by its key, of at
 * most RESULT_CACHE_ENTRY_MAX_BYTES, and parse as an Impact result for that very key;
 * anything else is refused (and named), never stored. Entries go under the delivery's
 * repository, so one repository's results never serve another.
 */
async function keepCache(
  state: NonNullable<PipelineOptions["state"]>,
  repository: string,
  dir: string,
): Promise<{ kept: number; refused: string[] }> {
  const entries: Array<{ key: string; entry: string }> = [];
  const refused: string[] = [];
  const maxBytes = Math.min(RESULT_CACHE_ENTRY_MAX_BYTES, state.cacheBytes);
  for (const name of await readdir(dir)) {
    const key = name.endsWith(".json") ? name.slice(0, -".json".length) : "";
    const path = join(dir, name);
    const info = await lstat(path);
    if (info.isFile() && info.mtimeMs <= UNTOUCHED.getTime()) continue;
    if (!RESULT_KEY_PATTERN.test(key) || !info.isFile() || info.size > maxBytes) {
      refused.push(name);
      continue;
    }
    const entry = await readFile(path, "utf8");
    // Sealed by the child (shared/state-entry.ts): the child checks the MAC when it reads
    // the entry back; here only the shape is checked.
    const sealed = splitStateEntry(Buffer.from(entry, "utf8"));
    const parsed = ResultCacheEntrySchema.safeParse(sealed && parseJson(sealed.payload.toString("utf8")));
    if (sealed?.kind !== "results" || !parsed.success || parsed.data.key !== key) {
      refused.push(name);
      continue;
    }
    entries.push({ key, entry });
  }
  await state.store.putCachedResults(repository, entries, state.cacheBytes);
  return { kept: entries.length, refused };
}

const AuditWithTotalsSchema = z.object({ totals: AuditTotalsSchema });

/** The usage totals of an audit the child wrote; undefined when it is unreadable. */
async function readTotals(auditPath: string) {
  try {
    const parsed = AuditWithTotalsSchema.safeParse(JSON.parse(await readFile(auditPath, "utf8")));
    return parsed.success ? parsed.data.totals : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A fresh repository with the two commits and just enough history to reach their merge
 * base. An https URL authenticates with the token
 * through `http.extraHeader` given as GIT_CONFIG_* environment variables: the same as
 * `git -c`, but visible neither in the process list nor in the URL or `.git/config`.
 */
async function fetchPullRequest(
  job: PullRequestJob,
  clone: string,
  token: string | undefined,
  signal: AbortSignal,
  redact: (text: string) => string,
): Promise<void> {
  const url = job.repository.cloneUrl;
  if (url.startsWith("-")) throw new Error(`refusing clone URL ${JSON.stringify(url)}`);
  const env = gitEnvWithToken(url, token);
  const git = async (step: string, args: string[]) => {
    const result = await run("git", args, { cwd: tmpdir(), env, signal });
    if (result.code !== 0) throw new Error(`git ${step} failed: ${redact(tail(result.stderr, 1000))}`);
  };
  // The clone lives for one job: no `git maintenance run --auto` process after each fetch.
  const fetch = (depth: string) =>
    git("fetch", [
      "-C",
      clone,
      "-c",
      "maintenance.auto=false",
      "fetch",
      "-q",
      "--no-tags",
      depth,
      "--",
      url,
      job.headSha,
      job.baseSha,
    ]);
  await git("init", ["init", "-q", clone]);
  await fetch("--depth=1");
  // impact run diffs from the merge base (what GitHub shows as the PR's change), so deepen
  // the history until the two commits meet, then fall back to the whole history.
  for (let deepen = 0; !(await hasMergeBase(clone, job, env, signal)); deepen += 1) {
    // Unrelated histories have no merge base however deep; impact run then diffs the two.
    if (!(await isShallow(clone, env, signal))) break;
    await fetch(deepen < MAX_DEEPEN_STEPS ? `--deepen=${DEEPEN_BY * 2 ** deepen}` : "--unshallow");
  }
  await git("checkout", [
    "-C",
    clone,
    "-c",
    "advice.detachedHead=false",
    "checkout",
    "-q",
    "--detach",
    job.headSha,
  ]);
}

/** Git's environment with the token as an `Authorization` header for an https URL (see fetchPullRequest). */
function gitEnvWithToken(url: string, token: string | undefined): Record<string, string> {
  const env = gitEnv();
  if (token && /^https:\/\//i.test(url)) {
    const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
    Object.assign(env, {
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.extraHeader",
      GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
    });
  }
  return env;
}

/** Config `docsRepo` of the base commit's config text when it is a git URL (a path means nothing to the bot's clone). */
function docsRepositoryUrl(configText: string): string | undefined {
  try {
    const docsRepo = (JSON.parse(configText) as { docsRepo?: unknown }).docsRepo;
    return typeof docsRepo === "string" && isGitUrl(docsRepo) ? docsRepo : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A shallow clone of the docs repository's default branch. The job's token goes along
 * (as a header, as for the code) only to the host the pull request's repository is on: an
 * App installation token then needs the App installed on the docs repository too.
 */
async function cloneDocsRepository(
  job: PullRequestJob,
  url: string,
  dir: string,
  token: string | undefined,
  signal: AbortSignal,
  redact: (text: string) => string,
): Promise<void> {
  if (url.startsWith("-")) throw new Error(`refusing docs repository URL ${JSON.stringify(url)}`);
  const sameHost = hostOf(url) !== undefined && hostOf(url) === hostOf(job.repository.cloneUrl);
  const env = gitEnvWithToken(url, sameHost ? token : undefined);
  const result = await run(
    "git",
    ["-c", "maintenance.auto=false", "clone", "-q", "--depth=1", "--no-tags", "--", url, dir],
    { cwd: tmpdir(), env, signal },
  );
  if (result.code !== 0)
    throw new Error(`git clone of the docs repository failed: ${redact(tail(result.stderr, 1000))}`);
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}

/** History is deepened by 64, 128, 256 … commits, this many times, before fetching it all. */
const DEEPEN_BY = 64;
const MAX_DEEPEN_STEPS = 5;

async function isShallow(clone: string, env: Record<string, string>, signal: AbortSignal): Promise<boolean> {
  const result = await run("git", ["-C", clone, "rev-parse", "--is-shallow-repository"], {
    cwd: tmpdir(),
    env,
    signal,
  });
  return result.stdout.trim() === "true";
}

async function hasMergeBase(
  clone: string,
  job: PullRequestJob,
  env: Record<string, string>,
  signal: AbortSignal,
): Promise<boolean> {
  const result = await run("git", ["-C", clone, "merge-base", job.baseSha, job.headSha], {
    cwd: tmpdir(),
    env,
    signal,
  });
  return result.code === 0;
}

/** Git without the host's global config, prompts or hooks. */
function gitEnv(): Record<string, string> {
  return {
    ...baseEnv(),
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "impact",
    GIT_AUTHOR_EMAIL: "impact@localhost",
    GIT_COMMITTER_NAME: "impact",
    GIT_COMMITTER_EMAIL: "impact@localhost",
  };
}

/** What any child needs; nothing secret. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  // XDG_CACHE_HOME: where the child finds the key that seals its cache entries (IMPACT_STATE_KEY,
  // when the server has one, comes with the run's environment).
  for (const name of ["PATH", "HOME", "TMPDIR", "LANG", "SYSTEMROOT", "XDG_CACHE_HOME"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * Runs a child process to its end, keeping the tail of its output. On abort it gets
 * SIGTERM (the CLI then writes its partial audit), and SIGKILL after a grace period.
 */
function run(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; signal: AbortSignal },
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    if (options.signal.aborted) {
      reject(options.signal.reason ?? new Error("aborted"));
      return;
    }
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout = tail(stdout + chunk.toString("utf8"), OUTPUT_TAIL);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = tail(stderr + chunk.toString("utf8"), OUTPUT_TAIL);
    });
    let killTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      child.kill("SIGTERM");
      killTimer = setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS);
      killTimer.unref();
    };
    options.signal.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => {
      options.signal.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("close", (code, signal) => {
      options.signal.removeEventListener("abort", onAbort);
      if (killTimer) clearTimeout(killTimer);
      if (options.signal.aborted) {
        reject(options.signal.reason instanceof Error ? options.signal.reason : new Error("aborted"));
        return;
      }
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function describeExit(result: ProcessResult): string {
  return result.signal ? `signal ${result.signal}` : `code ${result.code}`;
}

function tail(text: string, max: number): string {
  return text.length > max ? text.slice(text.length - max) : text;
}

function redactAll(text: string, secrets: Array<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 8) out = out.split(secret).join("[redacted]");
  }
  return redactSecrets(out, {});
}
