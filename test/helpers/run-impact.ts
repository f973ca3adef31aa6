import { join } from "node:path";
import { onTestFinished } from "vitest";
import { main } from "../../cli/main.js";
import type { Audit } from "../../shared/audit.js";
import { readAuditAt } from "./audit-fixture.js";
import { type CapturedIo, captureIo } from "./io.js";
import { type Script, type ScriptedModelServer, startScriptedModelServer } from "./scripted-model-server.js";

/** The model API key the tests' runs use: a fake, the scripted server takes any. */
export const TEST_KEY = "sk-test-not-a-real-key";

export interface ScriptedRun {
  code: number;
  io: CapturedIo;
  server: ScriptedModelServer;
  /** The audit the run wrote, read back through its schema; undefined when there is none. */
  audit: Audit | undefined;
}

/**
 * `impact run ARGS` in process in `dir`, against a scripted model server on 127.0.0.1
 * (closed when the test ends). `env` adds to or replaces the model settings.
 */
export async function runWithScript(
  dir: string,
  script: Script,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<ScriptedRun> {
  const server = await startScriptedModelServer(script);
  onTestFinished(() => server.close());
  const { code, io } = await runAgainst(server, dir, args, env);
  let audit: Audit | undefined;
  try {
    audit = readAuditAt(join(dir, ".impact/audit.json"));
  } catch {
    audit = undefined;
  }
  return { code, io, server, audit };
}

/**
 * Runs of `impact run` in process against one scripted model server, each with a script
 * of its own (an array script answers a run's n-th call with its n-th step). The endpoint
 * is part of every result key, so runs that should share results must share a server.
 */
export async function scriptedRuns(): Promise<{
  server: ScriptedModelServer;
  run(
    dir: string,
    script: Script,
    args: string[],
    env?: Record<string, string>,
  ): Promise<{ code: number; io: CapturedIo; calledFor: string[] }>;
}> {
  let current: Script = [];
  let offset = 0;
  const server = await startScriptedModelServer((request, index) => {
    const script = current;
    if (typeof script === "function") return script(request, index - offset);
    const steps = Array.isArray(script) ? script : (script[request.article ?? ""] ?? []);
    return steps[index - offset] ?? { status: 500, body: "no step scripted for this call" };
  });
  onTestFinished(() => server.close());
  return {
    server,
    async run(dir, script, args, env = {}) {
      current = script;
      offset = server.requests.length;
      const { code, io } = await runAgainst(server, dir, args, env);
      const calledFor = server.requests
        .slice(offset)
        .map((request) => request.article ?? "")
        .sort();
      return { code, io, calledFor };
    },
  };
}

/** `impact run ARGS` in process in `dir` against `server`, with the test model settings (`env` adds to or replaces them). */
async function runAgainst(
  server: ScriptedModelServer,
  dir: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; io: CapturedIo }> {
  const io = captureIo(dir, {
    OPENAI_API_KEY: TEST_KEY,
    OPENAI_BASE_URL: server.url,
    IMPACT_MODEL: "test-model",
    ...env,
  });
  return { code: await main(["run", ...args], io), io };
}
