import { describe, expect, it } from "vitest";
import { main } from "../../../cli/main.js";
import { fixScript, portRepo } from "../../helpers/audit-fixture.js";
import { gitCallsOf } from "../../helpers/git-calls.js";
import { captureIo } from "../../helpers/io.js";
import { runWithScript } from "../../helpers/run-impact.js";

/**
 * Each git process costs a run about 20 ms of CPU, and the test suite runs hundreds of plans.
 * These caps only go down: a change that needs another process says so here. The fifth is
 * the code-side rarity check (`cli/plan/boilerplate-names.ts`: one `git grep` at the base for
 * the change's candidate names, run while the articles are read).
 */
const PLAN_GIT_PROCESSES = 5;
const RUN_GIT_PROCESSES = 5;

describe("git processes per command", () => {
  it(`impact plan starts at most ${PLAN_GIT_PROCESSES}`, async () => {
    const repo = portRepo(["alpha", "beta"]);
    const calls = await gitCallsOf(async () => expect(await main(["plan"], captureIo(repo.dir))).toBe(0));
    expect(calls.length, calls.join("\n")).toBeLessThanOrEqual(PLAN_GIT_PROCESSES);
    // The change is read once: one diff, one batch of blobs.
    expect(calls.filter((call) => / diff /.test(call))).toHaveLength(1);
  });

  it("impact plan beside its .impact/ caches lists the working tree once: the tracked-file check reads the article listing", async () => {
    const repo = portRepo(["alpha", "beta"]);
    expect(await main(["plan"], captureIo(repo.dir))).toBe(0);
    const calls = await gitCallsOf(async () => expect(await main(["plan"], captureIo(repo.dir))).toBe(0));
    expect(calls.length, calls.join("\n")).toBeLessThanOrEqual(PLAN_GIT_PROCESSES);
    expect(calls.filter((call) => / ls-files /.test(call))).toHaveLength(1);
  });

  it("impact plan --head REV resolves it through the object reader and lists its tree once, reading the articles by the listing's blobs", async () => {
    const repo = portRepo(["alpha", "beta"]);
    const head = repo.git("rev-parse", "HEAD");
    repo.commit({ "src/other.ts": "export const OTHER = 1;\n" });
    const io = captureIo(repo.dir);
    const calls = await gitCallsOf(async () =>
      expect(await main(["plan", "--base", `${head}~1`, "--head", head, "--json"], io)).toBe(0),
    );
    expect(
      calls.filter((call) => / ls-tree /.test(call)),
      calls.join("\n"),
    ).toHaveLength(1);
    expect(
      calls.filter((call) => / rev-parse /.test(call)),
      calls.join("\n"),
    ).toEqual([]);
    // The articles were read: both still quote the old port.
    expect(
      JSON.parse(io.out)
        .articles.map((article: { path: string }) => article.path)
        .sort(),
    ).toEqual(["docs/alpha.md", "docs/beta.md"]);
  });

  it(`impact run starts at most ${RUN_GIT_PROCESSES}`, async () => {
    const repo = portRepo(["alpha", "beta"]);
    const calls = await gitCallsOf(async () =>
      expect((await runWithScript(repo.dir, fixScript(["alpha", "beta"]))).code).toBe(0),
    );
    expect(calls.length, calls.join("\n")).toBeLessThanOrEqual(RUN_GIT_PROCESSES);
    // The agents' workspace lists the files by the plan's listing of the working tree.
    expect(
      calls.filter((call) => / ls-files /.test(call)),
      calls.join("\n"),
    ).toHaveLength(1);
  });
});
