import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { fixScript, portRepo } from "../helpers/audit-fixture.js";
import { startFakeGitHub } from "../helpers/fake-github.js";
import { makeTempDir } from "../helpers/git-repo.js";
import { startPostgres, type TestPostgres } from "../helpers/postgres.js";
import { type ScriptStep, startScriptedModelServer } from "../helpers/scripted-model-server.js";
import { parseMetrics, SERVE_FAKES, serveEnv, startServe, until } from "../helpers/serve-process.js";
import { deliverTo } from "../helpers/serve-world.js";
import { pullRequestPayload as payload } from "../helpers/webhook-delivery.js";

const buildDir = inject("builtPackage");
/** Jobs each instance runs at once. */
const CONCURRENCY = 1;
/**
 * PRs in the burst, each delivered to both instances: one more than the two instances run at
 * once (2 × CONCURRENCY), so one job waits in the shared queue and is claimed later. Each job
 * starts the built CLI twice (run, comment), the dearest part of the suite: no more jobs than
 * the claim needs (concurrent claims of one instance are state-store.test.ts's).
 */
const BURST = 2 * CONCURRENCY + 1;
/** PRs pushed to again after the burst, on a fresh instance: two, run at once. */
const PUSHED = 2;

let postgres: TestPostgres | undefined;
let missing: string | undefined;

beforeAll(async () => {
  const started = await startPostgres();
  if ("unavailable" in started) {
    missing = started.unavailable;
    console.warn(`\n!!! SKIPPING the two-instance Postgres test: ${missing}\n`);
  } else {
    postgres = started;
  }
}, 60_000);

afterAll(() => postgres?.stop());

const deliver = (url: string, body: string, id: string): Promise<number> =>
  deliverTo(url, body, id).then((response) => response.status);

describe("two impact serve processes on one Postgres", () => {
  it("take a burst of deliveries (each sent to both) and run each job exactly once", async (context) => {
    if (!postgres) return context.skip(missing);
    const databaseUrl = await postgres.createDatabase("burst");
    const repo = portRepo(["alpha"]);
    const head = repo.git("rev-parse", "HEAD");
    const base = repo.git("rev-parse", "HEAD~1");
    const github = await startFakeGitHub({ token: SERVE_FAKES.githubToken });
    const reply = (fixScript(["alpha"]) as Record<string, ScriptStep[]>)["docs/alpha.md"]![0]!;
    const upstream = await startScriptedModelServer(() => reply);
    const env = () =>
      serveEnv(
        { github: github.url, model: upstream.url },
        {
          IMPACT_BOT_CONCURRENCY: String(CONCURRENCY),
          DATABASE_URL: databaseUrl,
          IMPACT_DATA_DIR: makeTempDir(),
        },
      );
    const instances = [await startServe(buildDir, env()), await startServe(buildDir, env())];
    const numbers = Array.from({ length: BURST }, (_, index) => index + 1);
    for (const number of numbers) github.setPull("acme/widgets", number, { head });

    // Every delivery reaches both instances at once (a load balancer retrying, say): one takes it.
    const statuses = await Promise.all(
      numbers.map((number) => {
        const body = payload({ base, head, cloneUrl: repo.dir, number });
        return Promise.all(instances.map((instance) => deliver(instance.url, body, `burst-${number}`)));
      }),
    );
    for (const pair of statuses) expect(pair.sort()).toEqual([202, 204]);

    await until(() => numbers.every((number) => github.comments("acme/widgets", number).length === 1), 250);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await until(async () => {
        const { rows } = await client.query("SELECT count(*)::int AS n FROM jobs WHERE state = 'done'");
        return rows[0].n === BURST;
      }, 250);
      const { rows } = await client.query("SELECT id, state, attempts, claimed_by FROM jobs ORDER BY id");
      expect(rows).toHaveLength(BURST);
      for (const row of rows) expect(row).toMatchObject({ state: "done", attempts: "1" });
    } finally {
      await client.end();
    }
    for (const number of numbers) {
      // One comment lookup per PR: no job ran twice.
      const lookups = github.requests.filter(
        (request) =>
          request.method === "GET" && request.path === `/repos/acme/widgets/issues/${number}/comments`,
      );
      expect(lookups).toHaveLength(1);
    }
    // Both instances report the shared state; together they ran the burst once.
    let ran = 0;
    for (const instance of instances) {
      const values = parseMetrics(await (await fetch(`${instance.url}/metrics`)).text());
      expect(values.get('impact_jobs{state="done"}')).toBe(BURST);
      ran += values.get('impact_job_duration_seconds_count{outcome="done"}') ?? 0;
      expect(await (await fetch(`${instance.url}/healthz`)).json()).toEqual({
        ok: true,
        store: { kind: "postgres", ok: true },
      });
    }
    expect(ran).toBe(BURST);
    for (const instance of instances) instance.child.kill("SIGTERM");
    expect(await Promise.all(instances.map((instance) => instance.exited))).toEqual([0, 0]);

    // A fresh instance (a data folder of its own, nothing on its disk) gets a push to some
    // PRs that changes nothing the docs depend on: the results the two others cached in the
    // database answer with no model call, and each comment is updated by the id they stored.
    // (Jobs of the burst that started after the first ones finished reused those results already.)
    const modelCalls = upstream.requests.length;
    expect(modelCalls).toBeGreaterThan(0);
    const ids = new Map(numbers.map((number) => [number, github.comments("acme/widgets", number)[0]!.id]));
    const pushed = numbers.slice(0, PUSHED);
    const fresh = await startServe(buildDir, { ...env(), IMPACT_BOT_CONCURRENCY: String(PUSHED) });
    for (const number of pushed) {
      const push = payload({ action: "synchronize", base, head, cloneUrl: repo.dir, number });
      expect(await deliver(fresh.url, push, `push-${number}`)).toBe(202);
    }
    await until(async () => {
      const values = parseMetrics(await (await fetch(`${fresh.url}/metrics`)).text());
      return values.get('impact_job_duration_seconds_count{outcome="done"}') === PUSHED;
    }, 250);
    expect(upstream.requests).toHaveLength(modelCalls);
    for (const number of pushed) {
      const byId = github.requests.filter(
        (request) => request.path === `/repos/acme/widgets/issues/comments/${ids.get(number)}`,
      );
      // Read by its id, then rewritten (it now says the result came from the cache).
      expect(byId.map((request) => request.method)).toEqual(["GET", "PATCH"]);
      expect(github.comments("acme/widgets", number).map((comment) => comment.id)).toEqual([ids.get(number)]);
    }
    fresh.child.kill("SIGTERM");
    expect(await fresh.exited).toBe(0);
    await upstream.close();
  }, 300_000);
});
