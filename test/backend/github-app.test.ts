import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { appAuth, JOB_PERMISSIONS } from "../../backend/github-auth.js";
import { createGitHubClient } from "../../shared/github-client.js";
import { fixScript, portRepo } from "../helpers/audit-fixture.js";
import { startPullRequestBot } from "../helpers/bot.js";
import { startFakeGitHub } from "../helpers/fake-github.js";
import { startScriptedModelServer } from "../helpers/scripted-model-server.js";
import { pullRequestPayload as payload } from "../helpers/webhook-delivery.js";

const SECRET = "whsec-app-test-not-a-real-secret";
const KEY = "sk-test-not-a-real-key-app";
const APP_ID = 4242;
const INSTALLATION = 45678901;
const SUSPENDED = 777;

/** A throwaway App key made for this file's tests, once (GitHub hands out PKCS#1 PEM files). */
let madeKey: { privateKey: string; publicKey: string } | undefined;
function appKey() {
  if (!madeKey) {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    madeKey = {
      privateKey: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
      publicKey: publicKey.export({ type: "spki", format: "pem" }).toString(),
    };
  }
  return madeKey;
}

async function appBot(options: {
  /** The head of pull request 42 of acme/widgets, as GitHub answers the head check. */
  head?: string;
  appId?: string;
  privateKey?: string;
  script?: Parameters<typeof startScriptedModelServer>[0];
}) {
  const keys = appKey();
  const github = await startFakeGitHub({
    app: {
      id: APP_ID,
      publicKey: keys.publicKey,
      installations: { [INSTALLATION]: {}, [SUSPENDED]: { suspended: true } },
    },
  });
  const upstream = await startScriptedModelServer(options.script ?? fixScript(["alpha"]));
  onTestFinished(() => upstream.close());
  const bot = await startPullRequestBot({
    secret: SECRET,
    auth: appAuth({
      appId: options.appId ?? String(APP_ID),
      privateKey: async () => options.privateKey ?? keys.privateKey,
      github: createGitHubClient({ apiUrl: github.url, throttle: false }),
    }),
    githubUrl: github.url,
    modelUrl: upstream.url,
    modelKey: KEY,
    app: true,
  });
  if (options.head) github.setPull("acme/widgets", 42, { head: options.head });
  return { github, upstream, ...bot };
}

/** A pull request whose head changes the port docs/alpha.md states: its repository and its two commits. */
function alphaPull() {
  const repo = portRepo(["alpha"]);
  return { repo, base: repo.git("rev-parse", "HEAD~1"), head: repo.git("rev-parse", "HEAD") };
}

describe("docs/github-app.md", () => {
  it("asks in its app manifest for exactly the permissions a job's token requests, and the pull_request event", () => {
    const doc = readFileSync(join(import.meta.dirname, "..", "..", "docs", "github-app.md"), "utf8");
    const manifest = JSON.parse(/```json\n([\s\S]*?)```/.exec(doc)![1]!);
    expect(manifest.default_permissions).toEqual(JOB_PERMISSIONS);
    expect(manifest.default_events).toEqual(["pull_request"]);
  });
});

describe("the PR bot as a GitHub App (the CLI in process, real git, fake GitHub issuing installation tokens)", () => {
  it("runs each job with its own installation token, scoped to the delivery's repository, and revokes it", async () => {
    const { repo, base, head } = alphaPull();
    const bot = await appBot({ head });

    expect(await bot.deliver(payload({ base, head, cloneUrl: repo.dir }), "app-1")).toBe(202);
    expect(bot.failures()).toEqual([]);
    const [comment] = bot.github.comments("acme/widgets", 42);
    expect(comment?.body).toContain("+The server listens on port 9090 by default.");

    expect(bot.github.issued).toHaveLength(1);
    const [token] = bot.github.issued;
    expect(token).toMatchObject({
      installationId: INSTALLATION,
      repositories: ["widgets"],
      permissions: JOB_PERMISSIONS,
      revoked: true,
    });
    // The head check and every comment request used that token, and nothing else did.
    expect(bot.github.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "GET /repos/acme/widgets/pulls/42",
      "GET /repos/acme/widgets/issues/42/comments",
      "POST /repos/acme/widgets/issues/42/comments",
    ]);
    expect(new Set(bot.github.requests.map((request) => request.token))).toEqual(new Set([token!.token]));
    expect(bot.logs.join("\n")).not.toContain(token!.token);

    // A delivery that names no installation is not the App's: ignored.
    expect(
      await bot.deliver(
        payload({ base, head, cloneUrl: repo.dir, action: "reopened", installation: null }),
        "app-2",
      ),
    ).toBe(204);
    expect(bot.github.issued).toHaveLength(1);
  }, 300_000);

  it("asks GitHub through the one client, which tries a head check answered 502 again instead of failing the job", async () => {
    const { repo, base, head } = alphaPull();
    const bot = await appBot({ head });
    bot.github.failNext({ status: 502, message: "Bad Gateway" });
    expect(await bot.deliver(payload({ base, head, cloneUrl: repo.dir }), "retry-1")).toBe(202);
    expect(bot.failures()).toEqual([]);
    expect(bot.github.requests.slice(0, 2).map((request) => `${request.method} ${request.path}`)).toEqual([
      "GET /repos/acme/widgets/pulls/42",
      "GET /repos/acme/widgets/pulls/42",
    ]);
    expect(bot.github.comments("acme/widgets", 42)).toHaveLength(1);
    expect(bot.github.issued[0]?.revoked).toBe(true);
  }, 300_000);

  it("drops a replayed delivery of an old head (asks the API), so the comment keeps the current head's result", async () => {
    const { repo, base, head: oldHead } = alphaPull();
    const bot = await appBot({ head: oldHead });
    const captured = payload({ base, head: oldHead, cloneUrl: repo.dir, action: "reopened" });
    expect(await bot.deliver(payload({ base, head: oldHead, cloneUrl: repo.dir }), "first")).toBe(202);
    expect(bot.github.comments("acme/widgets", 42)).toHaveLength(1);

    // The author fixes the doc in a new push: nothing left to say, the comment goes away.
    const newHead = repo.commit({
      "docs/alpha.md": readFileSync(join(repo.dir, "docs/alpha.md"), "utf8").replace("8080", "9090"),
    });
    bot.github.setPull("acme/widgets", 42, { head: newHead });
    expect(
      await bot.deliver(
        payload({ base, head: newHead, cloneUrl: repo.dir, action: "synchronize" }),
        "second",
      ),
    ).toBe(202);
    expect(bot.github.comments("acme/widgets", 42)).toEqual([]);

    // An attacker replays a signed body captured for the old head under a fresh delivery id.
    expect(await bot.deliver(captured, "replayed-1")).toBe(202);
    expect(bot.github.comments("acme/widgets", 42)).toEqual([]);
    expect(bot.logs.some((line) => line.includes('"msg":"job dropped"') && line.includes(newHead))).toBe(
      true,
    );
    // ... and again with another fresh id: now the body itself is a duplicate.
    expect(await bot.deliver(captured, "replayed-2")).toBe(204);
    expect(bot.upstream.requests).toHaveLength(1);
  }, 300_000);

  it("logs one clear line for a suspended installation, a wrong app id or a malformed key, and keeps serving", async () => {
    const { repo, base, head } = alphaPull();

    const suspended = await appBot({ head });
    suspended.github.setPull("acme/widgets", 43, { head });
    expect(
      await suspended.deliver(
        payload({ base, head, cloneUrl: repo.dir, number: 43, installation: SUSPENDED }),
        "s-1",
      ),
    ).toBe(202);
    expect(suspended.failures()).toHaveLength(1);
    expect(suspended.failures()[0]).toMatchObject({ msg: "job failed", code: "github" });
    expect(suspended.failures()[0]!.error).toMatchInlineSnapshot(
      `"GitHub refused an installation token (HTTP 403: This installation has been suspended): installation 777 is suspended or may not be used; an owner can unsuspend it in the App's settings"`,
    );
    expect(suspended.github.comments("acme/widgets", 43)).toEqual([]);
    // The server goes on: the next delivery, of a working installation, is served.
    expect(await suspended.deliver(payload({ base, head, cloneUrl: repo.dir }), "s-2")).toBe(202);
    expect(suspended.github.comments("acme/widgets", 42)).toHaveLength(1);
    expect(suspended.failures()).toHaveLength(1);

    const wrongId = await appBot({ appId: "999" });
    expect(await wrongId.deliver(payload({ base, head, cloneUrl: repo.dir }), "w-1")).toBe(202);
    expect(wrongId.failures().map((entry) => entry.error)).toEqual([
      "GitHub refused an installation token (HTTP 401: A JSON web token could not be decoded): the App's JWT was rejected; check GITHUB_APP_ID (999) and that the private key belongs to that App",
    ]);

    const malformed = await appBot({
      privateKey: "-----BEGIN RSA PRIVATE KEY-----\nnot a key\n-----END RSA PRIVATE KEY-----\n",
    });
    expect(await malformed.deliver(payload({ base, head, cloneUrl: repo.dir }), "m-1")).toBe(202);
    expect(malformed.failures().map((entry) => entry.error)).toEqual([
      "the App's private key is not a PEM private key: use the .pem file GitHub generated for the App",
    ]);
    expect(await malformed.store.job("m-1")).toMatchObject({ state: "failed" });
  }, 300_000);
});
