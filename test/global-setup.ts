import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** A compiled copy of the package (cli/bin.js inside), for tests that run the built CLI. */
    builtPackage: string;
  }
}

/**
 * Compiles the package once per test run into node_modules/.cache (incrementally, so a run
 * after a small change rebuilds in seconds). From there the built CLI finds the package's
 * prompts/ and dependencies exactly as the real build in dist/ does. Tests that start the
 * CLI as a child process, or need compiled-only parts such as the symbol worker, use it.
 */
export default function setup(project: TestProject): void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const outDir = join(root, "node_modules", ".cache", "impact-test-build");
  mkdirSync(outDir, { recursive: true });
  try {
    execFileSync(
      process.execPath,
      [
        join(root, "node_modules", "typescript", "bin", "tsc"),
        "-p",
        "tsconfig.build.json",
        "--outDir",
        outDir,
        "--incremental",
        "--tsBuildInfoFile",
        join(outDir, "build.tsbuildinfo"),
      ],
      { cwd: root, stdio: "pipe" },
    );
  } catch {
    // Type errors still emit JavaScript (npm test type-checks separately); the check below decides.
  }
  if (!existsSync(join(outDir, "cli", "bin.js"))) throw new Error("the package did not build for the tests");
  project.provide("builtPackage", outDir);
}
