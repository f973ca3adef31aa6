import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, type TestContext } from "vitest";
import { createApp } from "../../../backend/app.js";
import type { PullRequestJob } from "../../../backend/job.js";
import { createLogger } from "../../../backend/server.js";
import type { SqlDriver } from "../../../backend/store/driver.js";
import { MIGRATIONS, migrate } from "../../../backend/store/migrations.js";
import { openPostgres } from "../../../backend/store/postgres.js";
import { openSqlite, SQLITE_FILE } from "../../../backend/store/sqlite.js";
import { openStateStore, StateStore } from "../../../backend/store/state-store.js";
import { makeTempDir } from "../../helpers/git-repo.js";
import { startPostgres, type TestPostgres } from "../../helpers/postgres.js";
import { pullRequestPayload, signedDelivery } from "../../helpers/webhook-delivery.js";

const CAPS = { maxPending: 100, maxPendingPerRepository: 100 };
const SECRET = "whsec-store-not-a-real-secret";

function job(
  id: string,
  number: number,
  options: Partial<Omit<PullRequestJob, "repository">> & { repository?: string } = {},
): PullRequestJob {
  const { repository = "acme/widgets", ...rest } = options;
  return {
    deliveryId: id,
    repository: { fullName: repository, cloneUrl: `https://github.com/${repository}.git` },
    number,
    headSha: "a".repeat(40),
    baseSha: "b".repeat(40),
    ...rest,
  };
}

let postgres: TestPostgres | undefined;
let postgresMissing: string | undefined;
let databases = 0;

beforeAll(async () => {
  const started = await startPostgres();
  if ("unavailable" in started) {
    postgresMissing = started.unavailable;
    console.warn(`\n!!! SKIPPING the Postgres state-store tests: ${postgresMissing}\n`);
  } else {
    postgres = started;
  }
}, 60_000);

afterAll(() => postgres?.stop());

/** A migrated driver on a fresh database of the backend named. */
async function openDriver(name: string): Promise<{ driver: SqlDriver; close: () => Promise<void> }> {
  let driver: SqlDriver;
  if (name === "Postgres") {
    databases += 1;
    driver = await openPostgres(await postgres!.createDatabase(`store_${databases}`));
  } else {
    driver = openSqlite(makeTempDir("impact-state-"));
  }
  await migrate(driver);
  return { driver, close: () => driver.close() };
}

const backends: Array<{ name: string; open: () => Promise<StateStore> }> = [
  { name: "SQLite", open: () => openStateStore({ dataDir: makeTempDir("impact-state-") }) },
  {
    name: "Postgres",
    open: async () => {
      databases += 1;
      const url = await postgres!.createDatabase(`store_${databases}`);
      return openStateStore({ dataDir: "/nonexistent", databaseUrl: url });
    },
  },
];

describe.each(backends)("the state store on $name", ({ name, open }) => {
  /** Skips the test when this backend is Postgres and no Postgres could be started. */
  const skipUnlessReady = (context: TestContext) => {
    if (name === "Postgres" && postgres === undefined) context.skip(postgresMissing);
  };
  /** A fresh store of this backend, closed when the test ends. */
  const store = async (context: TestContext) => {
    skipUnlessReady(context);
    const state = await open();
    onTestFinished(() => state.close());
    return state;
  };
  /** A migrated driver on a fresh database of this backend, closed when the test ends. */
  const driverFor = async (context: TestContext) => {
    skipUnlessReady(context);
    const { driver, close } = await openDriver(name);
    onTestFinished(close);
    return driver;
  };

  it("records a delivery with its job: a key seen before is a duplicate, a refused delivery is not recorded", async (context) => {
    const state = await store(context);
    const caps = { maxPending: 1, maxPendingPerRepository: 10 };
    const outcome = async (id: string, number: number, keys: string[]) =>
      (await state.enqueue(job(id, number), caps, keys)).outcome;
    expect(await outcome("1", 1, ["delivery:1", "body:x"])).toBe("queued");
    expect(await outcome("1", 1, ["delivery:1", "body:y"])).toBe("duplicate");
    expect(await outcome("2", 1, ["delivery:2", "body:x"])).toBe("duplicate");
    // Past the cap: refused as a whole, so delivery:3 was not recorded and its redelivery is taken.
    expect(await outcome("3", 2, ["delivery:3", "body:z"])).toBe("full");
    expect(await state.counts()).toMatchObject({ queued: 1 });
    const claimed = await state.claim("worker");
    await state.finish(claimed!.job.deliveryId, "worker", "done");
    expect(await outcome("3", 2, ["delivery:3", "body:z"])).toBe("queued");
  });

  it("records a delivery and its job in one transaction: a failure between them leaves the delivery unseen", async (context) => {
    const driver = await driverFor(context);
    // A driver that fails the job's insert once: the step after the delivery's record.
    let armed = true;
    const faulty: SqlDriver = {
      kind: driver.kind,
      location: driver.location,
      query: (sql, params) => driver.query(sql, params),
      transaction: (work) =>
        driver.transaction((tx) =>
          work({
            query: async (sql, params) => {
              if (armed && sql.includes("INSERT INTO jobs")) {
                armed = false;
                throw new Error("injected: the process died between the two steps");
              }
              return tx.query(sql, params);
            },
          }),
        ),
      close: () => driver.close(),
    };
    const state = new StateStore(faulty);
    const app = createApp({
      logger: createLogger(() => {}, {}),
      webhook: {
        secret: SECRET,
        enqueue: async (next, keys) => (await state.enqueue(next, CAPS, keys)).outcome,
      },
    });
    const body = pullRequestPayload({ base: "b".repeat(40), head: "a".repeat(40), cloneUrl: "/tmp/x" });
    const first = await app.fetch(signedDelivery(SECRET, body, "crash-1"));
    expect(first.status).toBe(500);
    expect(armed).toBe(false);
    expect(await state.counts()).toMatchObject({ queued: 0 });
    const [seen] = await driver.query<{ n: number }>("SELECT count(*) AS n FROM deliveries");
    expect(Number(seen!.n)).toBe(0);
    // GitHub redelivers (same id, same body): taken, not a duplicate.
    expect((await app.fetch(signedDelivery(SECRET, body, "crash-1"))).status).toBe(202);
    expect(await state.job("crash-1")).toMatchObject({ state: "queued" });
    expect((await app.fetch(signedDelivery(SECRET, body, "crash-1"))).status).toBe(204);
  });

  it("keeps the comment id of each pull request, and each repository's cached results within the cap, oldest out", async (context) => {
    let now = 1_000;
    const driver = await driverFor(context);
    const state = new StateStore(driver, () => now);
    expect(await state.commentId("acme/widgets", 1)).toBeUndefined();
    await state.setCommentId("acme/widgets", 1, 123456789012);
    await state.enqueue(job("a", 1), CAPS);
    expect(await state.commentId("acme/widgets", 1)).toBe(123456789012);
    expect(await state.commentId("acme/widgets", 2)).toBeUndefined();
    await state.setCommentId("acme/widgets", 1, null);
    expect(await state.commentId("acme/widgets", 1)).toBeUndefined();

    const entry = (fill: string) => fill.repeat(100);
    await state.putCachedResults("acme/widgets", [{ key: "k1", entry: entry("1") }], 250);
    now += 1;
    await state.putCachedResults("acme/widgets", [{ key: "k2", entry: entry("2") }], 250);
    await state.putCachedResults("other/repo", [{ key: "k1", entry: entry("o") }], 250);
    now += 1;
    // k1 used again: now k2 is the oldest and goes when k3 comes.
    await state.putCachedResults("acme/widgets", [{ key: "k1", entry: entry("1") }], 250);
    now += 1;
    await state.putCachedResults("acme/widgets", [{ key: "k3", entry: entry("3") }], 250);
    expect([...(await state.cachedResults("acme/widgets"))].sort()).toEqual([
      ["k1", entry("1")],
      ["k3", entry("3")],
    ]);
    expect([...(await state.cachedResults("other/repo"))]).toEqual([["k1", entry("o")]]);
  });
  it("sweeps pull requests without a delivery for 30 days (unless a job waits) and cached results unused for 30 days", async (context) => {
    const day = 24 * 60 * 60 * 1000;
    let now = 1_000;
    const driver = await driverFor(context);
    const state = new StateStore(driver, () => now);
    const count = async (table: string) =>
      Number((await driver.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0]?.n);
    await state.enqueue(job("old", 1), CAPS);
    await state.setCommentId("acme/widgets", 1, 11);
    await state.enqueue(job("waiting", 2), CAPS);
    await state.putCachedResults("gone/repo", [{ key: "k1", entry: "{}" }], 1000);
    await state.putCachedResults("acme/widgets", [{ key: "k1", entry: "{}" }], 1000);
    const claimed = await state.claim("instance-1");
    await state.finish(claimed!.job.deliveryId, "instance-1", "done");
    now += 20 * day;
    await state.enqueue(job("recent", 3), CAPS);
    // Used again: its age starts over.
    await state.putCachedResults("acme/widgets", [{ key: "k1", entry: "{}" }], 1000);
    now += 11 * day;
    await state.sweep();
    // PR 1: 31 days without a delivery, its job finished: gone, comment id with it.
    // PR 2: as old, but its job still waits. PR 3: a delivery 11 days ago.
    expect(await state.commentId("acme/widgets", 1)).toBeUndefined();
    expect(
      (await driver.query<{ number: number }>("SELECT number FROM pull_requests ORDER BY number")).map(
        (row) => Number(row.number),
      ),
    ).toEqual([2, 3]);
    expect([...(await state.cachedResults("gone/repo"))]).toEqual([]);
    expect([...(await state.cachedResults("acme/widgets")).keys()]).toEqual(["k1"]);
    expect(await count("result_cache")).toBe(1);
    // A later push to the swept PR starts afresh.
    expect((await state.enqueue(job("again", 1), CAPS)).outcome).toBe("queued");
  });

  it("keeps one job per pull request (newest wins), refuses stale deliveries, and caps each repository", async (context) => {
    const state = await store(context);
    const caps = { maxPending: 3, maxPendingPerRepository: 2 };
    expect(await state.enqueue(job("a", 1, { updatedAt: "2026-11-20T10:00:00Z" }), caps)).toEqual({
      outcome: "queued",
      stopped: [],
    });
    const newer = job("b", 1, { headSha: "c".repeat(40), updatedAt: "2026-11-20T11:00:00Z" });
    expect((await state.enqueue(newer, caps)).outcome).toBe("superseded");
    // An older delivery of the PR (a replay of an earlier push) is stale.
    expect((await state.enqueue(job("old", 1, { updatedAt: "2026-11-20T09:00:00Z" }), caps)).outcome).toBe(
      "stale",
    );
    expect((await state.enqueue(job("c", 2), caps)).outcome).toBe("queued");
    expect((await state.enqueue(job("d", 3), caps)).outcome).toBe("repository_full");
    expect((await state.enqueue(job("e", 1, { repository: "other/repo" }), caps)).outcome).toBe("queued");
    expect((await state.enqueue(job("f", 2, { repository: "third/repo" }), caps)).outcome).toBe("full");
    expect(await state.counts()).toMatchObject({ queued: 3, superseded: 1 });
    expect((await state.job("a"))?.reason).toBe("superseded by delivery b");
  });

  it("claims fairly: the repository served least recently goes first, a running PR waits", async (context) => {
    const state = await store(context);
    for (let number = 1; number <= 3; number += 1)
      await state.enqueue(job(`flood-${number}`, number, { repository: "fork/flood" }), CAPS);
    await state.enqueue(job("acme-1", 1), CAPS);
    const order: string[] = [];
    for (;;) {
      const claimed = await state.claim("worker");
      if (!claimed) break;
      order.push(claimed.job.deliveryId);
      await state.finish(claimed.job.deliveryId, "worker", "done");
    }
    expect(order).toEqual(["flood-1", "acme-1", "flood-2", "flood-3"]);
    // A job of a PR whose earlier job still runs is not claimed.
    await state.enqueue(job("x-1", 9), CAPS);
    const running = await state.claim("worker");
    await state.enqueue(job("x-2", 9, { headSha: "d".repeat(40) }), CAPS);
    expect(running?.job.deliveryId).toBe("x-1");
    // x-1 was superseded (its instance stops it), and x-2 waits until it has stopped.
    expect(await state.heartbeat("x-1", "worker")).toBe(false);
  });

  it("takes back the jobs of a dead instance once; a job that dies twice fails", async (context) => {
    const state = await store(context);
    await state.enqueue(job("a", 1), CAPS);
    expect((await state.claim("dead-1"))?.attempt).toBe(1);
    expect(await state.recover(Date.now() - 60_000)).toEqual({ requeued: [], failed: [] }); // still fresh
    expect(await state.recover(Date.now() + 1)).toEqual({ requeued: ["a"], failed: [] });
    expect(await state.finish("a", "dead-1", "done")).toBeUndefined();
    expect((await state.job("a"))?.state).toBe("queued"); // the dead instance's late word is ignored
    expect((await state.claim("dead-2"))?.attempt).toBe(2);
    expect(await state.recover(Date.now() + 1)).toEqual({ requeued: [], failed: ["a"] });
    expect(await state.job("a")).toMatchObject({ state: "failed", attempts: 2 });
  });
});

describe("the state store on Postgres, several instances", () => {
  it("claims each job exactly once when instances claim at the same time (FOR UPDATE SKIP LOCKED)", async (context) => {
    if (!postgres) return context.skip(postgresMissing);
    const url = await postgres.createDatabase("store_claims");
    const instances = await Promise.all(
      [1, 2, 3].map(() => openStateStore({ dataDir: "/nonexistent", databaseUrl: url })),
    );
    try {
      for (let number = 1; number <= 30; number += 1) {
        await instances[0]!.enqueue(job(`j-${number}`, number, { repository: `r/${number % 4}` }), CAPS);
      }
      const claimedBy = await Promise.all(
        instances.map(async (instance, index) => {
          const mine: string[] = [];
          for (;;) {
            const claimed = await instance.claim(`instance-${index}`);
            if (!claimed) return mine;
            mine.push(claimed.job.deliveryId);
            await instance.finish(claimed.job.deliveryId, `instance-${index}`, "done");
          }
        }),
      );
      const all = claimedBy.flat();
      expect(all).toHaveLength(30);
      expect(new Set(all).size).toBe(30);
      expect(await instances[0]!.counts()).toMatchObject({ done: 30, queued: 0, running: 0 });
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
    }
  });
});

describe("the SQLite state file", () => {
  it("is versioned: a reopen keeps the state and applies no migration twice", async () => {
    const dataDir = makeTempDir();
    const first = await openStateStore({ dataDir });
    await first.enqueue(job("a", 1), CAPS);
    await first.close();
    const again = await openStateStore({ dataDir });
    try {
      expect(await again.counts()).toMatchObject({ queued: 1 });
    } finally {
      await again.close();
    }
    const driver = openSqlite(dataDir);
    try {
      expect(await driver.query("SELECT version FROM schema_migrations ORDER BY version")).toEqual(
        MIGRATIONS.map((migration) => ({ version: migration.version })),
      );
    } finally {
      await driver.close();
    }
  });

  it("upgrades a database made by schema version 1, keeping its jobs and pull requests", async () => {
    const dataDir = makeTempDir();
    const old = openSqlite(dataDir);
    await migrate(old, Date.now(), MIGRATIONS.slice(0, 1));
    await new StateStore(old).enqueue(job("before-upgrade", 7), CAPS, ["delivery:before-upgrade"]);
    await old.close();
    const upgraded = await openStateStore({ dataDir });
    try {
      expect(await upgraded.job("before-upgrade")).toMatchObject({ state: "queued" });
      expect(await upgraded.commentId("acme/widgets", 7)).toBeUndefined();
      await upgraded.setCommentId("acme/widgets", 7, 42);
      expect(await upgraded.commentId("acme/widgets", 7)).toBe(42);
      await upgraded.putCachedResults("acme/widgets", [{ key: "k", entry: "{}" }], 1024);
      expect(await upgraded.cachedResults("acme/widgets")).toEqual(new Map([["k", "{}"]]));
      expect(
        (await upgraded.enqueue(job("before-upgrade", 7), CAPS, ["delivery:before-upgrade"])).outcome,
      ).toBe("duplicate");
    } finally {
      await upgraded.close();
    }
  });

  it("refuses to start on a corrupt database, naming the file, and leaves the file as it was", async () => {
    const dataDir = makeTempDir();
    const file = join(dataDir, SQLITE_FILE);
    const garbage = `SQLite format 3\0${"\u0001garbage".repeat(600)}`;
    writeFileSync(file, garbage);
    const error = await openStateStore({ dataDir }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: "UsageError", code: "config" });
    expect((error as Error).message).toContain(`the state database ${file} is unreadable or corrupt`);
    expect((error as Error).message).toContain("move it away to start with empty state");
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(file, "utf8")).toBe(garbage);
  });

  it("refuses a database written by a newer Impact", async () => {
    const dataDir = makeTempDir();
    const driver = openSqlite(dataDir);
    await driver.query(
      "CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)",
    );
    await driver.query("INSERT INTO schema_migrations VALUES (999, 0)");
    await driver.close();
    await expect(openStateStore({ dataDir })).rejects.toThrow(
      /has schema version 999, newer than this Impact knows/,
    );
  });

  it("belongs to one process: a second server on the same folder is refused while the first lives", async () => {
    const dataDir = makeTempDir();
    const other = spawn("sleep", ["30"]);
    try {
      writeFileSync(join(dataDir, "state.owner"), `${other.pid}\n`);
      await expect(openStateStore({ dataDir })).rejects.toThrow(
        `the data folder ${dataDir} is in use by process ${other.pid} (another impact serve)`,
      );
    } finally {
      other.kill("SIGKILL");
    }
    await new Promise((resolve) => other.once("exit", resolve));
    // Its owner died: the folder is taken over.
    const store = await openStateStore({ dataDir });
    await store.close();
  });
});
