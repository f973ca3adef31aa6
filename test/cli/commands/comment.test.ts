import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { upsertPullRequestComment } from "../../../cli/audit/github.js";
import { main } from "../../../cli/main.js";
import type { Audit } from "../../../shared/audit.js";
import { createGitHubClient } from "../../../shared/github-client.js";
import {
  buildSuggestions,
  COMMENT_MARKER,
  diffRightLines,
  GITHUB_COMMENT_LIMIT,
  hasCommentWorthyArticles,
  renderComment,
} from "../../../shared/render/comment.js";
import { auditArticle, auditOf } from "../../helpers/audit-fixture.js";
import { startFakeGitHub } from "../../helpers/fake-github.js";
import { makeTempDir } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";

const TOKEN = "ghs_test_not_a_real_token_0000";

/**
 * The commands under test talk to the fake GitHub without Octokit's throttling, which spaces
 * writes seconds apart; the "GitHub client" tests below keep it on.
 */
const UNTHROTTLED = { IMPACT_GITHUB_THROTTLE: "off" };

function sampleAudit(): Audit {
  return auditOf([
    auditArticle("docs/auth/login.md"),
    auditArticle("docs/cli.md", { status: "unchanged" }),
    auditArticle("docs/config.md", {
      status: "failed",
      error: { code: "max_turns", message: "The article was not finished within 8 turns." },
    }),
    auditArticle("README.md", { status: "touched", impact: [] }),
  ]);
}

function writeAudit(dir: string, audit: Audit, name = "audit.json"): string {
  writeFileSync(join(dir, name), JSON.stringify(audit));
  return name;
}

describe("renderComment", () => {
  it("renders the verdict, the table and one block per updated or failed article", () => {
    const { body, folded } = renderComment(sampleAudit());
    expect(folded).toEqual([]);
    expect(body.startsWith(`${COMMENT_MARKER}\n`)).toBe(true);
    expect(body).toMatchInlineSnapshot(`
      "<!-- impact:comment -->
      ### Impact: 1 doc article needs changes after this PR; proposed edits below; 1 impacted article could not be updated automatically.

      | Article | Status | Edits |
      |---|---|---|
      | \`docs/auth/login.md\` | ✏️ updated | 1 |
      | \`docs/cli.md\` | ✅ unchanged | 0 |
      | \`docs/config.md\` | ❌ failed | 0 |
      | \`README.md\` | 👤 touched by the PR | 0 |

      <details>
      <summary><code>docs/auth/login.md</code> — updated, 1 edit</summary>

      **Why this article**

      - attention: \`src/auth.ts\` — docs/auth/login.md watches src/auth.ts

      **Edits**

      1. replace, line 3: The login flag was renamed from --user to --account. (evidence: \`src/auth.ts:12\`)

      > Renamed the flag.

      <sub>Not affected by changes like these? \`impact dismiss docs/auth/login.md --for src/auth.ts --reason "…"\` records it in impact.config.json, and Impact stops flagging it.</sub>

      \`\`\`diff
      --- a/docs/auth/login.md
      +++ b/docs/auth/login.md
      @@ -1,3 +1,3 @@
       # Login
       
      -Run \`impact login --user NAME\`.
      +Run \`impact login --account NAME\`.
      \`\`\`

      </details>

      <details>
      <summary><code>docs/config.md</code> — failed, 0 edits</summary>

      **Why this article**

      - attention: \`src/auth.ts\` — docs/config.md watches src/auth.ts

      **Failed** (\`max_turns\`): The article was not finished within 8 turns.

      > Nothing in this article is affected.

      <sub>Not affected by changes like these? \`impact dismiss docs/config.md --for src/auth.ts --reason "…"\` records it in impact.config.json, and Impact stops flagging it.</sub>

      </details>

      <sub>Impact · base \`aaaaaaaaaaaa\` → head \`bbbbbbbbbbbb\` · model \`gpt-test\` · 480 tokens · run \`run-1\`</sub>
      "
    `);
  });

  it("keeps model text from closing the collapsible block or the diff fence", () => {
    const audit = auditOf([
      auditArticle("docs/a.md", {
        summary: "done </details><script>x</script>\nsecond line",
        patch: "--- a/docs/a.md\n+++ b/docs/a.md\n@@ -1 +1 @@\n-````\n+```js\n",
      }),
    ]);
    const { body } = renderComment(audit);
    expect(body).toContain("> done &lt;/details&gt;&lt;script&gt;x&lt;/script&gt; second line");
    expect(body).toContain("`````diff\n");
    expect(body.match(/<\/details>/g)).toHaveLength(1);
  });

  it("folds the largest diffs first to stay under the limit, and says so", () => {
    const bigPatch = (path: string, lines: number) =>
      `--- a/${path}\n+++ b/${path}\n@@ -1,${lines} +1,${lines} @@\n${"-old line of text here\n+new line of text here\n".repeat(lines)}`;
    const audit = auditOf([
      auditArticle("docs/huge.md", { patch: bigPatch("docs/huge.md", 900) }),
      auditArticle("docs/large.md", { patch: bigPatch("docs/large.md", 600) }),
      auditArticle("docs/small.md", { patch: bigPatch("docs/small.md", 5) }),
    ]);
    expect(renderComment(audit, { maxLength: 1_000_000 }).folded).toEqual([]);
    const { body, folded } = renderComment(audit, { maxLength: 40_000 });
    expect(folded).toEqual(["docs/huge.md"]);
    expect(body.length).toBeLessThanOrEqual(40_000);
    expect(body).toContain("> 1 diff was folded (largest first) to stay under GitHub's 65,536-character");
    expect(body).toContain("_Diff folded (1803 lines) to fit the comment size limit._");
    expect(body).toContain("+new line of text here"); // the others stay
    const tight = renderComment(audit, { maxLength: 8_000 });
    expect(tight.folded).toEqual(["docs/huge.md", "docs/large.md"]);
    expect(tight.body).toContain("2 diffs were folded");
    expect(tight.body).toContain("docs/small.md\n+++ b/docs/small.md");

    const hundreds = auditOf(
      Array.from({ length: 40 }, (_, index) =>
        auditArticle(`docs/page-${index}.md`, { patch: bigPatch(`docs/page-${index}.md`, 60 + index) }),
      ),
    );
    const real = renderComment(hundreds);
    expect(real.body.length).toBeLessThan(GITHUB_COMMENT_LIMIT);
    expect(real.folded[0]).toBe("docs/page-39.md");
  });

  it("has nothing to say when no article was updated or failed", () => {
    expect(hasCommentWorthyArticles(sampleAudit())).toBe(true);
    const quiet = auditOf([
      auditArticle("docs/a.md", { status: "unchanged" }),
      auditArticle("docs/b.md", { status: "touched" }),
    ]);
    expect(hasCommentWorthyArticles(quiet)).toBe(false);
  });
});

describe("impact comment", () => {
  it("creates the comment, then updates that same one (never a second)", async () => {
    const github = await startFakeGitHub({ token: TOKEN });
    github.seed("acme/widgets", 7, "LGTM, but the docs?");
    const dir = makeTempDir();
    const summaryPath = join(dir, "summary.md");
    const env = {
      GITHUB_TOKEN: TOKEN,
      GITHUB_API_URL: github.url,
      ...UNTHROTTLED,
      GITHUB_STEP_SUMMARY: summaryPath,
    };
    writeAudit(dir, sampleAudit());

    const first = captureIo(dir, env);
    expect(await main(["comment", "audit.json", "--pr", "7", "--repo", "acme/widgets"], first)).toBe(0);
    expect(first.err).toBe("");
    expect(first.out.replace(/\d{4,}/g, "ID")).toMatchInlineSnapshot(`
      "impact comment: created the comment on acme/widgets#7: https://github.example/acme/widgets/pull/7#issuecomment-ID
      "
    `);
    expect(github.comments("acme/widgets", 7)).toHaveLength(2);

    const changed = sampleAudit();
    changed.articles[0]!.edits[0]!.reason = "The flag is --account since this push.";
    writeAudit(dir, changed);
    const second = captureIo(dir, { ...env, GITHUB_REPOSITORY: "acme/widgets" });
    expect(await main(["comment", "audit.json", "--pr", "7"], second)).toBe(0);
    expect(second.out).toContain("updated the comment on acme/widgets#7");

    const comments = github.comments("acme/widgets", 7);
    expect(comments.map((comment) => comment.body.slice(0, COMMENT_MARKER.length))).toEqual([
      "LGTM, but the docs?",
      COMMENT_MARKER,
    ]);
    expect(comments[1]!.body).toContain("The flag is --account since this push.");
    expect(github.requests.map((request) => request.method)).toEqual(["GET", "POST", "GET", "PATCH"]);
    expect(readFileSync(summaryPath, "utf8")).toContain("### Impact: 1 doc article needs changes");
  });

  it("updates the comment by --comment-id with no search; a deleted, foreign or other PR's id falls back to the marker", async () => {
    const github = await startFakeGitHub({ token: TOKEN });
    const dir = makeTempDir();
    const env = { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: github.url, ...UNTHROTTLED };
    const comment = async (audit: Audit, extra: string[] = []) => {
      writeAudit(dir, audit);
      const io = captureIo(dir, env);
      const args = ["comment", "audit.json", "--pr", "7", "--repo", "acme/widgets", "--json", ...extra];
      expect(await main(args, io)).toBe(0);
      return JSON.parse(io.out) as { action: string; id: number; foundBy?: string; pr: number };
    };
    const changed = (reason: string) => {
      const audit = sampleAudit();
      audit.articles[0]!.edits[0]!.reason = reason;
      return audit;
    };
    const paths = (from: number) =>
      github.requests.slice(from).map((request) => `${request.method} ${request.path}`);

    const created = await comment(sampleAudit());
    expect(created).toMatchObject({ repository: "acme/widgets", pr: 7, action: "created" });
    let seen = github.requests.length;
    const updated = await comment(changed("first push"), ["--comment-id", String(created.id)]);
    expect(updated).toMatchObject({ action: "updated", id: created.id, foundBy: "id" });
    expect(paths(seen)).toEqual([
      `GET /repos/acme/widgets/issues/comments/${created.id}`,
      `PATCH /repos/acme/widgets/issues/comments/${created.id}`,
    ]);

    // Someone deleted the comment: 404, then the search, then a new comment whose id is reported.
    github.comments("acme/widgets", 7).splice(0);
    seen = github.requests.length;
    const recreated = await comment(changed("second push"), ["--comment-id", String(created.id)]);
    expect(recreated).toMatchObject({ action: "created" });
    expect(recreated.id).not.toBe(created.id);
    expect(paths(seen)).toEqual([
      `GET /repos/acme/widgets/issues/comments/${created.id}`,
      "GET /repos/acme/widgets/issues/7/comments",
      "POST /repos/acme/widgets/issues/7/comments",
    ]);

    // A person's comment that carries the marker, and the bot's comment on another PR: never edited.
    const persons = github.seed("acme/widgets", 7, `${COMMENT_MARKER}\nmine`, "mallory");
    const otherPr = github.seed("acme/widgets", 8, `${COMMENT_MARKER}\nPR 8`, "impact-bot[bot]");
    for (const foreign of [persons.id, otherPr.id]) {
      const result = await comment(changed(`push for ${foreign}`), ["--comment-id", String(foreign)]);
      expect(result).toMatchObject({ action: "updated", id: recreated.id, foundBy: "marker" });
    }
    expect(github.comments("acme/widgets", 7).find((item) => item.id === persons.id)?.body).toBe(
      `${COMMENT_MARKER}\nmine`,
    );
    expect(github.comments("acme/widgets", 8)[0]!.body).toBe(`${COMMENT_MARKER}\nPR 8`);

    // Nothing to post: the comment found by its id is deleted.
    const deleted = await comment(auditOf([auditArticle("docs/a.md", { status: "unchanged" })]), [
      "--comment-id",
      String(recreated.id),
    ]);
    expect(deleted).toEqual({
      repository: "acme/widgets",
      pr: 7,
      action: "deleted",
      id: recreated.id,
      foundBy: "id",
    });
  });

  it("posts nothing when nothing is impacted, and deletes its earlier comment", async () => {
    const github = await startFakeGitHub({ token: TOKEN });
    github.seed("acme/widgets", 9, "unrelated review comment");
    github.seed("acme/widgets", 9, `${COMMENT_MARKER}\n### Impact: an old verdict`, "impact-bot[bot]");
    const dir = makeTempDir();
    writeAudit(dir, auditOf([auditArticle("docs/a.md", { status: "unchanged" })]));
    const env = { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: github.url, ...UNTHROTTLED };

    const io = captureIo(dir, env);
    expect(await main(["comment", "audit.json", "--pr", "9", "--repo", "acme/widgets"], io)).toBe(0);
    expect(io.out).toBe("impact comment: nothing to post; deleted the earlier comment on acme/widgets#9\n");
    expect(github.comments("acme/widgets", 9).map((comment) => comment.body)).toEqual([
      "unrelated review comment",
    ]);

    const again = captureIo(dir, env);
    expect(await main(["comment", "audit.json", "--pr", "9", "--repo", "acme/widgets"], again)).toBe(0);
    expect(again.out).toContain("nothing to post on acme/widgets#9");
    expect(github.requests.map((request) => request.method)).toEqual(["GET", "DELETE", "GET"]);
  });

  it("prints the body with --dry-run and needs no token", async () => {
    const dir = makeTempDir();
    writeAudit(dir, sampleAudit());
    const io = captureIo(dir);
    expect(await main(["comment", "audit.json", "--dry-run"], io)).toBe(0);
    expect(io.out).toBe(renderComment(sampleAudit()).body);
  });

  it("says in one line what is missing", async () => {
    const dir = makeTempDir();
    writeAudit(dir, sampleAudit());
    const run = async (argv: string[], env: Record<string, string>) => {
      // Never GitHub itself, even if a check moved after the first request.
      const io = captureIo(dir, { GITHUB_API_URL: "http://127.0.0.1:9", ...env });
      const code = await main(["comment", ...argv], io);
      return `${code} ${io.err}`;
    };
    expect(await run(["audit.json", "--pr", "1", "--repo", "a/b"], {})).toMatchInlineSnapshot(`
      "2 impact comment: GITHUB_TOKEN is not set (or use --dry-run)
      "
    `);
    expect(await run(["audit.json", "--pr", "1"], { GITHUB_TOKEN: TOKEN })).toMatchInlineSnapshot(`
      "2 impact comment: no repository; pass --repo owner/name or set GITHUB_REPOSITORY
      "
    `);
    expect(await run(["audit.json", "--repo", "a/b"], { GITHUB_TOKEN: TOKEN })).toMatchInlineSnapshot(`
      "2 impact comment: no pull request; pass --pr N
      "
    `);
    expect(
      await run(["audit.json", "--repo", "nope", "--pr", "1"], { GITHUB_TOKEN: TOKEN }),
    ).toMatchInlineSnapshot(`
      "2 impact comment: --repo takes owner/name, got "nope"
      "
    `);
    expect(await run([], {})).toContain("name the audit file");
  });
});

describe("GitHub client", () => {
  it("retries a secondary rate limit and then succeeds", async () => {
    const github = await startFakeGitHub({ token: TOKEN });
    github.failNext({
      status: 403,
      message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
      headers: { "retry-after": "1" },
    });
    const retries: string[] = [];
    const client = createGitHubClient({
      token: TOKEN,
      apiUrl: github.url,
      retryAfterBaseMs: 5,
      onRetry: (message) => retries.push(message),
    });
    const result = await upsertPullRequestComment(
      client,
      { owner: "acme", repo: "widgets", number: 3 },
      `${COMMENT_MARKER}\nhi`,
    );
    expect(result.action).toBe("created");
    expect(retries).toMatchInlineSnapshot(`
      [
        "GitHub secondary rate limit on GET /repos/{owner}/{repo}/issues/{issue_number}/comments; retrying in 1s",
      ]
    `);
    expect(github.requests.map((request) => request.method)).toEqual(["GET", "GET", "POST"]);
  });

  it("turns an API failure into one error without the token", async () => {
    const github = await startFakeGitHub({ token: TOKEN });
    github.failNext({ status: 404, message: "Not Found" });
    const client = createGitHubClient({ token: TOKEN, apiUrl: github.url });
    await expect(
      upsertPullRequestComment(client, { owner: "acme", repo: "widgets", number: 3 }, "x"),
    ).rejects.toThrowErrorMatchingInlineSnapshot(
      `[ImpactError: GitHub API: 404: Not Found (does GITHUB_TOKEN have pull-requests/issues write access to this repository?)]`,
    );
  });

  it("says an HTML page answered instead of quoting it", async () => {
    const github = await startFakeGitHub({ token: TOKEN });
    github.failNext({ status: 404, message: "Page not found", html: true });
    const client = createGitHubClient({ token: TOKEN, apiUrl: github.url });
    const error = await upsertPullRequestComment(
      client,
      { owner: "acme", repo: "widgets", number: 3 },
      "x",
    ).catch((caught: unknown) => caught as Error);
    expect((error as Error).message).toBe(
      "GitHub API: 404: the answer was text/html, not GitHub's JSON (is GITHUB_API_URL the API root, e.g. https://api.github.com?)",
    );
  });
});

describe("review suggestions", () => {
  // The PR itself rewrote lines 3-5 of docs/guide.md; Impact then fixed line 4 and inserted after 5,
  // and also fixed line 9, which the PR did not touch.
  const prPatch =
    "@@ -1,5 +1,5 @@\n # Guide\n \n-Old intro.\n-Use `--user` to log in.\n-Then run it.\n+New intro.\n+Use `--user` to log in.\n+Then run it.\n";
  const articlePatch =
    "--- a/docs/guide.md\n+++ b/docs/guide.md\n@@ -3,7 +3,8 @@\n New intro.\n-Use `--user` to log in.\n+Use `--account` to log in.\n Then run it.\n+It asks for a password.\n \n ## More\n \n-Pass --user again.\n+Pass --account again.\n";
  const audit = () =>
    auditOf([
      auditArticle("docs/guide.md", {
        patch: articlePatch,
        edits: [
          {
            kind: "replace",
            reason: "The flag is now --account.",
            startLine: 4,
            endLine: 4,
            evidence: ["src/auth.ts:3"],
          },
          {
            kind: "replace",
            reason: "Login now asks for a password.",
            startLine: 6,
            endLine: 6,
            evidence: [],
          },
        ],
      }),
      auditArticle("docs/other.md"),
    ]);

  it("suggests only the edits on lines the PR changed, anchoring insertions on the line before", () => {
    expect([...diffRightLines(prPatch)]).toEqual([1, 2, 3, 4, 5]);
    expect(
      buildSuggestions(audit(), new Map([["docs/guide.md", diffRightLines(prPatch)]])),
    ).toMatchInlineSnapshot(`
      [
        {
          "body": "The flag is now --account.

      \`\`\`suggestion
      Use \`--account\` to log in.
      \`\`\`

      <sub>Impact</sub>",
          "line": 4,
          "path": "docs/guide.md",
          "startLine": 4,
        },
        {
          "body": "Login now asks for a password.

      \`\`\`suggestion
      Then run it.
      It asks for a password.
      \`\`\`

      <sub>Impact</sub>",
          "line": 5,
          "path": "docs/guide.md",
          "startLine": 5,
        },
      ]
    `);
  });

  it("posts them as one review, once, with --suggestions", async () => {
    const github = await startFakeGitHub({ token: TOKEN });
    github.setPullFiles("acme/widgets", 11, [
      { filename: "src/auth.ts", patch: "@@ -1 +1 @@\n-a\n+b\n" },
      { filename: "docs/guide.md", patch: prPatch },
    ]);
    const dir = makeTempDir();
    writeAudit(dir, audit());
    const env = {
      GITHUB_TOKEN: TOKEN,
      GITHUB_API_URL: github.url,
      ...UNTHROTTLED,
      GITHUB_REPOSITORY: "acme/widgets",
    };
    const first = captureIo(dir, env);
    expect(await main(["comment", "audit.json", "--pr", "11", "--suggestions"], first)).toBe(0);
    expect(first.err).toBe("");
    expect(first.out).toContain("impact comment: 2 new review suggestions on lines the PR changed\n");
    const again = captureIo(dir, env);
    expect(await main(["comment", "audit.json", "--pr", "11", "--suggestions"], again)).toBe(0);
    expect(again.out).toContain("impact comment: 0 new review suggestions");
    const review = github.reviewComments("acme/widgets", 11);
    expect(review.map(({ path, line, commit_id }) => ({ path, line, commit_id }))).toEqual([
      { path: "docs/guide.md", line: 4, commit_id: "b".repeat(40) },
      { path: "docs/guide.md", line: 5, commit_id: "b".repeat(40) },
    ]);
    expect(github.requests.filter((request) => request.path.endsWith("/reviews"))).toHaveLength(1);
  });
});

describe("the marker", () => {
  it("prefers the bot's marked comment over a person's copy of the marker", async () => {
    const github = await startFakeGitHub({ token: TOKEN });
    const spoof = github.seed("acme/widgets", 4, `${COMMENT_MARKER}\nI typed the marker myself`, "mallory");
    const own = github.seed("acme/widgets", 4, `${COMMENT_MARKER}\nold verdict`, "github-actions[bot]");
    const client = createGitHubClient({ token: TOKEN, apiUrl: github.url });
    const target = { owner: "acme", repo: "widgets", number: 4 };
    const result = await upsertPullRequestComment(client, target, `${COMMENT_MARKER}\nnew verdict`);
    expect(result).toMatchObject({ action: "updated", id: own.id });
    expect(github.comments("acme/widgets", 4).map((comment) => comment.body)).toEqual([
      spoof.body,
      `${COMMENT_MARKER}\nnew verdict`,
    ]);
  });
});
