import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../../cli/main.js";
import { BacktestReportSchema } from "../../../cli/plan/backtest.js";
import { coChanges, HISTORY_CACHE, historyReasons, mineHistory } from "../../../cli/plan/history.js";
import { Workdir } from "../../../cli/workdir/workdir.js";
import { HISTORY_MAX_FILES_PER_COMMIT } from "../../../shared/limits.js";
import { ImpactPlanSchema } from "../../../shared/plan.js";
import { gitRepo, makeTempDir } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";
import { cacheEntryPath, readCachePayload } from "../../helpers/state.js";

/** The guide never names the engine, but the two have changed together three times (the first commit is an import). */
function coupledRepo() {
  const repo = gitRepo({
    "src/engine.ts": "export function speed() {\n  return 1;\n}\n",
    "src/other.ts": "export const other = 1;\n",
    "docs/guide.md": "# Guide\n\nHow fast it goes.\n",
    "docs/other.md": "# Other\n\nUnrelated.\n",
  });
  for (const step of [2, 3, 4]) {
    repo.commit(
      {
        "src/engine.ts": `export function speed() {\n  return ${step};\n}\n`,
        "docs/guide.md": `# Guide\n\nHow fast it goes: ${step}.\n`,
      },
      `speed ${step}`,
    );
  }
  repo.commit({ "src/other.ts": "export const other = 2;\n" }, "other alone");
  return repo;
}

async function planJson(dir: string, ...args: string[]) {
  const io = captureIo(dir);
  expect(await main(["plan", "--json", ...args], io)).toBe(0);
  return { plan: ImpactPlanSchema.parse(JSON.parse(io.out)), io };
}

describe("history coupling", () => {
  it("lists an article that changed together with the code as related, never flagged, with its evidence and score", async () => {
    const repo = coupledRepo();
    repo.commit({ "src/engine.ts": "export function speed() {\n  return 9;\n}\n" }, "code only");
    const { plan } = await planJson(repo.dir);
    // History is relevance: the guide writes nothing the change made false.
    expect(plan.articles).toEqual([]);
    expect(plan.related).toEqual([
      {
        path: "docs/guide.md",
        status: "impacted",
        tier: "related",
        impact: [
          {
            kind: "history",
            source: "src/engine.ts",
            detail: "changed together in 3 of 3 commits that touched src/engine.ts",
            score: 0.66,
          },
        ],
        files: ["src/engine.ts"],
        score: 0.66,
      },
    ]);
    // The history is cached by base sha, inside the self-ignoring .impact/ folder.
    const base = repo.git("rev-parse", "HEAD~1");
    expect(existsSync(cacheEntryPath(repo.dir, "history", `${base}.json`))).toBe(true);
    expect(repo.git("status", "--porcelain")).toBe("");
  }, 120_000);

  it("needs three co-changes, and counts an article's co-changes with further changed files at half their score", async () => {
    const repo = coupledRepo();
    // The motor changed with the guide once, in a commit of its own: no support yet.
    repo.commit(
      {
        "src/motor.ts": "export function torque() {\n  return 2;\n}\n",
        "docs/guide.md": "# Guide\n\nHow fast it goes: 5.\n",
      },
      "torque 2",
    );
    repo.commit(
      {
        "src/engine.ts": "export function speed() {\n  return 9;\n}\n",
        "src/motor.ts": "export function torque() {\n  return 9;\n}\n",
      },
      "code only",
    );
    const once = (await planJson(repo.dir)).plan;
    expect(once.related.map((article) => article.impact.map((reason) => reason.source))).toEqual([
      ["src/engine.ts"],
    ]);
    // Two more co-changes of the motor with the guide make three.
    for (const step of [3, 4])
      repo.commit(
        {
          "src/motor.ts": `export function torque() {\n  return ${step};\n}\n`,
          "docs/guide.md": `# Guide\n\nHow fast it goes: ${step + 3}.\n`,
        },
        `torque ${step}`,
      );
    repo.commit(
      {
        "src/engine.ts": "export function speed() {\n  return 10;\n}\n",
        "src/motor.ts": "export function torque() {\n  return 10;\n}\n",
      },
      "code only again",
    );
    const { plan } = await planJson(repo.dir);
    // engine: 3 of 4, √(3/8); motor: 3 of 4 too, at half: 1 - (1 - 0.61) × (1 - 0.61 / 2).
    expect(plan.related.map((article) => [article.path, article.score])).toEqual([["docs/guide.md", 0.73]]);
    expect(plan.related[0]?.impact.map((reason) => [reason.source, reason.score])).toEqual([
      ["src/engine.ts", 0.61],
      ["src/motor.ts", 0.61],
    ]);
  }, 120_000);

  it("still adds a history reason to a reason of another kind", async () => {
    const repo = coupledRepo();
    repo.commit({ "docs/guide.md": "# Guide\n\nHow fast it goes: `speed`.\n" }, "quote speed");
    // A new parameter: the signature the guide quotes changed, and the file's surface with it.
    repo.commit({ "src/engine.ts": "export function speed(unit: string) {\n  return 9;\n}\n" }, "code only");
    const { plan } = await planJson(repo.dir);
    // The guide quotes the function whose signature changed: stale. Three co-changes in
    // three make the history a mapping, stale too now that the file's surface changed.
    const guide = plan.articles.find((article) => article.path === "docs/guide.md");
    expect(guide?.tier).toBe("stale");
    expect(guide?.impact.map((reason) => [reason.kind, reason.score, reason.stale ?? false])).toEqual([
      ["history", 0.66, true],
      ["reference", 0.4, true],
    ]);
    expect(guide?.score).toBe(0.79);
  }, 120_000);

  it("reads the first commit as an import, not as a co-change of every file in it", async () => {
    const repo = gitRepo({
      "src/engine.ts": "export function speed() {\n  return 1;\n}\n",
      "docs/guide.md": "# Guide\n\nHow fast it goes.\n",
    });
    repo.commit({ "src/engine.ts": "export function speed() {\n  return 2;\n}\n" }, "code only");
    const { plan } = await planJson(repo.dir);
    expect(plan.articles).toEqual([]);
  }, 120_000);

  it("never reads past the base: later co-changes are not evidence", async () => {
    const repo = gitRepo({
      "src/engine.ts": "export function speed() {\n  return 1;\n}\n",
      "docs/guide.md": "# Guide\n\nHow fast it goes.\n",
    });
    const base = repo.commit(
      { "src/engine.ts": "export function speed() {\n  return 2;\n}\n" },
      "before the change",
    );
    const head = repo.commit(
      { "src/engine.ts": "export function speed() {\n  return 3;\n}\n" },
      "the change",
    );
    // The future: the two change together again and again after the change under review.
    for (const step of [4, 5, 6, 7]) {
      repo.commit(
        {
          "src/engine.ts": `export function speed() {\n  return ${step};\n}\n`,
          "docs/guide.md": `# Guide\n\n${step}.\n`,
        },
        `future ${step}`,
      );
    }
    const history = await mineHistory(repo.dir, base);
    expect(history.commits.map((commit) => commit.sha)).toEqual(
      repo.git("rev-list", "--no-merges", base).split("\n"),
    );
    const { plan } = await planJson(repo.dir, "--base", base, "--head", head);
    expect(plan.articles).toEqual([]);
    // Once those commits are in the past, the same kind of change does flag the guide.
    repo.commit({ "src/engine.ts": "export function speed() {\n  return 8;\n}\n" }, "after the future");
    const { plan: later } = await planJson(repo.dir);
    expect(later.related.map((article) => [article.path, article.impact[0]?.kind])).toEqual([
      ["docs/guide.md", "history"],
    ]);
  }, 120_000);

  it("takes no evidence from a path the article names but never changed with", async () => {
    // The contributing guide points at the engine's file; the engine changed three times
    // without it. The tuning page names the file and the constant; the streams page names
    // the file too, and changed with it once before.
    const repo = gitRepo({
      "src/engine.ts": "export const engineSpeed = 1;\n",
      "docs/contributing.md": "# Contributing\n\nThe engine lives in [src/engine.ts](../src/engine.ts).\n",
      "docs/tuning.md": "# Tuning\n\nSet `engineSpeed` in src/engine.ts.\n",
      "docs/streams.md": "# Streams\n\nSource code: src/engine.ts\n",
    });
    repo.commit(
      {
        "src/engine.ts": "export const engineSpeed = 2;\n",
        "docs/streams.md": "# Streams\n\nSource code: src/engine.ts (fast)\n",
      },
      "speed 2",
    );
    for (const step of [3, 4])
      repo.commit({ "src/engine.ts": `export const engineSpeed = ${step};\n` }, `speed ${step}`);
    repo.commit({ "src/engine.ts": "export const engineSpeed = 5;\n" }, "the change");
    const { plan } = await planJson(repo.dir, "--min-score", "0");
    // streams: the path (relevance: the file is still there), 1 of 3 commits together being
    // no support; contributing: the path, 0 of 3; tuning: the constant's value changed
    // (stale), its path does not count.
    expect(
      plan.articles.map((article) => [article.path, article.impact.map((reason) => reason.detail)]),
    ).toEqual([["docs/tuning.md", ["mentions engineSpeed (constant, changed)"]]]);
    expect(
      plan.related.map((article) => [article.path, article.impact.map((reason) => reason.detail)]),
    ).toEqual([["docs/streams.md", ["mentions the path src/engine.ts (modified)"]]]);
    const io = captureIo(repo.dir);
    expect(await main(["plan", "--explain", "docs/contributing.md"], io)).toBe(0);
    expect(io.out).toContain(
      "names the path without describing the file: src/engine.ts changed in 3 commits before, the article with it in 0",
    );
    // Without history (a --diff with no base), the path is evidence as before.
    const diff = repo.git("diff", "HEAD~1", "HEAD");
    const diffFile = join(makeTempDir(), "change.diff");
    writeFileSync(diffFile, diff);
    const { plan: fromDiff } = await planJson(repo.dir, "--diff", diffFile, "--min-score", "0");
    expect(
      fromDiff.articles.map((article) => [article.path, article.impact.map((reason) => reason.detail)]),
    ).toEqual([
      [
        "docs/tuning.md",
        ["mentions the path src/engine.ts (modified)", "mentions engineSpeed (constant, changed)"],
      ],
    ]);
    expect(fromDiff.related.map((article) => [article.path, article.impact[0]?.detail])).toEqual([
      ["docs/contributing.md", "mentions the path src/engine.ts (modified)"],
      ["docs/streams.md", "mentions the path src/engine.ts (modified)"],
    ]);
  }, 120_000);

  it("keeps a bare root name the history never saw with the article (it is weak evidence already)", async () => {
    // engine.ts sits at the root: named in the article, it changed three times without it.
    const repo = gitRepo({
      "engine.ts": "export function speed() {\n  return 1;\n}\n",
      "docs/contributing.md": "# Contributing\n\nThe engine lives in engine.ts.\n",
    });
    for (const step of [2, 3, 4])
      repo.commit({ "engine.ts": `export function speed() {\n  return ${step};\n}\n` }, `speed ${step}`);
    repo.commit({ "engine.ts": "export function speed() {\n  return 5;\n}\n" }, "the change");
    const { plan } = await planJson(repo.dir, "--min-score", "0");
    expect(plan.related.map((article) => [article.path, article.impact[0]?.detail])).toEqual([
      ["docs/contributing.md", "mentions the path engine.ts (modified)"],
    ]);
  }, 120_000);

  it("keeps a path the history has too few commits to judge", async () => {
    const repo = gitRepo({
      "src/engine.ts": "export function speed() {\n  return 1;\n}\n",
      "docs/contributing.md": "# Contributing\n\nThe engine lives in src/engine.ts.\n",
    });
    repo.commit({ "src/engine.ts": "export function speed() {\n  return 2;\n}\n" }, "speed 2");
    repo.commit({ "src/engine.ts": "export function speed() {\n  return 3;\n}\n" }, "the change");
    // One earlier commit touched the file (the first commit is an import): too few to disown it.
    const { plan } = await planJson(repo.dir, "--min-score", "0");
    expect(plan.related.map((article) => article.path)).toEqual(["docs/contributing.md"]);
  }, 120_000);

  it("is bounded in commits and caches only complete scans", async () => {
    const repo = coupledRepo();
    const head = repo.git("rev-parse", "HEAD");
    const workdir = new Workdir(repo.dir, { env: {} });
    await workdir.save();
    const cache = await workdir.cache(HISTORY_CACHE);
    const bounded = await mineHistory(repo.dir, head, { maxCommits: 2, cache });
    expect(bounded.commits).toHaveLength(2);
    expect(bounded.truncated).toBe("commits");
    const cached = JSON.parse(
      readCachePayload(cacheEntryPath(repo.dir, "history", `${head}.json`)).toString(),
    );
    expect(cached.maxCommits).toBe(2);
    // A different bound is a different scan, not the cached one.
    expect((await mineHistory(repo.dir, head, { cache })).commits).toHaveLength(5);
  }, 120_000);

  it("takes no evidence from sweeps, weak confidence or thin support; three co-changes count, smoothed", () => {
    const articles = new Set(["docs/a.md", "docs/b.md"]);
    const sweep = Array.from({ length: HISTORY_MAX_FILES_PER_COMMIT }, (_, index) => `src/f${index}.ts`);
    const alone = Array.from({ length: 20 }, (_, index) => ({ sha: `x${index}`, files: ["src/x.ts"] }));
    const commits = [
      { sha: "1", files: ["src/x.ts", "docs/a.md", ...sweep] },
      { sha: "2", files: ["src/x.ts", "docs/a.md", ...sweep] },
      { sha: "3", files: ["src/x.ts", "docs/b.md"] },
      ...alone,
    ];
    // docs/b.md changed in 1 of the 21 commits that touched src/x.ts: under the confidence bound.
    expect(historyReasons(coChanges({ commits, changedFiles: [{ path: "src/x.ts" }], articles }))).toEqual(
      new Map(),
    );
    const once = historyReasons(
      coChanges({
        commits: [{ sha: "1", files: ["src/y.ts", "docs/b.md"] }],
        changedFiles: [{ path: "src/y.ts" }],
        articles,
      }),
    );
    // One co-change of a file changed once is no coupling yet ("1 of 1").
    expect(once).toEqual(new Map());
    const thrice = historyReasons(
      coChanges({
        commits: ["1", "2", "3"].map((sha) => ({ sha, files: ["src/y.ts", "docs/b.md"] })),
        changedFiles: [{ path: "src/y.ts" }],
        articles,
      }),
    );
    // Three of three, smoothed by four commits more: √(3 / 7), to three decimals.
    expect(thrice.get("docs/b.md")?.map((reason) => [reason.detail, reason.score])).toEqual([
      [
        "changed together in 3 of 3 commits that touched src/y.ts",
        Math.round(Math.sqrt(3 / 7) * 1000) / 1000,
      ],
    ]);
    const renamed = historyReasons(
      coChanges({
        commits: ["1", "2", "3"].map((sha) => ({ sha, files: ["src/old.ts", "docs/a.md"] })),
        changedFiles: [{ path: "src/new.ts", oldPath: "src/old.ts" }],
        articles,
      }),
    );
    expect(renamed.get("docs/a.md")?.map((reason) => [reason.source, reason.detail])).toEqual([
      ["src/new.ts", "changed together in 3 of 3 commits that touched src/new.ts"],
    ]);
  }, 120_000);

  it("keeps the history of an article whose path is not ASCII (git log quotes such paths by default)", async () => {
    const repo = gitRepo({
      "src/engine.ts": "export const speed = 1;\n",
      "docs/café.md": "# Café\n\nHow fast it goes.\n",
      "docs/cafe.md": "# Cafe\n\nHow fast it goes.\n",
    });
    for (const step of [2, 3, 4]) {
      repo.commit(
        {
          "src/engine.ts": `export const speed = ${step};\n`,
          "docs/café.md": `# Café\n\nHow fast it goes: ${step}.\n`,
          "docs/cafe.md": `# Cafe\n\nHow fast it goes: ${step}.\n`,
        },
        `speed ${step}`,
      );
    }
    repo.commit({ "src/engine.ts": "export const speed = 9;\n" }, "code only");
    const { plan } = await planJson(repo.dir, "--min-score", "0");
    const reasons = (path: string) =>
      [...plan.articles, ...(plan.related ?? [])]
        .find((article) => article.path === path)
        ?.impact.map((reason) => reason.detail);
    expect(reasons("docs/cafe.md")).toEqual([
      "changed together in 3 of 3 commits that touched src/engine.ts",
    ]);
    expect(reasons("docs/café.md")).toEqual(reasons("docs/cafe.md"));
  }, 120_000);

  it("a git log that fails is exit 2 with a line saying what to do, not a bug", async () => {
    const repo = coupledRepo();
    const root = repo.git("rev-list", "--max-parents=0", "HEAD");
    repo.commit({ "src/engine.ts": "export const speed = 9;\n" }, "code only");
    // The first commit's object is gone: the change itself still reads, its history does not.
    rmSync(join(repo.dir, ".git", "objects", root.slice(0, 2), root.slice(2)));
    const io = captureIo(repo.dir);
    expect(await main(["plan"], io)).toBe(2);
    expect(io.err).toMatch(
      /^impact plan: git log failed: .*run git log [0-9a-f]{40} in the repository to see why/m,
    );
    expect(io.err).not.toContain("a bug");
  }, 120_000);

  it("warns once on a shallow clone, naming fetch-depth: 0", async () => {
    const origin = coupledRepo();
    origin.commit({ "src/engine.ts": "export function speed() {\n  return 9;\n}\n" }, "code only");
    const dir = join(makeTempDir("impact-shallow-"), "clone");
    origin.git("clone", "-q", "--depth", "2", `file://${origin.dir}`, dir);
    const io = captureIo(dir);
    expect(await main(["plan"], io)).toBe(0);
    const warnings = io.err.split("\n").filter((line) => line.includes("shallow"));
    expect(warnings).toEqual([
      "warning: history coupling sees only the 1 commit of this shallow clone; fetch the full history (actions/checkout with fetch-depth: 0, or git fetch --unshallow)",
    ]);
    const backtest = captureIo(dir);
    expect(await main(["plan", "--backtest", "5", "--json"], backtest)).toBe(0);
    expect(BacktestReportSchema.parse(JSON.parse(backtest.out)).shallow).toBe(true);
    const text = captureIo(dir);
    expect(await main(["plan", "--backtest", "5"], text)).toBe(0);
    expect(text.out).toContain("the clone is shallow");
    expect(text.out).toContain("fetch-depth: 0");
  }, 120_000);
});
