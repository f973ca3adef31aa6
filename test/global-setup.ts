import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** A compiled copy of the package (cli/bin.js inside), for tests that run the built CLI. */
    builtPackage: string;
  }
}

/** A build left behind by a run that was killed is removed by a later run after this long. */
const STALE_BUILD_MS = 24 * 60 * 60 * 1000;

/**
 * Compiles the package once per test run into node_modules/.cache/impact-test-build/<run>.
 * From there the built CLI finds the package's prompts/ and dependencies exactly as the real
 * build in dist/ does. Tests that start the CLI as a child process, or need compiled-only
 * parts such as the symbol worker, use it.
 *
 * It runs `npm run build`'s two scripts, .ci/transpile.mjs and .ci/bundle.mjs, into that
 * folder: neither type-checks (`npm test` does, beside the suite). Each run builds afresh into
 * its own folder, so a stale file can never stand in for a deleted source.
 */
export default function setup(project: TestProject): () => void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const cache = join(root, "node_modules", ".cache", "impact-test-build");
  mkdirSync(cache, { recursive: true });
  for (const entry of readdirSync(cache)) {
    const path = join(cache, entry);
    if (Date.now() - statSync(path).mtimeMs > STALE_BUILD_MS) rmSync(path, { recursive: true, force: true });
  }
  const outDir = mkdtempSync(join(cache, "run-"));
  for (const script of ["transpile.mjs", "bundle.mjs"]) {
    execFileSync(process.execPath, [join(root, ".ci", script), outDir], { stdio: "pipe" });
  }
  if (!existsSync(join(outDir, "cli", "bin.js"))) throw new Error("the package did not build for the tests");
  project.provide("builtPackage", outDir);
  return () => rmSync(outDir, { recursive: true, force: true });
}
