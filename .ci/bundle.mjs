#!/usr/bin/env node
// The second half of `npm run build` (after tsc): bundles the CLI and the symbol worker into
// dist/bundle/ with esbuild, and makes dist/cli/bin.js a one-line entry that loads it. A
// doc-neutral `impact run` then loads about 40 files instead of about 260 modules (our ~70,
// zod's ~95, yaml's ~70…): about a quarter less time to start.
// Commands still load lazily: each dynamic import becomes its own chunk.
//
// Bundled: our code and the small pure-JavaScript dependencies. Left installed and loaded
// from node_modules: packages with native code, WebAssembly or files of their own
// (TypeScript is also only loaded when a parse needs it), and the backend's server stack.
// tsc's output stays in dist/ beside the bundle: the backend and the tests import it.
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const EXTERNAL = [
  "typescript",
  "oxc-parser",
  "@oxc-parser/*",
  "web-tree-sitter",
  "@vscode/tree-sitter-wasm",
  "node-sqlite3-wasm",
  "pg",
  "pino",
  "prom-client",
  "hono",
  "@hono/node-server",
  "@modelcontextprotocol/sdk",
  "@octokit/*",
];

/**
 * zod's `z.locales` holds the error messages of ~60 languages (over a quarter of the bundle's
 * bytes, compiled on every start); Impact speaks English only, so only `en` is bundled.
 */
const englishOnlyZod = {
  name: "english-only-zod",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)[\\/]/.test(args.importer)
        ? { path: join(dirname(args.importer), "..", "locales", "en.js"), namespace: "english-only-zod" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "english-only-zod" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};

/** Bundles the CLI from the sources in `root` into `outDir`/bundle and points `outDir`/cli/bin.js at it. */
export async function bundle(root, outDir) {
  const target = join(outDir, "bundle");
  rmSync(target, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: { bin: "cli/bin.ts", worker: "cli/plan/symbols/worker.ts" },
    outdir: target,
    // Flat, so every chunk's import.meta.url has the same folder: the extractor finds
    // ./worker.js beside itself, shared/package-root.ts walks up to package.json.
    entryNames: "[name]",
    chunkNames: "[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20.19",
    sourcemap: true,
    // Classes keep their names when the bundle renames a clash: errors report new.target.name.
    keepNames: true,
    external: EXTERNAL,
    // CommonJS dependencies inside an ES module bundle still call require() for Node's own modules.
    banner: {
      js: 'import { createRequire as __impactRequire } from "node:module"; const require = __impactRequire(import.meta.url);',
    },
    plugins: [englishOnlyZod],
    logLevel: "warning",
  });
  const entry = join(outDir, "cli", "bin.js");
  writeFileSync(entry, '#!/usr/bin/env node\nimport "../bundle/bin.js";\n');
  rmSync(`${entry}.map`, { force: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  await bundle(root, process.argv[2] ?? join(root, "dist"));
}
