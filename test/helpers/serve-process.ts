import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { onTestFailed, onTestFinished } from "vitest";

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** Every log line so far, parsed. */
  logs(): Array<Record<string, unknown> & { msg: string }>;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
  /** SIGKILL to the server and every process it started (its process group), as a container kill does. */
  kill(): Promise<void>;
}

/** Obvious fakes for `impact serve` in tests: the webhook secret, the GitHub token, the model key. */
export const SERVE_FAKES = {
  secret: "whsec-serve-not-a-real-secret",
  githubToken: "ghs_serve_not_a_real_token_000",
  modelKey: "sk-test-not-a-real-key-serve",
} as const;

/**
 * The environment of an `impact serve` in token mode against a fake GitHub and a scripted
 * model server (the fakes above), plus `extra`.
 */
export function serveEnv(
  urls: { github: string; model: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    GITHUB_WEBHOOK_SECRET: SERVE_FAKES.secret,
    GITHUB_TOKEN: SERVE_FAKES.githubToken,
    GITHUB_API_URL: urls.github,
    OPENAI_API_KEY: SERVE_FAKES.modelKey,
    OPENAI_BASE_URL: urls.model,
    IMPACT_MODEL: "test-model",
    IMPACT_GITHUB_THROTTLE: "off",
    ...extra,
  };
}

/**
 * `impact serve --port 0` from the built CLI as a real process (its own process group), with
 * exactly `env` (plus PATH/HOME); resolves once it logs "listening". Killed when the test ends.
 */
export async function startServe(buildDir: string, env: Record<string, string>): Promise<ServeProcess> {
  const child = spawn(process.execPath, [join(buildDir, "cli", "bin.js"), "serve", "--port", "0"], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")),
  );
  const logs = () =>
    out
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown> & { msg: string });
  const kill = async () => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // Already gone.
    }
    await exited;
  };
  onTestFinished(kill);
  // A failing test shows what the server said.
  onTestFailed(() => console.error(`impact serve (pid ${child.pid}) logged:\n${out}${err}`));
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const listening = logs().find((line) => line.msg === "listening");
      if (listening) return resolve(String(listening.url));
    };
    child.stdout!.on("data", look);
    exited.then((code) => reject(new Error(`impact serve exited (${code}) before listening: ${err}${out}`)));
  });
  return { child, url, logs, exited, kill };
}

/** Polls `check` until it holds (the test's own timeout bounds the wait). */
export async function until(check: () => boolean | Promise<boolean>, everyMs = 100): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, everyMs));
}

/** Prometheus text format → `name{labels}` → value. */
export function parseMetrics(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    values.set(match[1]!, Number(match[2]));
  }
  return values;
}
