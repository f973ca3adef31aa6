import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import LongestFirstSequencer from "./test/sequencer.js";

/**
 * The slow test files: those that start real processes (the built CLI, and so the package
 * build of test/global-setup.ts; `impact serve`; a browser; Bun; a packed install), and those
 * that drive a whole chain over HTTP or a database in process (`impact run` against the
 * scripted model, the PR bot and its GitHub App, the state store). `npm run test:unit` (the
 * `unit` project) leaves them out for a fast inner loop; `npm test` and CI run both projects.
 */
const NAMED_SLOW_TESTS = [
  "test/bun.test.ts",
  "test/edit-command.test.ts",
  // The reference parsers run as processes (docutils) over hundreds of generated documents.
  "test/format-outlines.test.ts",
  "test/github-app.test.ts",
  "test/hostile-resources.test.ts", // resource bombs, each run to its cap
  "test/hostile-state.test.ts", // whole runs against the scripted model, twice per machine key
  "test/html-report.test.ts",
  "test/mcp.test.ts",
  "test/package.test.ts",
  "test/pipes.test.ts",
  "test/plan-built.test.ts",
  "test/run-script.test.ts",
  "test/run.test.ts",
  "test/serve-drain.test.ts",
  "test/serve-postgres.test.ts",
  "test/serve-restart.test.ts",
  "test/signals.test.ts",
  "test/state-store.test.ts",
  "test/webhook-e2e.test.ts",
  "test/webhook.test.ts",
  "test/workflows.test.ts",
];

/**
 * Every file that starts the built package is slow too, named here or not: only the slow
 * project builds it, so a unit file asking for it would get no path.
 */
const SLOW_TESTS = [
  ...new Set([
    ...NAMED_SLOW_TESTS,
    ...readdirSync(fileURLToPath(new URL("test", import.meta.url)))
      .filter((name) => name.endsWith(".test.ts"))
      .filter((name) =>
        readFileSync(new URL(`test/${name}`, import.meta.url), "utf8").includes('inject("builtPackage")'),
      )
      .map((name) => `test/${name}`),
  ]),
];

export default defineConfig({
  test: {
    exclude: ["node_modules", "dist"],
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
