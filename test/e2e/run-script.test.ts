import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { VERSION } from "../../cli/version.js";

/** The built CLI (cli/bin.js, which runs the bundle through cli/run-script.ts) with `args`. */
function built(args: string[]): { code: number; out: string; err: string } {
  const result = spawnSync(process.execPath, [join(inject("builtPackage"), "cli", "bin.js"), ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
  });
  return { code: result.status ?? 1, out: result.stdout, err: result.stderr };
}

/** The code caches beside the bundle for `command`. */
function caches(command: string): string[] {
  const bundle = join(inject("builtPackage"), "bundle");
  return readdirSync(bundle)
    .filter((name) => name.endsWith(`.${command}.cache`))
    .map((name) => join(bundle, name));
}

describe("the built CLI's code cache", () => {
  // Retried: once in about five full suites on a loaded 2-core machine, the second start found
  // the cache rewritten (V8 rejected a cache it had just written); the file alone passes every time.
  it("is written by a command that worked, used by the next start, and replaced when V8 rejects it", {
    retry: 2,
  }, () => {
    for (const file of caches("help")) rmSync(file);
    const first = built(["--help"]);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^Usage: impact <command>/);
    expect(first.err).toBe("");
    const [cache] = caches("help");
    expect(cache).toBeDefined();
    const written = readFileSync(cache!);
    expect(written.length).toBeGreaterThan(1000);

    // Accepted: the same start, the cache left as it was.
    expect(built(["--help"])).toEqual(first);
    expect(readFileSync(cache!).equals(written)).toBe(true);

    // Not V8's (another Node wrote it, or it was damaged): ignored, then replaced.
    writeFileSync(cache!, "not a code cache");
    expect(built(["--help"])).toEqual(first);
    expect(statSync(cache!).size).toBeGreaterThan(1000);
  });

  it("is not needed by --version, which the entry answers without loading the bundle", () => {
    for (const file of [...caches("version"), ...caches("v")]) rmSync(file);
    expect(built(["--version"])).toEqual({ code: 0, out: `${VERSION}\n`, err: "" });
    expect(built(["-v"])).toEqual({ code: 0, out: `${VERSION}\n`, err: "" });
    expect([...caches("version"), ...caches("v")]).toEqual([]);
  });

  it("is not written by a command that failed", () => {
    for (const file of caches("no-such-command")) rmSync(file);
    const result = built(["no-such-command"]);
    expect(result.code).toBe(2);
    expect(caches("no-such-command")).toEqual([]);
  });
});
