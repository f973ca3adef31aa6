import { resolve } from "node:path";
import { UsageError } from "../../shared/errors.js";
import { renderHtmlReport } from "../../shared/render/html.js";
import { renderReport } from "../../shared/render/report.js";
import { readAuditFile } from "../audit/files.js";
import { gitHubDocsRepository } from "./args.js";
import { defineCommand } from "./define-command.js";

const FORMATS = ["markdown", "html", "json"] as const;

export const command = defineCommand({
  name: "report",
  description: `Renders an audit (from impact run) for people: a summary table, then per article the
reasons it was checked, each edit's reason and evidence, and the diff. --format html
prints one self-contained page (nothing fetched) whose evidence links to the head commit
on GitHub when the repository is known (GITHUB_SERVER_URL for Enterprise), and where a
reviewer unticks edits to get the impact apply --only/--exclude command for the rest.`,
  positionals: { usage: "<audit>", noun: "audit file", min: 1, max: 1 },
  options: {
    format: {
      type: "string",
      value: "markdown|html|json",
      help: "markdown (default), html: one self-contained page, or json: the validated audit",
    },
    repo: {
      type: "string",
      value: "OWNER/NAME",
      help: "the GitHub repository, for evidence links in the HTML page (default: GITHUB_REPOSITORY)",
    },
    "docs-repo": {
      type: "string",
      value: "OWNER/NAME",
      help: "the docs repository on GitHub, for an audit of a separate docs repository: named, and its evidence linked",
    },
  },
  run: async ({ values, positionals, io }) => {
    const format = values.format ?? "markdown";
    if (!(FORMATS as readonly string[]).includes(format)) {
      throw new UsageError(`--format takes markdown, html or json, got "${format}"`);
    }
    const repository = values.repo ?? io.env.GITHUB_REPOSITORY;
    if (repository !== undefined && !/^[\w.-]+\/[\w.-]+$/.test(repository)) {
      throw new UsageError(`--repo takes a GitHub repository as OWNER/NAME, got "${repository}"`);
    }
    const docsRepository = gitHubDocsRepository(values["docs-repo"], io.env.GITHUB_SERVER_URL);
    const audit = await readAuditFile(resolve(io.cwd, positionals[0]!));
    if (format === "json") io.stdout(`${JSON.stringify(audit, null, 2)}\n`);
    else if (format === "html") {
      io.stdout(
        renderHtmlReport(audit, {
          auditPath: positionals[0]!,
          repository,
          docsRepository: docsRepository?.fullName,
          // An empty variable is unset.
          serverUrl: io.env.GITHUB_SERVER_URL || undefined,
        }),
      );
    } else io.stdout(renderReport(audit, docsRepository ? { docsRepository } : {}));
    return 0;
  },
});
