import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tokenAuth } from "../../backend/github-auth.js";
import { COMMENT_MARKER } from "../../shared/render/comment.js";
import { portRepo } from "../helpers/audit-fixture.js";
import { startPullRequestBot } from "../helpers/bot.js";
import { startFakeGitHub } from "../helpers/fake-github.js";
import { startScriptedModelServer } from "../helpers/scripted-model-server.js";
import { pullRequestPayload } from "../helpers/webhook-delivery.js";

const SECRET = "whsec-e2e-not-a-real-secret";
const GITHUB_TOKEN = "ghs_e2e_not_a_real_token_00000";
const KEY = "sk-test-not-a-real-key-bot";

const fix = (from: string, to: string) => ({
  toolCalls: [
    {
      name: "edit_article",
      arguments: {
        path: "docs/alpha.md",
        edits: [
          {
            old_string: `port ${from} by default`,
            new_string: `port ${to} by default`,
            reason: `DEFAULT_PORT changed from ${from} to ${to} in src/server.ts`,
            evidence: ["src/server.ts:1"],
          },
        ],
        done: true,
      },
    },
  ],
});

describe("the PR bot end to end (the CLI in process, real git, fake GitHub)", () => {
  it("comments on a PR, updates the same comment on a push, and deletes it when the PR fixes the doc itself", async () => {
    const repo = portRepo(["alpha"]);
    const head1 = repo.git("rev-parse", "HEAD");
    const base = repo.git("rev-parse", "HEAD~1");
    const upstream = await startScriptedModelServer({
      "docs/alpha.md": [fix("8080", "9090"), fix("8080", "7070")],
    });
    const github = await startFakeGitHub({ token: GITHUB_TOKEN });
    const {
      store,
      logs,
      failures,
      deliver: post,
    } = await startPullRequestBot({
      secret: SECRET,
      auth: tokenAuth(GITHUB_TOKEN),
      githubUrl: github.url,
      modelUrl: upstream.url,
      modelKey: KEY,
      secrets: { GITHUB_TOKEN },
    });
    const deliver = async (action: string, head: string, id: string) => {
      expect(await post(pullRequestPayload({ action, base, head, cloneUrl: repo.dir }), id)).toBe(202);
    };
    const comments = () => github.comments("acme/widgets", 42);

    await deliver("opened", head1, "e2e-1");
    expect(failures()).toEqual([]);
    expect(comments()).toHaveLength(1);
    const first = comments()[0]!;
    expect(first.body.startsWith(COMMENT_MARKER)).toBe(true);
    expect(first.body).toContain("### Impact: 1 doc article needs changes after this PR");
    expect(first.body).toContain("+The server listens on port 9090 by default.");

    // A new push changes the port again: the same comment is updated.
    const head2 = repo.commit({ "src/server.ts": "export const DEFAULT_PORT = 7070;\n" });
    await deliver("synchronize", head2, "e2e-2");
    expect(failures()).toEqual([]);
    expect(comments()).toHaveLength(1);
    expect(comments()[0]!.id).toBe(first.id);
    expect(comments()[0]!.body).toContain("+The server listens on port 7070 by default.");

    // A push that changes nothing the doc depends on: the comment is rewritten from the
    // result cache kept in the state store between jobs, with no model call (counted at the end).
    const head2b = repo.commit({ "README.txt": "unrelated\n" });
    await deliver("synchronize", head2b, "e2e-2b");
    expect(failures()).toEqual([]);
    expect(comments()[0]!.body).toContain("+The server listens on port 7070 by default.");
    expect(comments()[0]!.body).toContain("1 result reused from the result cache");
    expect((await store.cachedResults("acme/widgets")).size).toBe(2);

    // The author fixes the doc in the PR: nothing left to say, the comment goes away.
    const head3 = repo.commit({
      "docs/alpha.md": readFileSync(join(repo.dir, "docs/alpha.md"), "utf8").replace("8080", "7070"),
    });
    await deliver("synchronize", head3, "e2e-3");
    expect(failures()).toEqual([]);
    expect(comments()).toEqual([]);

    expect(upstream.requests).toHaveLength(2);
    // The comment is found by its search once; after that by the id the store kept.
    expect(github.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "GET /repos/acme/widgets/issues/42/comments",
      "POST /repos/acme/widgets/issues/42/comments",
      `GET /repos/acme/widgets/issues/comments/${first.id}`,
      `PATCH /repos/acme/widgets/issues/comments/${first.id}`,
      `GET /repos/acme/widgets/issues/comments/${first.id}`,
      `PATCH /repos/acme/widgets/issues/comments/${first.id}`,
      `GET /repos/acme/widgets/issues/comments/${first.id}`,
      `DELETE /repos/acme/widgets/issues/comments/${first.id}`,
    ]);
    expect(await store.commentId("acme/widgets", 42)).toBeUndefined();
    expect(logs.join("\n")).not.toContain(GITHUB_TOKEN);
    expect(logs.join("\n")).not.toContain(KEY);
    await upstream.close();
  }, 300_000);
});
