import { readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

/**
 * Runs the CLI's bundle (`relativePath` from the URL `base`) (a CommonJS script, see .ci/bundle.mjs) with V8's code cache, the
 * way Node runs a CommonJS file but with `cachedData`: compiling the bundle's JavaScript
 * was the largest single part of a short command's start. Node 20 has no compile cache of
 * its own (`module.enableCompileCache` came in 22), and V8 gives one only to scripts, not
 * to ES modules, so the bundle is a script.
 *
 * The caches live beside the bundle, `<bundle>.<V8 version>-<arch>.<command>.cache`: whoever can write
 * there can change the bundle itself, so the cache is trusted no more than the code. The
 * bundle's name holds a hash of its content, so a cache never outlives the code it was made
 * from. When there is no cache, or V8 rejects it (another Node, other V8 flags), one is
 * written when a command exits with 0, from everything it compiled; a folder that cannot be
 * written (a global install owned by root) just runs without one.
 */
export function runScript(relativePath: string, base: string): void {
  const file = fileURLToPath(new URL(relativePath, base));
  const cacheFile = `${file}.${process.versions.v8}-${process.arch}.${commandOf(process.argv[2])}.cache`;
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // The same wrapper as Node's for a CommonJS file, on the script's first line, so that line
  // numbers in stack traces are the bundle's. The bundle is ASCII (.ci/bundle.mjs escapes the
  // rest), and latin1 reads it into a one-byte string without decoding UTF-8.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, "latin1")}\n})`;
  const script = new vm.Script(source, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
    // The bundle's import() of packages left outside it (parsers, server and GitHub libraries).
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (cachedData === undefined || script.cachedDataRejected) {
    // Only after a command that worked: a mistyped one would leave a cache of its own.
    process.once("exit", (code) => {
      if (code === 0) writeCache(cacheFile, script);
    });
  }
  const module = { exports: {} };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
}

/**
 * Each command has its own cache, holding what it compiled: V8 reads a cache whole, and the
 * one `impact run` leaves is several times what `impact --version` needs.
 */
function commandOf(argument: string | undefined): string {
  return argument !== undefined && /^-{0,2}[a-z][a-z-]{0,30}$/.test(argument)
    ? argument.replace(/^-+/, "")
    : "main";
}

/** Written whole or not at all: to a file of this process's own, then renamed over the cache. */
function writeCache(cacheFile: string, script: vm.Script): void {
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, script.createCachedData());
    renameSync(temp, cacheFile);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // Nothing was written.
    }
  }
}
