import { accessSync, constants, readdirSync, readFileSync, statfsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { sep } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import LongestFirstSequencer from "./test/sequencer.js";

/** Where the test files live (the layout is CONTRIBUTING's "Tests" and test/repo/layout.test.ts). */
const TEST_FILES = readdirSync(fileURLToPath(new URL("test", import.meta.url)), {
  recursive: true,
  encoding: "utf8",
})
  .filter((name) => name.endsWith(".test.ts"))
  .map((name) => `test/${name.split(sep).join("/")}`)
  .sort();

/**
 * The folders whose every file is slow: test/e2e/ (the tests that start real processes: the
 * built CLI, and so the package build of test/global-setup.ts; `impact serve`; a browser; Bun;
 * a packed install) and test/hostile/ (the security suites, each driving whole commands with
 * hostile input).
 */
const SLOW_FOLDERS = ["test/e2e/", "test/hostile/"];

/**
 * The slow files elsewhere: in process, but each test a whole chain over HTTP or a database
 * (`impact run` against the scripted model, the PR bot and its GitHub App, the state store)
 * or a large generated input run through reference parsers. `npm run test:unit` (the `unit`
 * project) leaves out these and the slow folders for a fast inner loop; `npm test` and CI run
 * both projects.
 */
const NAMED_SLOW_TESTS = [
  "test/backend/github-app.test.ts",
  "test/backend/router-e2e.test.ts", // `impact run --router` through the router over HTTP
  "test/backend/store/state-store.test.ts",
  "test/backend/webhook.test.ts",
  // Each test edits the audit of an `impact run` against the scripted model (edit-audit.ts).
  "test/cli/audit/apply-subset.test.ts",
  "test/cli/commands/merge-shard.test.ts",
  "test/cli/commands/run.test.ts",
  // `impact run` against the scripted model in every test (vale: with a stand-in vale process).
  // A file that mixes whole command runs with quick tests keeps the runs apart in a
  // NAME.run.test.ts beside it, listed here (init and backtest: `impact init` and `impact plan
  // --backtest` replay a plan of every commit of the history).
  "test/cli/commands/apply.run.test.ts",
  "test/cli/commands/init.run.test.ts",
  "test/cli/plan/backtest.run.test.ts",
  "test/cli/plan/detect/new-articles.run.test.ts",
  "test/cli/plan/versioned-docs.run.test.ts",
  "test/cli/run/instructions.test.ts",
  "test/cli/run/result-cache.test.ts",
  "test/cli/run/run-impact-sweeps.test.ts",
  "test/cli/run/setup-failures.test.ts",
  "test/cli/run/vale.test.ts",
  "test/examples/demo.test.ts",
  "test/shared/model/cost.run.test.ts",
  "test/shared/model/preflight.test.ts",
  // The reference parsers run as processes (docutils) over hundreds of generated documents.
  "test/shared/formats/format-outlines.test.ts",
];

for (const file of NAMED_SLOW_TESTS) {
  if (!TEST_FILES.includes(file))
    throw new Error(`vitest.config.ts names ${file} as slow; there is no such file`);
}

/**
 * Every file that starts the built package is slow too, wherever it is: only the slow project
 * builds it, so a unit file asking for it would get no path.
 */
const SLOW_TESTS = TEST_FILES.filter(
  (file) =>
    SLOW_FOLDERS.some((folder) => file.startsWith(folder)) ||
    NAMED_SLOW_TESTS.includes(file) ||
    readFileSync(new URL(file, import.meta.url), "utf8").includes('inject("builtPackage")'),
);

/**
 * Where the tests make their temp dirs (every test repository, workspace and cache): a
 * memory-backed folder (Linux's /dev/shm) when TMPDIR is not set and that folder is a
 * tmpfs that runs programs (no noexec: tests run scripts from their temp dirs) with 2 GB
 * free. Creating and removing the suite's thousands of small files and folders there costs
 * far less kernel time than on a journaled disk (on ext4: test:unit's system CPU 22.7 s, its
 * user+sys 70 s; on /dev/shm 15.6 s and 54 s, same load). The files behave alike for
 * what the tests check (renames, links, modes); a set TMPDIR is kept.
 */
function memoryTempDir(): string | undefined {
  if (process.env.TMPDIR || process.platform !== "linux") return undefined;
  try {
    const mount = readFileSync("/proc/mounts", "utf8")
      .split("\n")
      .map((line) => line.split(" "))
      .findLast((fields) => fields[1] === "/dev/shm");
    if (mount?.[2] !== "tmpfs" || mount[3]?.split(",").includes("noexec")) return undefined;
    accessSync("/dev/shm", constants.W_OK);
    const space = statfsSync("/dev/shm");
    return space.bavail * space.bsize >= 2 * 1024 ** 3 ? "/dev/shm" : undefined;
  } catch {
    return undefined;
  }
}
const TEMP_DIR = memoryTempDir();

export default defineConfig({
  test: {
    exclude: ["node_modules", "dist"],
    ...(TEMP_DIR ? { env: { TMPDIR: TEMP_DIR } } : {}),
    reporters: ["default", "./test/summary-reporter.ts"],
    // One worker more than cores: many tests wait on the git and CLI processes they start.
    maxWorkers: availableParallelism() + 1,
    // Test files in a worker share its loaded modules (TypeScript's compiler, the tree-sitter
    // grammars, the SDKs), loaded once per worker instead of once per file. Tests keep their
    // state in temp dirs and servers of their own, so nothing else is shared.
    isolate: false,
    sequence: { sequencer: LongestFirstSequencer },
    // Limits that catch a hang, not speed checks: on a machine busy with several suites at
    // once a test of a few seconds took over 30.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: ["node_modules", "dist", ...SLOW_TESTS],
        },
      },
      // Only slow files start the built package: the unit project starts without a build.
      {
        extends: true,
        test: { name: "slow", include: SLOW_TESTS, globalSetup: ["test/global-setup.ts"] },
      },
    ],
  },
});
