import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without type declarations (it runs without a build step).
import { buildDemoRepository } from "../../examples/demo/demo.mjs";
import { ImpactPlanSchema } from "../../shared/plan.js";
import { readAuditAt } from "../helpers/audit-fixture.js";
import { makeTempDir } from "../helpers/git-repo.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BUN = join(ROOT, "node_modules/.bin/bun");
const BIN = join(ROOT, "cli/bin.ts");
const REPLAY = join(ROOT, "examples/demo/replay.json");

/** Runs the CLI straight from its TypeScript sources under Bun (no build step). */
function bun(args: string[], cwd: string) {
  return spawnSync(BUN, [BIN, ...args], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
    timeout: 60_000,
  });
}

describe("the CLI on Bun, from source", () => {
  it("runs plan and a replayed run on the demo repository, offline", () => {
    expect(execFileSync(BUN, ["--version"], { encoding: "utf8" })).toMatch(/^1\./);
    const dir = buildDemoRepository(makeTempDir("impact-bun-"));

    const plan = bun(["plan", "--json"], dir);
    expect(plan.stderr).toBe("");
    expect(plan.status).toBe(0);
    const parsed = ImpactPlanSchema.parse(JSON.parse(plan.stdout));
    expect(parsed.articles.map((article) => article.path).sort()).toEqual([
      "docs/greeting.md",
      "docs/install.md",
      "docs/options.md",
    ]);

    const run = bun(["run", "--model", `replay:${REPLAY}`, "--quiet"], dir);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const audit = readAuditAt(join(dir, ".impact/audit.json"));
    expect(audit.totals).toMatchObject({ articles: 3, updated: 2, unchanged: 1, failed: 0 });
  });
});
