import { spawn } from "node:child_process";
import { cpSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, inject, it } from "vitest";
import { makeTempDir } from "../helpers/git-repo.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Runs a Node script whose stdout reader has gone away before it writes: every write meets EPIPE. */
function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("output into a pipe that closes early", () => {
  it("impact help run | head: no EPIPE crash", async () => {
    const bin = join(inject("builtPackage"), "cli/bin.js");
    expect(await runWithClosedStdout([bin, "help", "run"])).toEqual({ code: 0, stderr: "" });
  });

  it("demo.mjs | head: no EPIPE crash", async () => {
    // The demo as in a checkout: examples/demo/ beside dist/ (here the test build).
    const checkout = makeTempDir("impact-demo-pipe-");
    cpSync(join(ROOT, "examples/demo"), join(checkout, "examples/demo"), { recursive: true });
    symlinkSync(inject("builtPackage"), join(checkout, "dist"));
    const result = await runWithClosedStdout([join(checkout, "examples/demo/demo.mjs")]);
    expect(result).toEqual({ code: 0, stderr: "" });
  });
});
