import { spawn } from "node:child_process";
import { GitError } from "../../shared/errors.js";
import { GIT_OUTPUT_BYTES } from "../../shared/limits.js";

/**
 * Settings that keep git's output the same whatever the user's config says. `quotePath=false`
 * prints non-ASCII paths as they are (`docs/café.md`, not `"docs/caf\303\251.md"`); git still
 * quotes a path holding a control character, a quote or a backslash, which the readers of its
 * output undo (`unquoteGitPath` in shared/diff/parse.ts).
 */
const STABLE_CONFIG = [
  "-c",
  "core.quotePath=false",
  "-c",
  "diff.noprefix=false",
  "-c",
  "color.ui=false",
  "-c",
  "log.showSignature=false",
];

export interface RunGitOptions {
  /** Written to git's standard input. */
  input?: string | undefined;
  /** Past this many bytes of output git is stopped and the text is marked truncated. */
  maxBytes?: number;
  /** Past this time git is stopped and what arrived is kept, marked timed out. */
  timeoutMs?: number;
  /** What the user can do when git fails, appended to the error's line. */
  hint?: string;
}

export interface GitOutput {
  text: string;
  truncated: boolean;
  timedOut: boolean;
}

/**
 * The one way Impact starts git (the object reader aside, a long-lived process of its own):
 * `git <STABLE_CONFIG> <args>` in `dir`, arguments as an array (no shell, so no character in
 * a path or revision can change what is asked). A failure is a GitError (exit 2) reading
 * `git <command> failed: <git's first line of complaint>`, with the hint when given.
 */
export function runGit(dir: string, args: string[], options: RunGitOptions = {}): Promise<GitOutput> {
  const maxBytes = options.maxBytes ?? GIT_OUTPUT_BYTES;
  const command = args.find((arg) => !arg.startsWith("-") && !arg.includes("=")) ?? "";
  const failure = (why: string, cause?: unknown) =>
    new GitError(`git ${command} failed: ${why}${options.hint ? ` (${options.hint})` : ""}`, { cause });
  return new Promise((resolve, reject) => {
    const child = spawn("git", [...STABLE_CONFIG, ...args], {
      cwd: dir,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    let timedOut = false;
    let stderr = "";
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill();
          }, options.timeoutMs);
    child.stdout!.on("data", (chunk: Buffer) => {
      if (truncated) return;
      const room = maxBytes - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, Math.max(0, room)));
        size = maxBytes;
        truncated = true;
        child.kill();
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8");
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(failure(`it could not start (${error.message}); is git installed and on PATH?`, error));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0 && !truncated && !timedOut) {
        reject(failure(stderr.trim().split("\n")[0] || `exit ${code}`));
        return;
      }
      resolve({ text: Buffer.concat(chunks).toString("utf8"), truncated, timedOut });
    });
    if (options.input !== undefined) {
      child.stdin?.on("error", () => {});
      child.stdin?.end(options.input);
    }
  });
}
