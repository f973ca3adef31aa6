import { resolve } from "node:path";
import type { Audit } from "../../shared/audit.js";
import { UsageError } from "../../shared/errors.js";
import { writeFilesAtomic } from "../../shared/fs.js";
import { combinedPatch, mergeAudits } from "../../shared/merge.js";
import { plural } from "../../shared/render/markdown.js";
import { readAuditFile } from "../audit/files.js";
import { OUTPUT_OPTIONS } from "./args.js";
import { defineCommand } from "./define-command.js";

export const command = defineCommand({
  name: "merge",
  usage: "<audit.json...> --out FILE [options]",
  description: `Merges the audits of sharded runs (impact run --shard I/N) into one: each article once,
totals recomputed. Audits of different base/head are refused (exit 2, nothing written).`,
  positionals: { usage: "<audit.json...>", noun: "audit files", min: 1, max: Number.POSITIVE_INFINITY },
  options: {
    out: { type: "string", value: "FILE", help: "where to write the merged audit (required)" },
    patch: { type: "string", value: "FILE", help: "also write the combined patch of the merged audit" },
    ...OUTPUT_OPTIONS,
  },
  run: async ({ values, positionals, io }) => {
    if (!values.out) throw new UsageError("--out FILE is required");

    const audits: Audit[] = [];
    for (const path of positionals) audits.push(await readAuditFile(resolve(io.cwd, path), path));
    const merged = mergeAudits(audits);

    // Both files are written in full before either is renamed into place.
    await writeFilesAtomic([
      { path: resolve(io.cwd, values.out), content: `${JSON.stringify(merged, null, 2)}\n` },
      ...(values.patch ? [{ path: resolve(io.cwd, values.patch), content: combinedPatch(merged) }] : []),
    ]);
    const { totals } = merged;
    if (values.json) {
      io.stdout(`${JSON.stringify({ out: resolve(io.cwd, values.out), audits: audits.length, totals })}\n`);
    } else if (!values.quiet) {
      io.stdout(
        `merged ${plural(audits.length, "audit")} into ${values.out}: ${totals.articles} articles (${totals.updated} updated, ${totals.unchanged} unchanged, ${totals.failed} failed)\n`,
      );
    }
    return 0;
  },
});
