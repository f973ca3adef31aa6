import { resolve } from "node:path";
import { UsageError } from "../../shared/errors.js";
import { renderReport } from "../../shared/render/report.js";
import { readAuditFile } from "../audit/files.js";
import { defineCommand } from "./define-command.js";

export const command = defineCommand({
  name: "report",
  description: `Renders an audit (from impact run) for people: a summary table, then per article the
reasons it was checked, each edit's reason and evidence, and the diff.`,
  positionals: { usage: "<audit>", noun: "audit file", min: 1, max: 1 },
  options: {
    format: {
      type: "string",
      value: "markdown|json",
      help: "markdown (default), or json: the validated audit",
    },
  },
  run: async ({ values, positionals, io }) => {
    const format = values.format ?? "markdown";
    if (format !== "markdown" && format !== "json") {
      throw new UsageError(`--format takes markdown or json, got "${format}"`);
    }
    const audit = await readAuditFile(resolve(io.cwd, positionals[0]!));
    io.stdout(format === "json" ? `${JSON.stringify(audit, null, 2)}\n` : renderReport(audit));
    return 0;
  },
});
