import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../backend/app.js";
import { tokenAuth } from "../../backend/github-auth.js";
import type { PullRequestJob } from "../../backend/job.js";
import { type CliRunner, createPullRequestPipeline, type PipelineOptions } from "../../backend/run-job.js";
import { createLogger } from "../../backend/server.js";
import { DEFAULT_BOT_MAX_PENDING, DEFAULT_BOT_MAX_PENDING_PER_REPOSITORY } from "../../shared/limits.js";
import { RESULT_ENTRY_FORMAT } from "../../shared/result-cache-entry.js";
import { sealStateEntry } from "../../shared/state-entry.js";
import { auditArticle } from "../helpers/audit-fixture.js";
import { gitRepo, makeTempDir } from "../helpers/git-repo.js";
import { tempQueue, tempStateStore } from "../helpers/state-store.js";

const SECRET = "whsec-test-not-a-real-secret";
const GITHUB_TOKEN = "ghs_test_not_a_real_token_0000";
const FIXTURES = join(import.meta.dirname, "..", "fixtures", "github");
const BASE_SHA = "1".repeat(40);
const HEAD_SHA = "2".repeat(40);

function fixture(name: string, values: { base?: string; head?: string; cloneUrl?: string } = {}): string {
  return readFileSync(join(FIXTURES, `${name}.json`), "utf8")
    .replaceAll("__BASE_SHA__", values.base ?? BASE_SHA)
    .replaceAll("__HEAD_SHA__", values.head ?? HEAD_SHA)
    .replaceAll("__CLONE_URL__", values.cloneUrl ?? "https://github.com/acme/widgets.git");
}

function sign(body: string | Uint8Array, secret = SECRET): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

function delivery(
  body: string,
  options: { event?: string; id?: string; signature?: string | null } = {},
): Request {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-github-event": options.event ?? "pull_request",
    "x-github-delivery": options.id ?? "72d3162e-cc78-11e3-81ab-4c9367dc0958",
    "user-agent": "GitHub-Hookshot/044aadd",
  };
  const signature = options.signature === undefined ? sign(body) : options.signature;
  if (signature !== null) headers["x-hub-signature-256"] = signature;
  return new Request("http://bot.test/webhooks/github", { method: "POST", headers, body });
}

function botApp(options: { fullTimes?: number } = {}) {
  const jobs: PullRequestJob[] = [];
  let fullTimes = options.fullTimes ?? 0;
  const logs: string[] = [];
  // The store's contract in memory: a delivery is recorded only when its job is queued.
  const seen = new Set<string>();
  const app = createApp({
    logger: createLogger((line) => logs.push(line), { GITHUB_WEBHOOK_SECRET: SECRET }),
    webhook: {
      secret: SECRET,
      enqueue: (job, deliveryKeys) => {
        if (deliveryKeys.some((key) => seen.has(key))) return "duplicate";
        if (fullTimes > 0) {
          fullTimes -= 1;
          return "full";
        }
        for (const key of deliveryKeys) seen.add(key);
        jobs.push(job);
        return "queued";
      },
    },
  });
  return { app, jobs, logs };
}

describe("GitHub webhook", () => {
  it("accepts a signed pull_request delivery with 202 and queues one job", async () => {
    const { app, jobs, logs } = botApp();
    const response = await app.fetch(delivery(fixture("pull_request.opened")));
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ queued: true, superseded: false });
    expect(jobs).toEqual([
      {
        deliveryId: "72d3162e-cc78-11e3-81ab-4c9367dc0958",
        repository: { fullName: "acme/widgets", cloneUrl: "https://github.com/acme/widgets.git" },
        number: 42,
        headSha: HEAD_SHA,
        baseSha: BASE_SHA,
        installationId: 45678901,
        updatedAt: "2026-11-20T10:00:00Z",
      },
    ]);
    expect(logs.join("")).not.toContain(SECRET);
  });

  it("acts on synchronize, reopened and ready_for_review too", async () => {
    const { app, jobs } = botApp();
    const opened = fixture("pull_request.opened");
    const bodies = [
      fixture("pull_request.synchronize"),
      opened.replace('"action": "opened"', '"action": "reopened"'),
      opened.replace('"action": "opened"', '"action": "ready_for_review"'),
    ];
    for (const [index, body] of bodies.entries()) {
      expect((await app.fetch(delivery(body, { id: `delivery-${index}` }))).status).toBe(202);
    }
    expect(jobs).toHaveLength(3);
  });

  it("refuses a wrong or missing signature with 401, and does not remember that delivery id", async () => {
    const { app, jobs } = botApp();
    const body = fixture("pull_request.opened");
    const wrongSecret = await app.fetch(delivery(body, { signature: sign(body, "another-secret") }));
    expect(wrongSecret.status).toBe(401);
    expect(await wrongSecret.json()).toEqual({
      error: { code: "unauthorized", message: "missing or wrong X-Hub-Signature-256" },
    });
    const tampered = await app.fetch(
      delivery(body.replace('"number": 42', '"number": 43'), { signature: sign(body) }),
    );
    expect(tampered.status).toBe(401);
    expect((await app.fetch(delivery(body, { signature: null }))).status).toBe(401);
    expect((await app.fetch(delivery(body, { signature: "sha1=abc" }))).status).toBe(401);
    expect(jobs).toHaveLength(0);
    // The same delivery id, now signed correctly, is acted on: forged requests cannot burn ids.
    expect((await app.fetch(delivery(body))).status).toBe(202);
    expect(jobs).toHaveLength(1);
  });

  it("ignores a repeated delivery id with 204", async () => {
    const { app, jobs } = botApp();
    const body = fixture("pull_request.opened");
    expect((await app.fetch(delivery(body, { id: "d-1" }))).status).toBe(202);
    const again = await app.fetch(delivery(body, { id: "d-1" }));
    expect(again.status).toBe(204);
    expect(await again.text()).toBe("");
    const next = fixture("pull_request.opened", { head: "3".repeat(40) });
    expect((await app.fetch(delivery(next, { id: "d-2" }))).status).toBe(202);
    expect(jobs.map((job) => job.deliveryId)).toEqual(["d-1", "d-2"]);
  });

  it("ignores a replayed signed body under a fresh delivery id with 204 (the id is not signed)", async () => {
    const { app, jobs, logs } = botApp();
    const body = fixture("pull_request.opened");
    expect((await app.fetch(delivery(body, { id: "original" }))).status).toBe(202);
    for (const id of ["replay-1", "replay-2"]) {
      expect((await app.fetch(delivery(body, { id }))).status).toBe(204);
    }
    expect(jobs.map((job) => job.deliveryId)).toEqual(["original"]);
    expect(logs.filter((line) => line.includes("duplicate delivery ignored"))).toHaveLength(2);
  });

  it("answers 204 to ping, other events and other actions", async () => {
    const { app, jobs } = botApp();
    expect((await app.fetch(delivery(fixture("ping"), { event: "ping", id: "p" }))).status).toBe(204);
    expect((await app.fetch(delivery(fixture("pull_request.closed"), { id: "c" }))).status).toBe(204);
    expect(
      (await app.fetch(delivery(fixture("pull_request.opened"), { event: "issues", id: "i" }))).status,
    ).toBe(204);
    expect(jobs).toHaveLength(0);
  });

  it("answers 500 internal, logged, when recording the delivery throws, and the webhook route has no metrics or router to need", async () => {
    const logs: string[] = [];
    const app = createApp({
      logger: createLogger((line) => logs.push(line), { GITHUB_WEBHOOK_SECRET: SECRET }),
      webhook: {
        secret: SECRET,
        enqueue: () => {
          throw new Error("the database went away");
        },
      },
    });
    const response = await app.fetch(delivery(fixture("pull_request.opened")));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { code: "internal", message: "internal error" } });
    expect(logs.some((line) => line.includes('"msg":"unhandled error"') && line.includes("went away"))).toBe(
      true,
    );
    const turn = await app.fetch(
      new Request("http://bot.test/v1/impact/turn", { method: "POST", body: "{}" }),
    );
    expect(turn.status).toBe(503);
  });

  it("names the bad field of a malformed pull_request payload with 400", async () => {
    const { app } = botApp();
    const body = fixture("pull_request.opened", { head: "not-a-sha" });
    const response = await app.fetch(delivery(body));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchInlineSnapshot(`
      {
        "error": {
          "code": "invalid_body",
          "issues": [
            {
              "message": "Invalid string: must match pattern /^[0-9a-f]{40}$/",
              "path": "pull_request.head.sha",
            },
          ],
          "message": "invalid pull_request payload at pull_request.head.sha",
        },
      }
    `);
  });

  it("refuses bodies over 25 MB with 413", async () => {
    const { app } = botApp();
    const body = JSON.stringify({ padding: "x".repeat(25 * 1024 * 1024) });
    const response = await app.fetch(delivery(body));
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("body_too_large");
  });

  it("answers 503 when the queue is full, and takes the redelivery later", async () => {
    const full = botApp({ fullTimes: 1 });
    const response = await full.app.fetch(delivery(fixture("pull_request.opened"), { id: "busy" }));
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("60");
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("queue_full");
    expect(full.jobs).toHaveLength(0);
    // The refused delivery was not recorded: the redelivery is no duplicate, and is queued.
    expect((await full.app.fetch(delivery(fixture("pull_request.opened"), { id: "busy" }))).status).toBe(202);
    expect(full.jobs.map((queued) => queued.deliveryId)).toEqual(["busy"]);
  });
});

/** A job of pull request `number` of acme/widgets, cloned from `source.cloneUrl` at its two commits. */
function job(
  number: number,
  deliveryId: string,
  source = { cloneUrl: "/dev/null", baseSha: BASE_SHA, headSha: HEAD_SHA },
): PullRequestJob {
  const { cloneUrl, baseSha, headSha } = source;
  return { deliveryId, repository: { fullName: "acme/widgets", cloneUrl }, number, headSha, baseSha };
}

/**
 * A job runner the test drives: each job records its start and waits until the test
 * releases it (or its signal aborts).
 */
function heldJobs() {
  const events: string[] = [];
  const started = new Map<string, { promise: Promise<() => void>; resolve: (release: () => void) => void }>();
  const startOf = (id: string) => {
    let entry = started.get(id);
    if (!entry) {
      let resolve!: (release: () => void) => void;
      const promise = new Promise<() => void>((done) => {
        resolve = done;
      });
      entry = { promise, resolve };
      started.set(id, entry);
    }
    return entry;
  };
  const run = (current: PullRequestJob, signal: AbortSignal) =>
    new Promise<undefined>((resolve, reject) => {
      events.push(`start ${current.deliveryId}`);
      signal.addEventListener("abort", () => {
        events.push(`aborted ${current.deliveryId}`);
        reject(signal.reason);
      });
      startOf(current.deliveryId).resolve(() => {
        events.push(`done ${current.deliveryId}`);
        resolve(undefined);
      });
    });
  // Waits for the job to start (the test orders events by starts, not by time), then releases it.
  const finish = async (id: string) => (await startOf(id).promise)();
  return { events, run, started: (id: string) => startOf(id).promise, finish };
}

describe("queue fairness", () => {
  it("one repository's flood of pull requests does not lock out another's, which runs next", async () => {
    const held = heldJobs();
    const logger = createLogger(() => {}, {});
    const { queue } = await tempQueue({
      logger,
      run: held.run,
      maxPending: DEFAULT_BOT_MAX_PENDING,
      maxPendingPerRepository: DEFAULT_BOT_MAX_PENDING_PER_REPOSITORY,
    });
    const app = createApp({
      logger,
      webhook: { secret: SECRET, enqueue: (next, keys) => queue.enqueue(next, keys) },
    });
    const pr = (repository: string, number: number) =>
      fixture("pull_request.opened", { head: number.toString(16).padStart(40, "0") })
        .replaceAll('"number": 42', `"number": ${number}`)
        .replaceAll('"full_name": "acme/widgets"', `"full_name": "${repository}"`);
    const statuses: number[] = [];
    for (let number = 1; number <= DEFAULT_BOT_MAX_PENDING + 1; number += 1) {
      statuses.push((await app.fetch(delivery(pr("fork/flood", number), { id: `flood-${number}` }))).status);
    }
    // One runs, DEFAULT_BOT_MAX_PENDING_PER_REPOSITORY wait, the rest are refused (GitHub may redeliver).
    expect(statuses.filter((status) => status === 202)).toHaveLength(
      1 + DEFAULT_BOT_MAX_PENDING_PER_REPOSITORY,
    );
    expect(statuses.filter((status) => status === 503)).toHaveLength(
      DEFAULT_BOT_MAX_PENDING - DEFAULT_BOT_MAX_PENDING_PER_REPOSITORY,
    );
    const refused = await app.fetch(delivery(pr("fork/flood", 500), { id: "flood-500" }));
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      "too many pull requests of fork/flood queued; redeliver later",
    );

    expect((await app.fetch(delivery(pr("acme/widgets", 7), { id: "acme-7" }))).status).toBe(202);
    await held.finish("flood-1");
    // The other repository goes before the flood's waiting jobs.
    await held.finish("acme-7");
    await held.finish("flood-2");
    expect(held.events.slice(0, 5)).toEqual([
      "start flood-1",
      "done flood-1",
      "start acme-7",
      "done acme-7",
      "start flood-2",
    ]);
  });
});

describe("PullRequestQueue", () => {
  it("keeps one job per pull request: a newer push replaces a waiting job and aborts a running one", async () => {
    const held = heldJobs();
    const { queue, store } = await tempQueue({
      maxPending: 2,
      run: held.run,
    });
    expect(await queue.enqueue(job(1, "a"))).toBe("queued"); // runs at once
    await held.started("a");
    expect(await queue.enqueue(job(2, "b"))).toBe("queued"); // waits
    expect(await queue.enqueue(job(2, "c"))).toBe("superseded"); // replaces b
    expect(await queue.enqueue(job(3, "d"))).toBe("queued");
    expect(await queue.enqueue(job(4, "e"))).toBe("full");
    expect(await queue.enqueue(job(1, "f"))).toBe("superseded"); // aborts a, then waits behind c and d
    await held.finish("c");
    await held.finish("d");
    await held.finish("f");
    await queue.idle();
    expect(held.events).toEqual([
      "start a",
      "aborted a",
      "start c",
      "done c",
      "start d",
      "done d",
      "start f",
      "done f",
    ]);
    expect((await store.job("a"))?.state).toBe("superseded");
    expect((await store.job("b"))?.state).toBe("superseded");
    expect((await store.job("f"))?.state).toBe("done");
    expect(await store.job("e")).toBeUndefined();
  });

  it("on close, stops running jobs and keeps them and the waiting ones queued in the store", async () => {
    const held = heldJobs();
    const { queue, store } = await tempQueue({
      maxPending: 5,
      run: held.run,
    });
    await queue.enqueue(job(1, "a"));
    await queue.enqueue(job(2, "b"));
    await held.started("a");
    await queue.close();
    expect(held.events).toEqual(["start a", "aborted a"]);
    expect(queue.running).toBe(0);
    // Both wait for the next start; the stopped run does not count as an attempt.
    expect(await store.job("a")).toMatchObject({ state: "queued", attempts: 0 });
    expect(await store.job("b")).toMatchObject({ state: "queued", attempts: 0 });
  });
});

/** What the fake CLI below saw of one call. */
interface FakeCliCall {
  command: string;
  argv: string[];
  /** The names of the model, GitHub and Impact settings in its environment. */
  env: string[];
  head?: string;
  readme?: string;
  config?: string;
  gitConfig?: string;
  mergeBase?: string | null;
  cacheFiles?: string[];
}

/**
 * Stands in for the CLI the bot starts: records how the bot called it and what it saw, and
 * writes an audit for `run` (and the cache files FAKE_CACHE_WRITES names); FAKE_EXIT_<command>
 * sets its exit code. The real `impact comment` is tested in comment.test.ts.
 */
function fakeCli(calls: FakeCliCall[]): CliRunner {
  return async (args, { env }) => {
    const [command = "", ...rest] = args;
    const flag = (name: string) => rest[rest.indexOf(name) + 1]!;
    const record: FakeCliCall = {
      command,
      argv: rest,
      env: Object.keys(env)
        .filter((key) => /GITHUB|OPENAI|IMPACT|FAKE/.test(key))
        .sort(),
    };
    let stdout = "";
    if (command === "run") {
      const repo = flag("--repo");
      const git = (...gitArgs: string[]) =>
        execFileSync("git", gitArgs, { cwd: repo, encoding: "utf8", stdio: "pipe" }).trim();
      record.head = git("rev-parse", "HEAD");
      record.readme = readFileSync(join(repo, "docs/a.md"), "utf8");
      record.config = readFileSync(flag("--config"), "utf8");
      record.gitConfig = readFileSync(join(repo, ".git/config"), "utf8");
      try {
        record.mergeBase = git("merge-base", flag("--base"), flag("--head"));
      } catch {
        record.mergeBase = null;
      }
      writeFileSync(flag("--out"), "{}");
      if (rest.includes("--cache-dir")) {
        const dir = flag("--cache-dir");
        record.cacheFiles = readdirSync(dir).sort();
        for (const [name, text] of Object.entries(JSON.parse(env.FAKE_CACHE_WRITES ?? "{}") as object)) {
          writeFileSync(join(dir, name), String(text));
        }
      }
    }
    if (command === "comment") stdout = `${JSON.stringify({ action: "created", id: 7001, url: "u" })}\n`;
    calls.push(record);
    return { code: Number(env[`FAKE_EXIT_${command}`] ?? 0), signal: null, stdout, stderr: "" };
  };
}

/**
 * The PR pipeline with the fake CLI above, cloning into a temp work folder; `calls()`
 * returns what the fake CLI recorded.
 */
function fakeCliPipeline(options: {
  runEnv?: Record<string, string>;
  commentEnv?: Record<string, string>;
  githubToken?: string;
  logger?: ReturnType<typeof createLogger>;
  state?: PipelineOptions["state"];
}) {
  const work = makeTempDir();
  const recorded: FakeCliCall[] = [];
  const pipeline = createPullRequestPipeline({
    cli: fakeCli(recorded),
    runEnv: { ...options.runEnv },
    commentEnv: { ...options.commentEnv },
    auth: tokenAuth(options.githubToken ?? "ghs_unused_token_in_this_test_00"),
    timeoutMs: 60_000,
    workRoot: work,
    state: options.state,
    logger: options.logger ?? createLogger(() => {}, {}),
  });
  const calls = (): FakeCliCall[] => [...recorded];
  return { work, pipeline, calls };
}

describe("the PR bot end to end (fake CLI, real git)", () => {
  it("clones the PR head, uses the base commit's config, runs impact run then impact comment", async () => {
    const source = gitRepo({
      "impact.config.json": '{"docs": ["docs/**/*.md"]}\n',
      "docs/a.md": "# A\n\nRun `impact login --user NAME`.\n",
      "src/login.ts": "export const flag = '--user';\n",
    });
    const base = source.git("rev-parse", "HEAD");
    // The PR changes the code and tries to choose its own config.
    const head = source.commit({
      "src/login.ts": "export const flag = '--account';\n",
      "impact.config.json": '{"docs": ["evil/**"]}\n',
    });
    source.git("checkout", "-q", "-b", "elsewhere", base); // the head is not the checked-out branch

    const logs: string[] = [];
    const logger = createLogger((line) => logs.push(line), { GITHUB_TOKEN });
    const {
      work,
      pipeline,
      calls: readCalls,
    } = fakeCliPipeline({
      runEnv: { OPENAI_API_KEY: "sk-test-not-a-real-key" },
      commentEnv: { GITHUB_API_URL: "http://127.0.0.1:9/api" },
      githubToken: GITHUB_TOKEN,
      logger,
    });
    const { queue } = await tempQueue({ logger, run: pipeline });
    const app = createApp({
      logger,
      webhook: { secret: SECRET, enqueue: (next, keys) => queue.enqueue(next, keys) },
    });

    const body = fixture("pull_request.opened", { base, head, cloneUrl: source.dir });
    expect((await app.fetch(delivery(body, { id: "e2e-1" }))).status).toBe(202);
    await queue.idle();

    const calls = readCalls();
    expect(calls.map((call) => call.command)).toEqual(["run", "comment"]);
    const runCall = calls[0]!;
    const commentCall = calls[1]!;
    expect(runCall.head).toBe(head);
    expect(runCall.readme).toBe("# A\n\nRun `impact login --user NAME`.\n");
    expect(runCall.config).toBe('{"docs": ["docs/**/*.md"]}\n');
    expect(runCall.gitConfig).not.toContain(GITHUB_TOKEN);
    expect(runCall.gitConfig).not.toContain(source.dir);
    const normalise = (argv: string[]) =>
      argv.map((arg) =>
        arg
          .replace(work, "<work>")
          .replace(/impact-pr-[^/]+/, "<job>")
          .replace(base, "<base>")
          .replace(head, "<head>"),
      );
    expect(normalise(runCall.argv)).toMatchInlineSnapshot(`
      [
        "--repo",
        "<work>/<job>/repo",
        "--base",
        "<base>",
        "--head",
        "<head>",
        "--config",
        "<work>/<job>/impact.config.json",
        "--out",
        "<work>/<job>/audit.json",
        "--patch",
        "<work>/<job>/impact.patch",
        "--no-cache",
        "--quiet",
      ]
    `);
    expect(normalise(commentCall.argv)).toEqual([
      "<work>/<job>/audit.json",
      "--pr",
      "42",
      "--repo",
      "acme/widgets",
      "--json",
    ]);
    // The run gets the model settings only; the comment gets the GitHub token only.
    expect(runCall.env).toEqual(["OPENAI_API_KEY"]);
    expect(commentCall.env).toEqual(["GITHUB_API_URL", "GITHUB_TOKEN"]);
    expect(logs.join("")).toContain('"action":"created","id":7001,"url":"u","msg":"comment done"');
    expect(logs.join("")).not.toContain(GITHUB_TOKEN);
  });

  it("fetches enough history to reach the merge base when the base branch moved on", async () => {
    const source = gitRepo({ "docs/a.md": "# A\n", "src/a.ts": "export const a = 1;\n" });
    const forkPoint = source.git("rev-parse", "HEAD");
    source.git("checkout", "-q", "-b", "feature");
    for (let index = 2; index <= 4; index += 1) source.commit({ "src/a.ts": `export const a = ${index};\n` });
    const head = source.git("rev-parse", "HEAD");
    source.git("checkout", "-q", "main");
    const base = source.commit({ "src/b.ts": "export const b = 1;\n" });

    const { pipeline, calls } = fakeCliPipeline({});
    const job = JSON.parse(fixture("pull_request.opened", { base, head, cloneUrl: `file://${source.dir}` }));
    await pipeline(
      {
        deliveryId: "deepen-1",
        number: job.number,
        baseSha: base,
        headSha: head,
        repository: { fullName: job.repository.full_name, cloneUrl: job.repository.clone_url },
      },
      new AbortController().signal,
    );
    const runCall = calls()[0]!;
    expect(runCall.head).toBe(head);
    expect(runCall.mergeBase).toBe(forkPoint);
  });

  it("hands the run its repository's cached results only, and keeps only valid entries it wrote, within the cap", async () => {
    const source = gitRepo({ "docs/a.md": "# A\n" });
    const base = source.git("rev-parse", "HEAD");
    const head = source.commit({ "docs/a.md": "# B\n" });
    const key = (fill: string) => fill.repeat(64);
    const payload = (entryKey: string, padding = "") =>
      JSON.stringify({
        format: RESULT_ENTRY_FORMAT,
        key: entryKey,
        articles: [{ ...auditArticle("docs/a.md"), summary: `cached${padding}` }],
        reads: {},
      });
    // Sealed as the child seals its entries (the bot keeps them as they are; the child checks the MAC).
    const entry = (entryKey: string, padding = "") =>
      sealStateEntry(
        Buffer.from("a machine's key"),
        { kind: "results", version: "2-0.1.0", name: `${entryKey}.json` },
        payload(entryKey, padding),
      ).toString("utf8");
    const store = await tempStateStore();
    await store.putCachedResults("acme/widgets", [{ key: key("a"), entry: entry(key("a")) }], 1e6);
    await store.putCachedResults("other/repo", [{ key: key("b"), entry: entry(key("b")) }], 1e6);
    const logs: string[] = [];
    const writes = {
      [`${key("c")}.json`]: entry(key("c")),
      [`${key("d")}.json`]: entry(key("c")), // names another key
      [`${key("e")}.json`]: entry(key("e"), "x".repeat(5000)), // over the cap
      [`${key("f")}.json`]: "not json",
      [`${key("9")}.json`]: payload(key("9")), // not sealed
      "notes.txt": "hello",
    };
    const { pipeline, calls } = fakeCliPipeline({
      runEnv: { FAKE_CACHE_WRITES: JSON.stringify(writes) },
      githubToken: GITHUB_TOKEN,
      logger: createLogger((line) => logs.push(line), {}),
      state: { store, cacheBytes: 4000 },
    });
    await pipeline(
      job(5, "cache-1", { cloneUrl: `file://${source.dir}`, baseSha: base, headSha: head }),
      new AbortController().signal,
    );
    expect(calls()[0]!.cacheFiles).toEqual([`${key("a")}.json`]);
    expect([...(await store.cachedResults("acme/widgets")).keys()].sort()).toEqual([key("a"), key("c")]);
    expect([...(await store.cachedResults("other/repo")).keys()]).toEqual([key("b")]);
    const warning = logs
      .map((line) => JSON.parse(line))
      .find((line) => line.msg === "cache entries not kept");
    expect(warning.refused.sort()).toEqual([
      `${key("9")}.json`,
      `${key("d")}.json`,
      `${key("e")}.json`,
      `${key("f")}.json`,
      "notes.txt",
    ]);
    // The fake comment printed its id: the store keeps it for the next job of the PR.
    expect(await store.commentId("acme/widgets", 5)).toBe(7001);
  });

  it("uses an empty config when the base commit has none, and comments even when articles failed", async () => {
    const source = gitRepo({ "docs/a.md": "# A\n" });
    const base = source.git("rev-parse", "HEAD");
    const head = source.commit({ "impact.config.json": '{"docs": ["evil/**"]}\n', "docs/a.md": "# A!\n" });
    const logs: string[] = [];
    const logger = createLogger((line) => logs.push(line), {});
    const { pipeline, calls: readCalls } = fakeCliPipeline({
      runEnv: { FAKE_EXIT_run: "1" },
      githubToken: GITHUB_TOKEN,
      logger,
    });
    await pipeline(
      job(5, "x", { cloneUrl: `file://${source.dir}`, baseSha: base, headSha: head }),
      new AbortController().signal,
    );
    const calls = readCalls();
    expect(calls.map((call) => call.command)).toEqual(["run", "comment"]);
    expect(calls[0]!.config).toBe("{}\n");
  });

  it("fails the job without a comment when impact run fails with a usage error", async () => {
    const source = gitRepo({ "docs/a.md": "# A\n" });
    const base = source.git("rev-parse", "HEAD");
    const head = source.commit({ "docs/a.md": "# B\n" });
    const { pipeline, calls: readCalls } = fakeCliPipeline({
      runEnv: { FAKE_EXIT_run: "2" },
      githubToken: GITHUB_TOKEN,
    });
    const pending = pipeline(
      job(5, "x", { cloneUrl: source.dir, baseSha: base, headSha: head }),
      new AbortController().signal,
    );
    await expect(pending).rejects.toThrow("impact run exited with code 2");
    const calls = readCalls();
    expect(calls.map((call) => call.command)).toEqual(["run"]);
    await expect(
      pipeline(
        job(5, "y", { cloneUrl: source.dir, baseSha: base, headSha: "3".repeat(40) }),
        new AbortController().signal,
      ),
    ).rejects.toThrow(/^git fetch failed: /);
  });
});
