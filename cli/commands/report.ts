import { resolve } from "node:path";
import { UsageError } from "../../shared/errors.js";
import { renderReport } from "../../shared/render/report.js";
import { readAuditFile } from "../audit/files.js";
import type { Command } from "../io.js";
import { parseCommandArgs } from "./args.js";

const HELP = `Usage: impact report <audit> [--format markdown|json]

Renders an audit (from impact run) for people: a summary table, then per article the
reasons it was checked, each edit's reason and evidence, and the diff. --format json
prints the validated audit instead.
`;

export const command: Command = async (argv, io) => {
  const { values, positionals } = parseCommandArgs(
    "report",
    argv,
    { format: { type: "string" }, help: { type: "boolean", short: "h" } },
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
  if (format !== "markdown" && format !== "json") {
    throw new UsageError(`--format takes markdown or json, got "${format}"`);
  }
  const audit = await readAuditFile(resolve(io.cwd, positionals[0]!));
  io.stdout(format === "json" ? `${JSON.stringify(audit, null, 2)}\n` : renderReport(audit));
  return 0;
};
