import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, inject, it, onTestFinished } from "vitest";
// @ts-expect-error: a plain ESM script without type declarations (it runs without a build step).
import { buildDemoRepository } from "../../examples/demo/demo.mjs";
import { readAuditAt } from "../helpers/audit-fixture.js";
import { makeTempDir } from "../helpers/git-repo.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const REPLAY = join(ROOT, "examples/demo/replay.json");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** npm without the network: everything comes from the cache `npm ci` filled. */
function npm(args: string[], cwd: string): string {
  return execFileSync(NPM, [...args, "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Where runtime installs are kept between runs (see runtimeInstall). */
const INSTALLS = join(ROOT, "node_modules", ".cache", "impact-package-install");

/**
 * The package's runtime dependencies as `npm ci --omit=dev` installs them from the lock file:
 * a node_modules folder in node_modules/.cache, keyed by everything that decides what npm
 * puts there (the lock file, package.json, Node's version). The first run with a key
 * installs (about 11 s of CPU and 135 MB on disk); later runs reuse it, as the type check
 * keeps what it learned. A fresh clone (CI) always installs. Installs of other keys are
 * removed, so one is kept. The package's own code finds its dependencies only there (a
 * devDependency it imported would be missing); what those packages need in turn is npm's
 * part, decided by the lock file.
 */
function runtimeInstall(): string {
  const key = createHash("sha256")
    .update(readFileSync(join(ROOT, "package-lock.json")))
    .update(readFileSync(join(ROOT, "package.json")))
    .update(process.version)
    .digest("hex")
    .slice(0, 16);
  const done = join(INSTALLS, key);
  mkdirSync(INSTALLS, { recursive: true });
  for (const entry of readdirSync(INSTALLS)) {
    const path = join(INSTALLS, entry);
    // Another key's install, or one half made ("<key>.<random>") by a run killed an hour ago;
    // not one a run beside this one is making.
    const stale = !entry.startsWith(`${key}.`) || Date.now() - statSync(path).mtimeMs > 60 * 60 * 1000;
    if (entry !== key && stale) rmSync(path, { recursive: true, force: true });
  }
  if (existsSync(join(done, "node_modules"))) return join(done, "node_modules");
  // Installed beside the final folder, then renamed: a run killed halfway leaves no install
  // a later run would take for whole, and two runs at once each install and one rename wins.
  const staging = mkdtempSync(`${done}.`);
  try {
    for (const name of ["package.json", "package-lock.json"]) cpSync(join(ROOT, name), join(staging, name));
    npm(["ci", "--omit=dev"], staging);
    try {
      renameSync(staging, done);
    } catch (error) {
      if (!existsSync(join(done, "node_modules"))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return join(done, "node_modules");
}

/** The package as `npm pack` sees it after `npm run build`: the repository's files with the build in dist/. */
function stagePackage(): string {
  const stage = makeTempDir("impact-stage-");
  for (const name of ["package.json", "README.md", "LICENSE", "CHANGELOG.md", "prompts", "schema"]) {
    if (existsSync(join(ROOT, name))) cpSync(join(ROOT, name), join(stage, name), { recursive: true });
  }
  cpSync(inject("builtPackage"), join(stage, "dist"), { recursive: true });
  return stage;
}

describe("the npm package", () => {
  it("packs only runtime files, installs with runtime dependencies only, and runs from a prefix", () => {
    // Removed with a longer time limit than makeTempDir's: an installed node_modules is large.
    const work = mkdtempSync(join(tmpdir(), "impact-pack-"));
    onTestFinished(() => rmSync(work, { recursive: true, force: true }), 120_000);
    npm(["pack", "--pack-destination", work], stagePackage());
    const tarball = join(work, `impact-docs-${VERSION}.tgz`);
    const files = execFileSync("tar", ["tzf", tarball], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map((line) => line.replace(/^package\//, ""));
    expect(files).toContain("dist/cli/bin.js");
    expect(files.filter((file) => /^dist\/bundle\/impact-\w+\.cjs$/.test(file))).toHaveLength(1);
    expect(files).toContain("dist/bundle/worker.js");
    expect(files).toContain("prompts/system.md");
    expect(files).toContain("LICENSE");
    expect(files.filter((file) => /^dist\/(test|bench)\/|\.map$|\.cache$|tsbuildinfo/.test(file))).toEqual(
      [],
    );

    // A global install, offline: the tarball's contents with the locked runtime dependencies
    // (npm ci --omit=dev, kept between runs).
    const unpacked = join(work, "package");
    mkdirSync(unpacked);
    execFileSync("tar", ["xzf", tarball, "-C", unpacked, "--strip-components=1"]);
    symlinkSync(runtimeInstall(), join(unpacked, "node_modules"), "dir");
    const installed = readdirSync(join(unpacked, "node_modules"));
    for (const devOnly of [
      "vitest",
      "bun",
      "@biomejs",
      "fast-check",
      "mdast-util-from-markdown",
      "typescript-native",
    ]) {
      expect(installed).not.toContain(devOnly);
    }
    const prefix = join(work, "prefix");
    npm(["install", "--global", "--prefix", prefix, unpacked], work);
    const bin = join(prefix, process.platform === "win32" ? "impact.cmd" : "bin/impact");

    const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };
    const version = spawnSync(bin, ["--version"], { encoding: "utf8", env });
    expect(version.stdout).toBe(`${VERSION}\n`);

    const demo = buildDemoRepository(makeTempDir("impact-pack-demo-"));
    const plan = spawnSync(bin, ["plan", "--json"], { cwd: demo, encoding: "utf8", env });
    expect(plan.stderr).toBe("");
    expect(plan.status).toBe(0);
    expect(JSON.parse(plan.stdout).articles).toHaveLength(3);

    expectReplayedDemoRun(bin, demo, env);
  }, 300_000);
});

describe("the single executable", () => {
  it("npm run build:binary makes one file that runs plan and a replayed run on the demo", () => {
    const work = makeTempDir("impact-binary-");
    const binary = join(work, "impact");
    execFileSync(process.execPath, [join(ROOT, ".ci/build-binary.mjs"), binary], { stdio: "pipe" });
    const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };
    const demo = buildDemoRepository(makeTempDir("impact-binary-demo-"));
    expect(spawnSync(binary, ["--version"], { encoding: "utf8", env }).stdout).toBe(`${VERSION}\n`);
    const plan = spawnSync(binary, ["plan", "--json"], { cwd: demo, encoding: "utf8", env });
    expect(plan.stderr).toBe("");
    expect(JSON.parse(plan.stdout).articles).toHaveLength(3);
    expectReplayedDemoRun(binary, demo, env);
  }, 300_000);
});

/** A replayed `impact run` on the demo through `command`: two articles updated, one unchanged. */
function expectReplayedDemoRun(command: string, demo: string, env: NodeJS.ProcessEnv): void {
  const run = spawnSync(command, ["run", "--model", `replay:${REPLAY}`, "--quiet"], {
    cwd: demo,
    encoding: "utf8",
    env,
  });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  const audit = readAuditAt(join(demo, ".impact/audit.json"));
  expect(audit.totals).toMatchObject({ articles: 3, updated: 2, unchanged: 1, failed: 0 });
}
