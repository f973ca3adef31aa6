import { describe, expect, inject, it } from "vitest";
import { makeTempDir } from "../helpers/git-repo.js";
import { parseMetrics, startServe, until } from "../helpers/serve-process.js";
import { deliverTo as deliver, serveWorld as world } from "../helpers/serve-world.js";
import { pullRequestPayload as payload } from "../helpers/webhook-delivery.js";

const buildDir = inject("builtPackage");

async function metrics(url: string): Promise<Map<string, number>> {
  const response = await fetch(`${url}/metrics`);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return parseMetrics(await response.text());
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
});
