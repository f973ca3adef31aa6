import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { UsageError } from "../../shared/errors.js";
import { buildSuggestions, hasCommentWorthyArticles, renderComment } from "../../shared/render/comment.js";
import { readAuditFile } from "../audit/files.js";
import {
  createGitHubClient,
  parseRepository,
  postReviewSuggestions,
  pullRequestDiffLines,
  upsertPullRequestComment,
} from "../audit/github.js";
import { writeStepSummary } from "../audit/step-summary.js";
import type { Command } from "../io.js";
import { parseCommandArgs, parsePositiveInt } from "./args.js";

const HELP = `Usage: impact comment <audit.json> --pr N [--repo owner/name] [--suggestions] [--dry-run] [--quiet]

Posts the audit as one comment on a pull request, found again by a hidden marker and
updated on every run. When no article was updated or failed, nothing is posted and an
earlier comment is deleted.

  --pr N             the pull request number (default: from GITHUB_EVENT_PATH in Actions)
  --repo owner/name  the GitHub repository (default: GITHUB_REPOSITORY)
  --suggestions      also post edits that fall on lines the PR changed as review
                     suggestions (one click to commit); needs the audit's head to be
                     the PR's head
  --dry-run          print the comment body; write nothing to GitHub
  --quiet            print nothing on success

Environment: GITHUB_TOKEN (required unless --dry-run), GITHUB_API_URL (GitHub Enterprise),
GITHUB_STEP_SUMMARY (the body is added to the job summary when set).
`;

export const command: Command = async (argv, io) => {
  const { values, positionals } = parseCommandArgs(
    "comment",
    argv,
    {
      pr: { type: "string" },
      repo: { type: "string" },
      "dry-run": { type: "boolean" },
      suggestions: { type: "boolean" },
      quiet: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    true,
  );
  if (values.help) {
    io.stdout(HELP);
    return 0;
  }
  const [auditPath, ...extra] = positionals;
  if (auditPath === undefined) throw new UsageError("name the audit file (impact comment <audit.json>)");
  if (extra.length > 0)
    throw new UsageError(`one audit at a time (merge shards first), got ${positionals.length}`);

  const audit = await readAuditFile(resolve(io.cwd, auditPath), auditPath);
  const worthy = hasCommentWorthyArticles(audit);
  const rendered = worthy ? renderComment(audit) : null;

  if (values["dry-run"]) {
    io.stdout(
      rendered ? rendered.body : "impact comment: nothing to post (no article was updated or failed)\n",
    );
    return 0;
  }

  const token = io.env.GITHUB_TOKEN;
  if (!token) throw new UsageError("GITHUB_TOKEN is not set (or use --dry-run)");
  const repository = values.repo ?? io.env.GITHUB_REPOSITORY;
  if (!repository) throw new UsageError("no repository; pass --repo owner/name or set GITHUB_REPOSITORY");
  const { owner, repo } = parseRepository(repository);
  const number = parsePositiveInt("pr", values.pr) ?? (await pullRequestFromEvent(io.env));
  if (number === undefined) throw new UsageError("no pull request; pass --pr N");

  const client = createGitHubClient({
    token,
    ...(io.env.GITHUB_API_URL ? { apiUrl: io.env.GITHUB_API_URL } : {}),
    ...(io.env.IMPACT_GITHUB_THROTTLE === "off" ? { throttle: false } : {}),
    onRetry: (message) => {
      if (!values.quiet) io.stderr(`impact comment: ${message}\n`);
    },
  });
  const result = await upsertPullRequestComment(client, { owner, repo, number }, rendered?.body ?? null);

  let suggested: number | undefined;
  if (values.suggestions && rendered) {
    const target = { owner, repo, number };
    const suggestions = buildSuggestions(audit, await pullRequestDiffLines(client, target));
    suggested = await postReviewSuggestions(client, target, audit.head, suggestions);
  }

  const summary = rendered ? rendered.body : "### Impact: no doc article needs changes after this change.\n";
  await writeStepSummary(summary, io.env);

  if (!values.quiet) {
    const where = `${owner}/${repo}#${number}`;
    const line =
      result.action === "created"
        ? `created the comment on ${where}: ${result.url}`
        : result.action === "updated"
          ? `updated the comment on ${where}: ${result.url}`
          : result.action === "unchanged"
            ? `the comment on ${where} is already up to date: ${result.url}`
            : result.action === "deleted"
              ? `nothing to post; deleted the earlier comment on ${where}`
              : `nothing to post on ${where} (no article was updated or failed)`;
    const folded =
      rendered && rendered.folded.length > 0 ? ` (${rendered.folded.length} diffs folded to fit)` : "";
    io.stdout(`impact comment: ${line}${folded}\n`);
    if (suggested !== undefined) {
      io.stdout(
        `impact comment: ${suggested} new review suggestion${suggested === 1 ? "" : "s"} on lines the PR changed\n`,
      );
    }
  }
  return 0;
};

/** In GitHub Actions, the pull request number of a pull_request event. */
async function pullRequestFromEvent(env: Record<string, string | undefined>): Promise<number | undefined> {
  if (!env.GITHUB_EVENT_PATH) return undefined;
  try {
    const event = JSON.parse(await readFile(env.GITHUB_EVENT_PATH, "utf8")) as {
      pull_request?: { number?: unknown };
      number?: unknown;
    };
    const number = event.pull_request?.number ?? event.number;
    return typeof number === "number" && Number.isInteger(number) && number > 0 ? number : undefined;
  } catch {
    return undefined;
  }
}
