import { describe, expect, inject, it } from "vitest";
import { makeTempDir } from "../helpers/git-repo.js";
import { startServe, until } from "../helpers/serve-process.js";
import { deliverTo as deliver, type ServeWorld, serveWorld as world } from "../helpers/serve-world.js";
import { pullRequestPayload as payload } from "../helpers/webhook-delivery.js";

const buildDir = inject("builtPackage");

// Apart from serve-restart.test.ts so that the two run side by side: each is a chain of
// server starts and jobs that mostly waits on its processes.
describe("impact serve drains on SIGTERM (real processes, SQLite state)", () => {
  it("on SIGTERM, lets the running job finish before it exits; one that outlasts the drain time runs after the next start", async () => {
    const w = await world({ slowMs: 3_000 });
    const dataDir = makeTempDir();
    w.github.setPull("acme/widgets", 42, { head: w.head });
    const server = await serveWithRunningJob(w, dataDir, "60000", 42);
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
    const short = await serveWithRunningJob(w2, dataDir2, "500", 43);
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

/**
 * `impact serve` with drain time `drainMs`, once it took a delivery for PR `number` and the
 * job's model call has started.
 */
async function serveWithRunningJob(w: ServeWorld, dataDir: string, drainMs: string, number: number) {
  const server = await startServe(buildDir, w.env(dataDir, { IMPACT_DRAIN_TIMEOUT_MS: drainMs }));
  const delivery = payload({ base: w.base, head: w.head, cloneUrl: w.repo.dir, number });
  expect((await deliver(server.url, delivery, `t-${number}`)).status).toBe(202);
  await until(() => w.upstream.requests.length > 0);
  return server;
}
