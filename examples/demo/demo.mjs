#!/usr/bin/env node
// The offline demo (`npm run demo`): builds a throwaway git repository from before/ and
// after/ (two commits), runs `impact run` on it with the recorded model answers in
// replay.json (no key, no network), and prints `impact report`. With --keep, the
// repository is kept and its path printed, to look around or run impact there yourself.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));

const GIT_ENV = {
  GIT_AUTHOR_NAME: "Demo",
  GIT_AUTHOR_EMAIL: "demo@example.invalid",
  GIT_COMMITTER_NAME: "Demo",
  GIT_COMMITTER_EMAIL: "demo@example.invalid",
  GIT_AUTHOR_DATE: "2026-01-01T12:00:00Z",
  GIT_COMMITTER_DATE: "2026-01-01T12:00:00Z",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

/** A git repository in `dir` with before/ as its first commit and after/ on top. */
export function buildDemoRepository(dir) {
  const git = (...args) =>
    execFileSync("git", args, {
      cwd: dir,
      env: { ...process.env, ...GIT_ENV },
      stdio: ["ignore", "pipe", "pipe"],
    });
  git("init", "-q", "-b", "main");
  git("config", "core.autocrlf", "false");
  cpSync(join(here, "before"), dir, { recursive: true });
  git("add", "-A");
  git("commit", "-q", "-m", "greeter 1.0");
  cpSync(join(here, "after"), dir, { recursive: true });
  git("add", "-A");
  git("commit", "-q", "-m", "Default greeting is now Hi; the excited option is now loud");
  return dir;
}

/**
 * Runs the demo with the given `main` (the CLI entry point) and output functions.
 * Returns the exit code of `impact run` (then of `impact report`).
 */
export async function runDemo({ main, stdout, stderr, env = process.env, keep = false }) {
  const dir = mkdtempSync(join(tmpdir(), "impact-demo-"));
  try {
    buildDemoRepository(dir);
    const io = {
      cwd: dir,
      env: { ...env, OPENAI_API_KEY: "", IMPACT_ROUTER_URL: "" },
      stdout,
      stderr,
      isTTY: false,
      signal: new AbortController().signal,
      readStdin: async () => "",
    };
    stdout(
      `Demo repository: ${keep ? dir : "(a temp dir)"}; change: "Default greeting is now Hi; the excited option is now loud"\n\n`,
    );
    const code = await main(["run", "--model", `replay:${join(here, "replay.json")}`], io);
    if (code !== 0) return code;
    stdout("\n");
    return await main(["report", join(dir, ".impact/audit.json")], io);
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // `demo.mjs | head`: a reader that stops early is not an error.
  process.stdout.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
  const { main } = await import(pathToFileURL(join(here, "../../dist/cli/main.js")).href);
  process.exitCode = await runDemo({
    main,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    keep: process.argv.includes("--keep"),
  });
}
