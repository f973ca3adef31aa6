import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../../cli/main.js";
import { gitRepo, type TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";
import { type ScriptedModelServer, startScriptedModelServer } from "../../helpers/scripted-model-server.js";

const KEY = "sk-test-not-a-real-key";

/** A change that impacts docs/a.md, so a run needs the model. */
function impactedRepo(): TestRepo {
  const repo = gitRepo({
    "config/port.txt": "8080\n",
    "docs/a.md": "---\nattention:\n  - op: file\n    path: config/port.txt\n---\n# A\n\nThe port is 8080.\n",
  });
  repo.commit({ "config/port.txt": "9090\n" });
  return repo;
}

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

/** A local server answering every request the same way. */
async function answering(status: number, contentType: string, body: string): Promise<string> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(status, { "content-type": contentType });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

/** A base URL where nothing listens: a server's port, taken and released. */
async function refusingUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

async function runWith(repo: TestRepo, env: Record<string, string>) {
  const io = captureIo(repo.dir, env);
  const code = await main(["run"], io);
  return { code, io };
}

describe("the model preflight of impact run", () => {
  it.each([
    [
      "a 401",
      () => answering(401, "application/json", '{"error":{"message":"Incorrect API key"}}'),
      "refused the key (HTTP 401); check OPENAI_API_KEY",
    ],
    [
      "an HTML page answering 200",
      () => answering(200, "text/html", "<html>login</html>"),
      "is not an OpenAI-compatible API (GET /models answered text/html, not an OpenAI-compatible model list); check OPENAI_BASE_URL (it usually ends in /v1)",
    ],
    ["a refused connection", refusingUrl, "cannot connect to"],
    [
      "a 404",
      () => answering(404, "application/json", "{}"),
      "has no OpenAI-compatible model list (HTTP 404)",
    ],
  ])("%s: exit 2, one line naming the base URL, no key, nothing written", async (_name, start, expected) => {
    const repo = impactedRepo();
    const url = await start();
    const { code, io } = await runWith(repo, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: url });
    expect(code).toBe(2);
    expect(io.err.split("\n")).toHaveLength(2);
    expect(io.err).toContain(`impact run: model setup: `);
    expect(io.err).toContain(url);
    expect(io.err).toContain(expected);
    expect(io.err).toContain("no article was started");
    expect(io.err).not.toContain(KEY);
    expect(io.out).toBe("");
    // No audit or patch (the plan's history cache may be there: it is no output).
    expect(existsSync(join(repo.dir, ".impact", "audit.json"))).toBe(false);
    expect(existsSync(join(repo.dir, ".impact", "impact.patch"))).toBe(false);
  });

  it("a base URL that is not a URL: exit 2 naming it", async () => {
    const repo = impactedRepo();
    const { code, io } = await runWith(repo, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: "localhost:11434" });
    expect(code).toBe(2);
    expect(io.err).toBe(
      'impact run: model setup: the model API base URL "localhost:11434" is not an http(s) URL; set OPENAI_BASE_URL to the server\'s API root (e.g. https://api.openai.com/v1); no article was started\n',
    );
    // No audit or patch (the plan's history cache may be there: it is no output).
    expect(existsSync(join(repo.dir, ".impact", "audit.json"))).toBe(false);
    expect(existsSync(join(repo.dir, ".impact", "impact.patch"))).toBe(false);
  });

  it("never shows credentials written into the base URL", async () => {
    const repo = impactedRepo();
    const url = await answering(401, "application/json", "{}");
    const withUser = url.replace("http://", "http://someone:hunter2hunter2@");
    const { code, io } = await runWith(repo, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: withUser });
    expect(code).toBe(2);
    expect(io.err).toContain(url);
    expect(io.err).not.toContain("hunter2hunter2");
  });

  it("asks once, then runs the articles", async () => {
    const repo = impactedRepo();
    const server: ScriptedModelServer = await startScriptedModelServer([{ content: "Nothing to change." }]);
    closers.push(() => server.close());
    const { code, io } = await runWith(repo, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.url });
    expect(io.err).toBe("");
    expect(code).toBe(0);
    expect(server.modelListRequests).toBe(1);
    expect(server.requests).toHaveLength(1);
  });

  it("without a key and with nothing to do, exits 0 and asks nothing", async () => {
    const repo = gitRepo({
      "src/a.ts": "export const a = 1;\n",
      "docs/a.md": "# A\n\nNothing about code.\n",
    });
    repo.commit({ "src/a.ts": "export const a = 2;\n" });
    const { code, io } = await runWith(repo, {});
    expect(io.err).toBe("");
    expect(code).toBe(0);
  });
});
