import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import LongestFirstSequencer from "./test/sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["node_modules", "dist"],
    globalSetup: ["test/global-setup.ts"],
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
  },
});
