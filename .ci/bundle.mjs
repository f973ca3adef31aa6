#!/usr/bin/env node
// The second half of `npm run build` (after .ci/transpile.mjs): bundles the CLI and the symbol worker into
// dist/bundle/ with esbuild, and makes dist/cli/bin.js a short entry that runs it (and
// answers `--version` itself). A doc-neutral `impact run` then reads two files instead of
// about 260 modules (our ~70, zod's ~95, yaml's ~70…).
//
// The CLI is one CommonJS script, impact-<hash>.cjs, that dist/cli/bin.js runs through
// cli/run-script.ts with V8's code cache (a script gets one on Node 20, an ES module does
// not). Commands still load lazily: esbuild wraps each module so that its code runs only
// when it is first imported, and V8 compiles a function only when it is first called. The
// symbol worker is an ES module of its own, worker.js, started only when a diff names code.
//
// Bundled: our code and the small pure-JavaScript dependencies. Left installed and loaded
// from node_modules: packages with native code, WebAssembly or files of their own
// (TypeScript is also only loaded when a parse needs it), and the backend's server stack.
// The per-file output of .ci/transpile.mjs stays in dist/ beside the bundle: the backend and the tests import it.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
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

/**
 * esbuild escapes what is outside ASCII in strings, not in comments and regular expressions;
 * `\uXXXX` means the same character in each of those places. An ASCII file is read as latin1
 * into a one-byte string, several times faster than decoding UTF-8 into a two-byte one.
 */
function asciiOnly(text) {
  return text.replace(
    /[^\0-\x7f]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** What both bundles share. */
const COMMON = {
  bundle: true,
  platform: "node",
  target: "node20.19",
  sourcemap: true,
  // Classes keep their names when the bundle renames a clash: errors report new.target.name.
  keepNames: true,
  external: EXTERNAL,
  plugins: [englishOnlyZod],
  logLevel: "warning",
};

/** Bundles the CLI from the sources in `root` into `outDir`/bundle and points `outDir`/cli/bin.js at it. */
export async function bundle(root, outDir) {
  const target = join(outDir, "bundle");
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  const cli = await build({
    ...COMMON,
    absWorkingDir: root,
    entryPoints: { impact: "cli/bin.ts" },
    outdir: target,
    // The content hash in the name keys the code cache (cli/run-script.ts) to this build.
    entryNames: "[name]-[hash]",
    outExtension: { ".js": ".cjs" },
    format: "cjs",
    // import() of a package left outside becomes require(): a script run by vm.Script cannot
    // import() without an experimental loader hook, which V8's code cache then drops. Every
    // such package loads with require() on the Node versions Impact supports (20.19 loads ES
    // modules with it).
    supported: { "dynamic-import": false },
    // Beside the worker, so the extractor finds ./worker.js, and shared/package-root.ts
    // walks up from here to package.json. Strict, as the ES modules it was made from.
    define: { "import.meta.url": "__impactScriptUrl" },
    banner: {
      js: '"use strict"; var __impactScriptUrl = require("node:url").pathToFileURL(__filename).href;',
    },
    write: false,
  });
  let script;
  for (const file of cli.outputFiles) {
    // The script runs inside a function wrapper, where a #! line is a syntax error.
    const text = asciiOnly(file.text.replace(/^#!.*\n/, ""));
    writeFileSync(file.path, text);
    if (file.path.endsWith(".cjs")) script = file.path;
  }
  await build({
    ...COMMON,
    absWorkingDir: root,
    entryPoints: { worker: "cli/plan/symbols/worker.ts" },
    outdir: target,
    format: "esm",
    // CommonJS dependencies inside an ES module bundle still call require() for Node's own modules.
    banner: {
      js: 'import { createRequire as __impactRequire } from "node:module"; const require = __impactRequire(import.meta.url);',
    },
  });
  const entry = join(outDir, "cli", "bin.js");
  writeFileSync(
    entry,
    [
      "#!/usr/bin/env node",
      'import { runScript } from "./run-script.js";',
      'import { VERSION } from "./version.js";',
      "",
      "// `impact --version` is answered before the bundle loads (as cli/main.ts answers it): reading",
      "// the whole script and its code cache would take longer than the answer.",
      'if (process.argv[2] === "--version" || process.argv[2] === "-v") process.stdout.write(VERSION + "\\n");',
      `else runScript(${JSON.stringify(`../bundle/${script.slice(target.length + 1)}`)}, import.meta.url);`,
      "",
    ].join("\n"),
  );
  rmSync(`${entry}.map`, { force: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  await bundle(root, process.argv[2] ?? join(root, "dist"));
}
