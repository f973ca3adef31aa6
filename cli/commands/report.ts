import { resolve } from "node:path";
import { UsageError } from "../../shared/errors.js";
import { renderHtmlReport } from "../../shared/render/html.js";
import { renderReport } from "../../shared/render/report.js";
import { readAuditFile } from "../audit/files.js";
import type { Command } from "../io.js";
import { parseCommandArgs } from "./args.js";

const HELP = `Usage: impact report <audit> [--format markdown|html|json] [--repo OWNER/NAME]

Renders an audit (from impact run) for people: a summary table, then per article the
reasons it was checked, each edit's reason and evidence, and the diff. --format html
prints one self-contained page (no script, nothing fetched); with --repo (default:
GITHUB_REPOSITORY) its evidence links to the head commit on GitHub (GITHUB_SERVER_URL).
--format json prints the validated audit instead.
`;

const FORMATS = ["markdown", "html", "json"] as const;

export const command: Command = async (argv, io) => {
  const { values, positionals } = parseCommandArgs(
    "report",
    argv,
    { format: { type: "string" }, repo: { type: "string" }, help: { type: "boolean", short: "h" } },
    true,
  );
  if (values.help) {
    io.stdout(HELP);
    return 0;
  }
  if (positionals.length !== 1) {
    throw new UsageError("impact report takes one audit file (see: impact report --help)");
  }
  const format = values.format ?? "markdown";
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format takes markdown, html or json, got "${format}"`);
  }
  const repository = values.repo ?? io.env.GITHUB_REPOSITORY;
  if (repository !== undefined && !/^[\w.-]+\/[\w.-]+$/.test(repository)) {
    throw new UsageError(`--repo takes a GitHub repository as OWNER/NAME, got "${repository}"`);
  }
  const audit = await readAuditFile(resolve(io.cwd, positionals[0]!));
  if (format === "json") io.stdout(`${JSON.stringify(audit, null, 2)}\n`);
  else if (format === "html") {
    io.stdout(
      renderHtmlReport(audit, {
        ...(repository ? { repository } : {}),
        ...(io.env.GITHUB_SERVER_URL ? { serverUrl: io.env.GITHUB_SERVER_URL } : {}),
      }),
    );
  } else io.stdout(renderReport(audit));
  return 0;
};
