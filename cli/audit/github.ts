import { ImpactError, UsageError } from "../../shared/errors.js";
import type { GitHubClient } from "../../shared/github-client.js";
import { redactSecrets } from "../../shared/redact.js";
import { COMMENT_MARKER, diffRightLines, type ReviewSuggestion } from "../../shared/render/comment.js";
import { plural } from "../../shared/render/markdown.js";

const PAGE_SIZE = 100;

/** `owner/name` → its two parts, or a UsageError. */
export function parseRepository(fullName: string): { owner: string; repo: string } {
  const match = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(fullName.trim());
  if (!match) throw new UsageError(`--repo takes owner/name, got "${fullName}"`);
  return { owner: match[1]!, repo: match[2]! };
}

export interface PullRequestTarget {
  owner: string;
  repo: string;
  number: number;
}

/**
 * What the upsert did, and how it found the comment it changed: `id` when the comment id it
 * was given still named the bot's comment on this PR, `marker` when it searched the PR's
 * comments for COMMENT_MARKER.
 */
export type UpsertResult =
  | { action: "created"; id: number; url: string }
  | { action: "updated" | "unchanged"; id: number; url: string; foundBy: "id" | "marker" }
  | { action: "deleted"; id: number; foundBy: "id" | "marker" }
  | { action: "none" };

interface IssueComment {
  id: number;
  body?: string;
  html_url: string;
  issue_url?: string;
  user?: { type?: string } | null;
}

/**
 * Keeps exactly one Impact comment on a pull request: creates it, updates it, or (with
 * `body` null) deletes it. With `commentId` (remembered from an earlier run) that comment
 * is read directly; when it is gone (404) or is not a bot's marked comment on this PR, the
 * comment is found as without it: by COMMENT_MARKER at the start of its body (a bot's
 * first). Extra marked comments found by that search (from an older, racing run) are
 * deleted so there is never a second one.
 */
export async function upsertPullRequestComment(
  client: GitHubClient,
  target: PullRequestTarget,
  body: string | null,
  options: { commentId?: number | undefined } = {},
): Promise<UpsertResult> {
  const base = { owner: target.owner, repo: target.repo };
  const byId =
    options.commentId === undefined ? undefined : await markedCommentById(client, target, options.commentId);
  const foundBy = byId ? "id" : "marker";
  const existing = byId ?? (await markedCommentBySearch(client, target));
  if (body === null) {
    if (!existing) return { action: "none" };
    await call(() =>
      client.request("DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}", {
        ...base,
        comment_id: existing.id,
      }),
    );
    return { action: "deleted", id: existing.id, foundBy };
  }
  if (existing) {
    if (existing.body === body)
      return { action: "unchanged", id: existing.id, url: existing.html_url, foundBy };
    const response = await call(() =>
      client.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", {
        ...base,
        comment_id: existing.id,
        body,
      }),
    );
    return { action: "updated", id: Number(response.data.id), url: response.data.html_url, foundBy };
  }
  const response = await call(() =>
    client.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      ...base,
      issue_number: target.number,
      body,
    }),
  );
  return { action: "created", id: Number(response.data.id), url: response.data.html_url };
}

/**
 * The comment `id` when it is a bot's comment on this very pull request that starts with
 * COMMENT_MARKER; undefined when it was deleted (404) or is anything else (a person's, another
 * PR's), so that a stale or wrong id never makes the bot edit a comment it does not own.
 */
async function markedCommentById(
  client: GitHubClient,
  target: PullRequestTarget,
  id: number,
): Promise<IssueComment | undefined> {
  let comment: IssueComment;
  try {
    const response = await client.request("GET /repos/{owner}/{repo}/issues/comments/{comment_id}", {
      owner: target.owner,
      repo: target.repo,
      comment_id: id,
    });
    comment = response.data as IssueComment;
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined;
    throw gitHubError(error);
  }
  const issuePath = `/repos/${target.owner}/${target.repo}/issues/${target.number}`.toLowerCase();
  const onThisPullRequest = (comment.issue_url ?? "").toLowerCase().endsWith(issuePath);
  const marked = (comment.body ?? "").trimStart().startsWith(COMMENT_MARKER);
  return onThisPullRequest && marked && comment.user?.type === "Bot" ? comment : undefined;
}

/** The PR's marked comment by a search of all its comments; deletes the extras. */
async function markedCommentBySearch(
  client: GitHubClient,
  target: PullRequestTarget,
): Promise<IssueComment | undefined> {
  const marked = (await listIssueComments(client, target)).filter((comment) =>
    (comment.body ?? "").trimStart().startsWith(COMMENT_MARKER),
  );
  // Anyone can type the marker. Actions and app tokens post as bots, so a bot's marked
  // comment wins over a person's; only with no bot's (a personal token) are people's used.
  const bots = marked.filter((comment) => comment.user?.type === "Bot");
  const [existing, ...extras] = bots.length > 0 ? bots : marked;
  for (const extra of extras) {
    await call(() =>
      client.request("DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}", {
        owner: target.owner,
        repo: target.repo,
        comment_id: extra.id,
      }),
    );
  }
  return existing;
}

async function listIssueComments(client: GitHubClient, target: PullRequestTarget): Promise<IssueComment[]> {
  // Bounded: 100 pages of 100 comments is more than any PR this bot should be on.
  return listPages<IssueComment>(100, (page) =>
    client.request("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner: target.owner,
      repo: target.repo,
      issue_number: target.number,
      per_page: PAGE_SIZE,
      page,
    }),
  );
}

/** The items of a paged GitHub list, page 1 on, until a page comes back short or `maxPages` were read. */
async function listPages<Item>(
  maxPages: number,
  request: (page: number) => Promise<{ data: unknown }>,
): Promise<Item[]> {
  const all: Item[] = [];
  for (let page = 1; page <= maxPages; page++) {
    const items = (await call(() => request(page))).data as Item[];
    all.push(...items);
    if (items.length < PAGE_SIZE) break;
  }
  return all;
}

/** GitHub API failures as one clear ImpactError, with no token in the message. */
async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw gitHubError(error);
  }
}

function gitHubError(error: unknown): ImpactError {
  const status = (error as { status?: number }).status;
  const { message, fromGitHub } = apiMessage(error);
  const hint = !fromGitHub
    ? ""
    : status === 401
      ? " (is GITHUB_TOKEN valid?)"
      : status === 403 || status === 404
        ? " (does GITHUB_TOKEN have pull-requests/issues write access to this repository?)"
        : "";
  return new ImpactError(
    "github",
    redactSecrets(`GitHub API: ${status ?? "request failed"}: ${message}${hint}`),
    {
      cause: error,
    },
  );
}

/**
 * What GitHub said, from the error's response: its JSON `message`, or, when the answer was
 * not JSON (a proxy's or a login page's HTML), a short note instead of the page.
 */
function apiMessage(error: unknown): { message: string; fromGitHub: boolean } {
  const response = (error as { response?: { data?: unknown; headers?: Record<string, string | undefined> } })
    .response;
  const data = response?.data;
  if (data && typeof data === "object" && typeof (data as { message?: unknown }).message === "string") {
    return { message: (data as { message: string }).message, fromGitHub: true };
  }
  if (response !== undefined) {
    const type = response.headers?.["content-type"]?.split(";")[0] ?? "no content type";
    if (type !== "application/json") {
      return {
        message: `the answer was ${type}, not GitHub's JSON (is GITHUB_API_URL the API root, e.g. https://api.github.com?)`,
        fromGitHub: false,
      };
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message: message.split("\n")[0]!.slice(0, 300), fromGitHub: true };
}

/** Per file of a pull request, the lines of its head version that the PR's diff shows. */
export async function pullRequestDiffLines(
  client: GitHubClient,
  target: PullRequestTarget,
): Promise<Map<string, Set<number>>> {
  // GitHub lists at most 3,000 files of a pull request, 100 a page.
  const files = await listPages<{ filename: string; patch?: string }>(30, (page) =>
    client.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/files", {
      owner: target.owner,
      repo: target.repo,
      pull_number: target.number,
      per_page: PAGE_SIZE,
      page,
    }),
  );
  const lines = new Map<string, Set<number>>();
  for (const file of files) {
    if (file.patch) lines.set(file.filename, diffRightLines(file.patch));
  }
  return lines;
}

/**
 * Posts suggestions as one review ("COMMENT") on `commitId`, leaving out those already on
 * the PR (same path, line and body), so a re-run adds nothing twice. Returns how many were posted.
 */
export async function postReviewSuggestions(
  client: GitHubClient,
  target: PullRequestTarget,
  commitId: string,
  suggestions: readonly ReviewSuggestion[],
): Promise<number> {
  if (suggestions.length === 0) return 0;
  const comments = await listPages<{ path: string; line?: number | null; body: string }>(100, (page) =>
    client.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/comments", {
      owner: target.owner,
      repo: target.repo,
      pull_number: target.number,
      per_page: PAGE_SIZE,
      page,
    }),
  );
  const existing = new Set(
    comments.map((comment) => `${comment.path}:${comment.line ?? ""}:${comment.body}`),
  );
  const fresh = suggestions.filter((item) => !existing.has(`${item.path}:${item.line}:${item.body}`));
  if (fresh.length === 0) return 0;
  await call(() =>
    client.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews", {
      owner: target.owner,
      repo: target.repo,
      pull_number: target.number,
      commit_id: commitId,
      event: "COMMENT",
      body: `Impact: ${plural(fresh.length, "suggested doc edit")} on lines this pull request changed; each can be committed in one click.`,
      comments: fresh.map((item) => ({
        path: item.path,
        line: item.line,
        side: "RIGHT" as const,
        ...(item.startLine < item.line ? { start_line: item.startLine, start_side: "RIGHT" as const } : {}),
        body: item.body,
      })),
    }),
  );
  return fresh.length;
}
