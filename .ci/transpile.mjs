#!/usr/bin/env node
// The first half of `npm run build` (before .ci/bundle.mjs): turns each TypeScript source of
// cli/, backend/, shared/ and bench/ (and every source they import by relative path, such as
// the test helpers bench/ uses) into a JavaScript file of the same path under dist/, with its
// source map. esbuild transpiles file by file and checks no types: every file compiles on its
// own (tsconfig.json sets isolatedModules and verbatimModuleSyntax), so the output is what tsc
// emits from it. The types are checked once, by `npm run typecheck` (`npm test` runs it).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** Relative imports and re-exports: `from "./x.js"`, `import("./x.js")`, `import "./x.js"`. */
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;

function sourcesUnder(folder) {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * The sources of the folders tsconfig.build.json includes (the ones the GitHub Action's tsc
 * build compiles too) plus every source they import by relative path.
 */
function sourceFiles(root) {
  const { include } = JSON.parse(readFileSync(join(root, "tsconfig.build.json"), "utf8"));
  const files = new Set(include.flatMap((folder) => sourcesUnder(join(root, folder))));
  for (const file of files) {
    for (const [, specifier] of readFileSync(file, "utf8").matchAll(RELATIVE_IMPORT)) {
      const source = resolve(dirname(file), specifier).replace(/\.js$/, ".ts");
      if (source.endsWith(".ts") && existsSync(source)) files.add(source);
    }
  }
  return [...files];
}

/** Transpiles the sources in `root` into `outDir`, each to the same relative path. */
export async function transpile(root, outDir) {
  await build({
    absWorkingDir: root,
    entryPoints: sourceFiles(root).map((file) => relative(root, file)),
    outbase: root,
    outdir: outDir,
    bundle: false,
    platform: "node",
    format: "esm",
    target: "es2022",
    sourcemap: true,
    tsconfig: join(root, "tsconfig.json"),
    logLevel: "warning",
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  await transpile(root, process.argv[2] ?? join(root, "dist"));
}
