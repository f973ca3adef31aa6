import { describe, expect, inject, it } from "vitest";
import { fixScript, portRepo } from "./helpers/audit-fixture.js";
import { startFakeGitHub } from "./helpers/fake-github.js";
import { makeTempDir } from "./helpers/git-repo.js";
import { type ScriptStep, startScriptedModelServer } from "./helpers/scripted-model-server.js";
import { parseMetrics, SERVE_FAKES, serveEnv, startServe, until } from "./helpers/serve-process.js";
import { pullRequestPayload as payload, signedDelivery } from "./helpers/webhook-delivery.js";

const buildDir = inject("builtPackage");

const deliver = (url: string, body: string, id: string): Promise<Response> =>
  fetch(signedDelivery(SERVE_FAKES.secret, body, id, { url }));

async function metrics(url: string): Promise<Map<string, number>> {
  const response = await fetch(`${url}/metrics`);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return parseMetrics(await response.text());
}

/**
 * A PR fixture repository, a fake GitHub knowing its PRs, and a model whose calls hang
 * until `answer()` (or, with `slowMs`, answer after that long).
 */
async function world(options: { slowMs?: number } = {}) {
  const repo = portRepo(["alpha"]);
  const head = repo.git("rev-parse", "HEAD");
  const base = repo.git("rev-parse", "HEAD~1");
  const github = await startFakeGitHub({ token: SERVE_FAKES.githubToken });
  let answering = false;
  const reply = (fixScript(["alpha"]) as Record<string, ScriptStep[]>)["docs/alpha.md"]![0]!;
  const upstream = await startScriptedModelServer(() =>
    answering ? reply : options.slowMs ? { ...reply, delayMs: options.slowMs } : { hang: true },
  );
  const env = (dataDir: string, extra: Record<string, string> = {}) =>
    serveEnv({ github: github.url, model: upstream.url }, { IMPACT_DATA_DIR: dataDir, ...extra });
  return { repo, head, base, github, upstream, env, answer: () => (answering = true) };
}

describe("impact serve restarts (real processes, SQLite state)", () => {
  it("after SIGKILL, a new start runs the running and queued jobs once more, keeps duplicates 204 and drops a superseded head", async () => {
    const w = await world();
    const dataDir = makeTempDir();
    for (const number of [42, 43]) w.github.setPull("acme/widgets", number, { head: w.head });
    // PR 44 moved on while the server was down: its queued job is for an old head.
    w.github.setPull("acme/widgets", 44, { head: "f".repeat(40) });
    const bodies = [42, 43, 44].map((number) =>
      payload({ base: w.base, head: w.head, cloneUrl: w.repo.dir, number }),
    );

    const first = await startServe(buildDir, w.env(dataDir));
    expect((await deliver(first.url, bodies[0]!, "d-42")).status).toBe(202);
    await until(() => w.upstream.requests.length > 0); // PR 42's job is running, its model call hangs
    expect((await deliver(first.url, bodies[1]!, "d-43")).status).toBe(202);
    expect((await deliver(first.url, bodies[2]!, "d-44")).status).toBe(202);
    await first.kill();
    expect(w.github.comments("acme/widgets", 42)).toEqual([]);

    w.answer();
    const second = await startServe(buildDir, w.env(dataDir));
    expect(second.logs().find((line) => line.msg === "jobs of a stopped server taken back")).toMatchObject({
      requeued: ["d-42"],
      failed: [],
    });
    // Redelivered by GitHub after the crash: still a duplicate.
    expect((await deliver(second.url, bodies[0]!, "d-42")).status).toBe(204);
    await until(async () => {
      const values = await metrics(second.url);
      return (
        (values.get('impact_jobs{state="done"}') ?? 0) + (values.get('impact_jobs{state="dropped"}') ?? 0) ===
        3
      );
    });
    const values = await metrics(second.url);
    expect(values.get('impact_jobs{state="done"}')).toBe(2);
    expect(values.get('impact_jobs{state="dropped"}')).toBe(1);
    expect(values.get('impact_jobs{state="queued"}')).toBe(0);
    expect(values.get('impact_webhook_deliveries_total{status="204"}')).toBe(1);
    expect(values.get('impact_job_duration_seconds_count{outcome="done"}')).toBe(2);
    expect(values.get('impact_model_tokens_total{kind="prompt"}')).toBeGreaterThan(0);
    expect(values.get("impact_state_store_up")).toBe(1);

    for (const number of [42, 43]) {
      const comments = w.github.comments("acme/widgets", number);
      expect(comments).toHaveLength(1);
      expect(comments[0]!.body).toContain("+The server listens on port 9090 by default.");
    }
    expect(w.github.comments("acme/widgets", 44)).toEqual([]);
    // Each job ran once after the restart: one comment lookup per PR.
    const lookups = (number: number) =>
      w.github.requests.filter(
        (request) => request.method === "GET" && request.path.endsWith(`/issues/${number}/comments`),
      );
    expect([lookups(42).length, lookups(43).length, lookups(44).length]).toEqual([1, 1, 0]);
    expect(second.logs().find((line) => line.msg === "job dropped")).toMatchObject({
      delivery: "d-44",
      reason: `the pull request's head is ${"f".repeat(40)} now`,
    });

    expect(await (await fetch(`${second.url}/healthz`)).json()).toEqual({
      ok: true,
      store: { kind: "sqlite", ok: true },
    });
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);

    // After another restart, a push that changes nothing the doc depends on reuses the
    // cached result (no model call) and updates the comment by the id the store kept (no search).
    const modelCalls = w.upstream.requests.length;
    const commentId = w.github.comments("acme/widgets", 42)[0]!.id;
    const third = await startServe(buildDir, w.env(dataDir));
    const push = payload({
      action: "synchronize",
      base: w.base,
      head: w.head,
      cloneUrl: w.repo.dir,
      number: 42,
    });
    expect((await deliver(third.url, push, "d-42-sync")).status).toBe(202);
    await until(
      async () => (await metrics(third.url)).get('impact_job_duration_seconds_count{outcome="done"}') === 1,
    );
    expect(w.upstream.requests).toHaveLength(modelCalls);
    expect(lookups(42)).toHaveLength(1);
    // Read by its id, then rewritten (it now says the result came from the cache).
    const byId = w.github.requests.filter(
      (request) => request.path === `/repos/acme/widgets/issues/comments/${commentId}`,
    );
    expect(byId.map((request) => request.method)).toEqual(["GET", "PATCH"]);
    expect(w.github.comments("acme/widgets", 42).map((comment) => comment.id)).toEqual([commentId]);
    expect(w.github.comments("acme/widgets", 42)[0]!.body).toContain("1 result reused from the result cache");
    third.child.kill("SIGTERM");
    expect(await third.exited).toBe(0);
    await w.upstream.close();
  }, 240_000);

  it("on SIGTERM, lets the running job finish before it exits; one that outlasts the drain time runs after the next start", async () => {
    const w = await world({ slowMs: 3_000 });
    const dataDir = makeTempDir();
    w.github.setPull("acme/widgets", 42, { head: w.head });
    const server = await startServe(buildDir, w.env(dataDir, { IMPACT_DRAIN_TIMEOUT_MS: "60000" }));
    expect(
      (
        await deliver(
          server.url,
          payload({ base: w.base, head: w.head, cloneUrl: w.repo.dir, number: 42 }),
          "t-1",
        )
      ).status,
    ).toBe(202);
    await until(() => w.upstream.requests.length > 0);
    server.child.kill("SIGTERM");
    // New deliveries are no longer taken while it drains.
    await until(() => server.logs().some((line) => line.msg.startsWith("shutting down")));
    expect(await server.exited).toBe(0);
    expect(w.github.comments("acme/widgets", 42)).toHaveLength(1);

    // A job still running when the drain time is up goes back to the queue.
    const w2 = await world();
    w2.github.setPull("acme/widgets", 43, { head: w2.head });
    // A data folder (state database) of its own: the first part's result cache would answer without a model call.
    const dataDir2 = makeTempDir();
    const short = await startServe(buildDir, w2.env(dataDir2, { IMPACT_DRAIN_TIMEOUT_MS: "500" }));
    expect(
      (
        await deliver(
          short.url,
          payload({ base: w2.base, head: w2.head, cloneUrl: w2.repo.dir, number: 43 }),
          "t-2",
        )
      ).status,
    ).toBe(202);
    await until(() => w2.upstream.requests.length > 0);
    short.child.kill("SIGTERM");
    expect(await short.exited).toBe(0);
    expect(short.logs().some((line) => line.msg === "job stopped by the shutdown; back in the queue")).toBe(
      true,
    );
    w2.answer();
    const next = await startServe(buildDir, w2.env(dataDir2));
    await until(() => w2.github.comments("acme/widgets", 43).length === 1);
    next.child.kill("SIGTERM");
    expect(await next.exited).toBe(0);
    await w.upstream.close();
    await w2.upstream.close();
  }, 240_000);
});
