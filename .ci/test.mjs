#!/usr/bin/env node
// `npm test`: Biome and knip (unused files, exports and dependencies; knip.json), then the
// type check and the vitest suite side by side. The type check is
// TypeScript 7's native compiler (the dev package `typescript-native`, an npm alias of
// typescript@7): about 8 CPU-s where TypeScript 6's took about 20, with the same errors. The
// `typescript` package (6) stays a runtime dependency: the symbol extractor uses its compiler
// API, which TypeScript 7 does not offer. The check is incremental: what it learned is kept in
// node_modules/.cache, so a later run checks again only the files that changed and the files
// that depend on them (a run with nothing changed: about 3 CPU-s). Arguments go to vitest
// (`npm test -- test/x.test.ts`). The type check's report is printed after the suite's, so
// the two never interleave; any failure fails the whole.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => join(root, "node_modules", ".bin", name);

/** Runs a command in the package root; resolves with its exit code and, when captured, its output. */
function run(command, args, { capture = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      stdio: capture ? ["ignore", "pipe", "pipe"] : "inherit",
    });
    let output = "";
    if (capture) {
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
    }
    child.on("error", (error) => resolve({ code: 1, output: `${command}: ${error.message}\n` }));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

const lint = await run(bin("biome"), ["check", "--error-on-warnings", "."]);
if (lint.code !== 0) process.exit(lint.code);
// An export nobody imports, a file nobody reaches or a dependency nobody uses fails here.
const unused = await run(bin("knip"), ["--no-progress"]);
if (unused.code !== 0) process.exit(unused.code);

const buildInfo = join(root, "node_modules", ".cache", "impact-typecheck-7", "tsconfig.tsbuildinfo");
// By path: both TypeScript packages name their command `tsc`, so node_modules/.bin/tsc may be either.
const typecheck = run(
  process.execPath,
  [
    join(root, "node_modules", "typescript-native", "bin", "tsc"),
    ...["-p", "tsconfig.json", "--noEmit", "--incremental", "--tsBuildInfoFile", buildInfo],
  ],
  { capture: true },
);
const tests = await run(bin("vitest"), ["run", ...process.argv.slice(2)]);
const types = await typecheck;
if (types.code !== 0) process.stderr.write(`\nnpm run typecheck failed:\n${types.output}`);
process.exit(tests.code || types.code);
