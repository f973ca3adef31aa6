import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { readAuditAt } from "../helpers/audit-fixture.js";
import { gitRepo } from "../helpers/git-repo.js";
import { startScriptedModelServer } from "../helpers/scripted-model-server.js";

/** The built CLI as a real process, so the signal handlers of cli/bin.ts run. */
function impact(args: string[], cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [join(inject("builtPackage"), "cli", "bin.js"), ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = { out: "", err: "" };
  child.stdout?.on("data", (chunk) => {
    output.out += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output.err += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output, exited };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("signals, through the built CLI", () => {
  it("impact run on SIGINT: aborts the requests, cancels the articles, writes the audit, exits 130", async () => {
    const doc = "---\nattention:\n  - op: file\n    path: src/a.ts\n---\n# A\n\nThe port is 8080.\n";
    const repo = gitRepo({ "src/a.ts": "export const PORT = 8080;\n", "docs/a.md": doc, "docs/b.md": doc });
    repo.commit({ "src/a.ts": "export const PORT = 9090;\n" });
    const server = await startScriptedModelServer(() => ({ hang: true }));
    try {
      const run = impact(["run", "--apply"], repo.dir, {
        OPENAI_API_KEY: "sk-test-not-a-real-key",
        OPENAI_BASE_URL: server.url,
      });
      await until(() => server.requests.length === 2);
      run.child.kill("SIGINT");
      expect(await run.exited).toBe(130);
      expect(run.output.err).toContain("interrupted");
      const audit = readAuditAt(join(repo.dir, ".impact/audit.json"));
      expect(audit.articles.map((article) => article.status)).toEqual(["cancelled", "cancelled"]);
      expect(audit.applied).toBe(false);
      expect(readFileSync(join(repo.dir, "docs/a.md"), "utf8")).toBe(doc);
      expect(repo.git("status", "--porcelain")).toBe("");
    } finally {
      await server.close();
    }
  });

  it("impact serve on SIGTERM: stops cleanly with exit 0", async () => {
    const serve = impact(["serve", "--host", "127.0.0.1", "--port", "0"], process.cwd(), {
      IMPACT_SERVER_TOKENS: "signals-test-token-000000",
      OPENAI_API_KEY: "sk-test-not-a-real-key",
    });
    const child: ChildProcess = serve.child;
    await until(() => serve.output.out.includes('"msg":"listening"'));
    const url = (JSON.parse(serve.output.out.split("\n")[0] ?? "{}") as { url: string }).url;
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ ok: true });
    child.kill("SIGTERM");
    expect(await serve.exited).toBe(0);
    expect(serve.output.out).toContain('"msg":"stopped"');
  });
});
