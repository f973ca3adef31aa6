import { resolve } from "node:path";
import { UsageError } from "../../shared/errors.js";
import { createGitHubClient } from "../../shared/github-client.js";
import { buildSuggestions, hasCommentWorthyArticles, renderComment } from "../../shared/render/comment.js";
import { plural } from "../../shared/render/markdown.js";
import { readAuditFile } from "../audit/files.js";
import {
  parseRepository,
  postReviewSuggestions,
  pullRequestDiffLines,
  upsertPullRequestComment,
} from "../audit/github.js";
import { readPullRequestEvent } from "../audit/github-event.js";
import { writeStepSummary } from "../audit/step-summary.js";
import { gitHubDocsRepository, OUTPUT_OPTIONS, parsePositiveInt } from "./args.js";
import { defineCommand } from "./define-command.js";

export const command = defineCommand({
  name: "comment",
  usage: "<audit.json> --pr N [options]",
  description: `Posts the audit as one comment on a pull request, found again by a hidden marker (or by
--comment-id) and updated on every run. When no article was updated or failed, nothing is
posted and an earlier comment is deleted.`,
  positionals: { usage: "<audit.json>", noun: "audit file", min: 1, max: 1 },
  options: {
    pr: {
      type: "string",
      value: "N",
      help: "the pull request number (default: from GITHUB_EVENT_PATH in Actions)",
    },
    repo: { type: "string", value: "owner/name", help: "the GitHub repository (default: GITHUB_REPOSITORY)" },
    "docs-repo": {
      type: "string",
      value: "owner/name",
      help: "the docs repository on GitHub, for an audit of a separate docs repository: named and linked in the comment",
    },
    "comment-id": {
      type: "string",
      value: "ID",
      help: "the comment an earlier run wrote (its id in --json); read directly, no search, unless it is gone or not the bot's",
    },
    suggestions: {
      type: "boolean",
      help: "also post edits on lines the PR changed as review suggestions (needs the audit's head to be the PR's head)",
    },
    "dry-run": { type: "boolean", help: "print the comment body; write nothing to GitHub" },
    json: {
      type: "boolean",
      help: "print one JSON object: action (created, updated, unchanged, deleted, none), id, url",
    },
    quiet: OUTPUT_OPTIONS.quiet,
  },
  footer: `Environment: GITHUB_TOKEN (required unless --dry-run), GITHUB_API_URL (GitHub Enterprise),
GITHUB_STEP_SUMMARY (the body is added to the job summary when set).`,
  run: async ({ values, positionals, io }) => {
    // One audit at a time: shards are merged first (impact merge).
    const auditPath = positionals[0]!;

    const audit = await readAuditFile(resolve(io.cwd, auditPath), auditPath);
    const worthy = hasCommentWorthyArticles(audit);
    const docsRepository = gitHubDocsRepository(values["docs-repo"], io.env.GITHUB_SERVER_URL);
    const rendered = worthy ? renderComment(audit, docsRepository ? { docsRepository } : {}) : null;

    const commentId = parsePositiveInt("comment-id", values["comment-id"]);
    if (values["dry-run"]) {
      if (values.json) {
        io.stdout(`${JSON.stringify({ dryRun: true, body: rendered?.body ?? null })}\n`);
        return 0;
      }
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
    const number = parsePositiveInt("pr", values.pr) ?? (await readPullRequestEvent(io.env))?.number;
    if (number === undefined) throw new UsageError("no pull request; pass --pr N");

    const client = createGitHubClient({
      token,
      // An empty variable is unset.
      apiUrl: io.env.GITHUB_API_URL || undefined,
      ...(io.env.IMPACT_GITHUB_THROTTLE === "off" ? { throttle: false } : {}),
      onRetry: (message) => {
        if (!values.quiet) io.stderr(`impact comment: ${message}\n`);
      },
    });
    const result = await upsertPullRequestComment(client, { owner, repo, number }, rendered?.body ?? null, {
      commentId,
    });

    let suggested: number | undefined;
    if (values.suggestions && rendered) {
      const target = { owner, repo, number };
      const suggestions = buildSuggestions(audit, await pullRequestDiffLines(client, target));
      suggested = await postReviewSuggestions(client, target, audit.head, suggestions);
    }

    const summary = rendered
      ? rendered.body
      : "### Impact: no doc article needs changes after this change.\n";
    await writeStepSummary(summary, io.env);

    if (values.json) {
      // For the PR bot (and scripts): it keeps `id` and passes it back as --comment-id.
      io.stdout(
        `${JSON.stringify({ repository: `${owner}/${repo}`, pr: number, ...result, suggestions: suggested })}\n`,
      );
    } else if (!values.quiet) {
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
        io.stdout(`impact comment: ${plural(suggested, "new review suggestion")} on lines the PR changed\n`);
      }
    }
    return 0;
  },
});
