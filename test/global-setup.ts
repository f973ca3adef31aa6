import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
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
 * The build emits what `tsc -p tsconfig.build.json` and .ci/bundle.mjs emit (the same compiler and options)
 * without type-checking: `npm test` type-checks the whole tree before vitest starts, and
 * checking it again here cost more than the rest of the build. Each run builds afresh into
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
  buildWithoutTypeCheck(root, outDir);
  // The second half of `npm run build`: cli/bin.js then starts the bundle, as the package does.
  execFileSync(process.execPath, [join(root, ".ci", "bundle.mjs"), outDir], { stdio: "pipe" });
  if (!existsSync(join(outDir, "cli", "bin.js"))) throw new Error("the package did not build for the tests");
  project.provide("builtPackage", outDir);
  return () => rmSync(outDir, { recursive: true, force: true });
}

function buildWithoutTypeCheck(root: string, outDir: string): void {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.build.json"),
    { outDir },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error("tsconfig.build.json could not be read");
  // Each file compiles on its own (isolatedModules, verbatimModuleSyntax), so neither the
  // standard library nor the dependencies' declarations need to be read to emit it.
  const options = { ...config.options, noCheck: true, noResolve: true, noLib: true, types: [] };
  const program = ts.createProgram(withRelativeImports(config.fileNames), options);
  const problems = [...program.getSyntacticDiagnostics(), ...program.emit().diagnostics];
  if (problems.length > 0) {
    const host = {
      getCanonicalFileName: (name: string) => name,
      getCurrentDirectory: () => root,
      getNewLine: () => "\n",
    };
    throw new Error(`the package did not build for the tests:\n${ts.formatDiagnostics(problems, host)}`);
  }
}

/** The files plus every source they import by relative path (bench/ uses test/helpers/, say). */
function withRelativeImports(fileNames: readonly string[]): string[] {
  const files = new Set(fileNames.map((name) => resolve(name)));
  for (const file of files) {
    for (const { fileName } of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) {
      if (!fileName.startsWith(".")) continue;
      const source = resolve(dirname(file), fileName).replace(/\.js$/, ".ts");
      if (source.endsWith(".ts") && existsSync(source)) files.add(source);
    }
  }
  return [...files];
}
