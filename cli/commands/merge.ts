import { resolve } from "node:path";
import type { Audit } from "../../shared/audit.js";
import { UsageError } from "../../shared/errors.js";
import { writeFilesAtomic } from "../../shared/fs.js";
import { combinedPatch, mergeAudits } from "../../shared/merge.js";
import { readAuditFile } from "../audit/files.js";
import type { Command } from "../io.js";
import { parseCommandArgs } from "./args.js";

const HELP = `Usage: impact merge <audit.json...> --out FILE [--patch FILE] [--quiet]

Merges the audits of sharded runs (impact run --shard I/N) into one: each article once,
totals recomputed. Audits of different base/head are refused (exit 2, nothing written).

  --out FILE     where to write the merged audit (required)
  --patch FILE   also write the combined patch of the merged audit
  --quiet        print nothing on success
`;

export const command: Command = async (argv, io) => {
  const { values, positionals } = parseCommandArgs(
    "merge",
    argv,
    {
      out: { type: "string" },
      patch: { type: "string" },
      quiet: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    true,
  );
  if (values.help) {
    io.stdout(HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError("name at least one audit file");
  if (!values.out) throw new UsageError("--out FILE is required");

  const audits: Audit[] = [];
  for (const path of positionals) audits.push(await readAuditFile(resolve(io.cwd, path), path));
  const merged = mergeAudits(audits);

  // Both files are written in full before either is renamed into place.
  await writeFilesAtomic([
    { path: resolve(io.cwd, values.out), content: `${JSON.stringify(merged, null, 2)}\n` },
    ...(values.patch ? [{ path: resolve(io.cwd, values.patch), content: combinedPatch(merged) }] : []),
  ]);
  if (!values.quiet) {
    const { totals } = merged;
    io.stdout(
      `merged ${audits.length} audit${audits.length === 1 ? "" : "s"} into ${values.out}: ${totals.articles} articles (${totals.updated} updated, ${totals.unchanged} unchanged, ${totals.failed} failed)\n`,
    );
  }
  return 0;
};
