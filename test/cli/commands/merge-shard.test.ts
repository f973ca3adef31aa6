import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../../cli/main.js";
import type { Audit } from "../../../shared/audit.js";
import { captureIo, fixScript, portRepo, readAuditAt } from "../../helpers/audit-fixture.js";
import { startScriptedModelServer } from "../../helpers/scripted-model-server.js";

const KEY = "sk-test-not-a-real-key-shards";
const NAMES = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"];

/** An audit without what differs between any two runs (ids, times, durations). */
function stable(audit: Audit) {
  return {
    base: audit.base,
    head: audit.head,
    model: audit.model,
    articles: audit.articles
      // Durations and the scripted server's call ids depend on the run, not on the article.
      .map(({ durationMs: _duration, ...article }) => ({
        ...article,
        edits: article.edits.map(({ toolCallId: _id, ...edit }) => edit),
      }))
      .sort((a, b) => a.path.localeCompare(b.path)),
    totals: { ...audit.totals, durationMs: 0 },
  };
}

describe("impact run --shard, then impact merge", () => {
  it("N shards merged equal one unsharded run, and the merged patch applies", async () => {
    const repo = portRepo(NAMES);
    const runOnce = async (out: string, extra: string[]) => {
      const server = await startScriptedModelServer(fixScript(NAMES));
      const io = captureIo(repo.dir, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.url, IMPACT_MODEL: "m" });
      const code = await main(
        ["run", "--no-cache", "--out", `${out}.json`, "--patch", `${out}.patch`, ...extra],
        io,
      );
      await server.close();
      expect(io.err).toBe("");
      expect(code).toBe(0);
      return readAuditAt(join(repo.dir, `${out}.json`));
    };
    const whole = await runOnce("whole", []);
    expect(whole.totals.updated).toBe(NAMES.length);

    const count = 3;
    const shards: Audit[] = [];
    for (let index = 1; index <= count; index++)
      shards.push(await runOnce(`shard-${index}`, ["--shard", `${index}/${count}`]));
    expect(shards.map((shard) => shard.shard)).toEqual([1, 2, 3].map((index) => ({ index, count })));
    expect(shards.reduce((sum, shard) => sum + shard.articles.length, 0)).toBe(NAMES.length);

    const io = captureIo(repo.dir, {});
    const code = await main(
      [
        "merge",
        "shard-3.json",
        "shard-1.json",
        "shard-2.json",
        "--out",
        "merged.json",
        "--patch",
        "merged.patch",
      ],
      io,
    );
    expect(code).toBe(0);
    const merged = readAuditAt(join(repo.dir, "merged.json"));
    expect(stable(merged)).toEqual(stable(whole));
    expect(merged.shard).toBeUndefined();

    // The merged patch applies to the base tree like the whole run's.
    const patch = readFileSync(join(repo.dir, "merged.patch"), "utf8");
    expect(
      patch
        .split("\n")
        .filter((line) => line.startsWith("+++ "))
        .sort(),
    ).toEqual(NAMES.map((name) => `+++ b/docs/${name}.md`).sort());
    repo.git("checkout", "-q", "HEAD~1");
    execFileSync("git", ["apply", "--check", join(repo.dir, "merged.patch")], { cwd: repo.dir });
  });
});
