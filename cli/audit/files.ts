import { readFile } from "node:fs/promises";
import { type Audit, AuditSchema } from "../../shared/audit.js";
import { UsageError } from "../../shared/errors.js";
import { writeFileAtomic } from "../../shared/fs.js";
import { combinedPatch } from "../../shared/merge.js";
import { describeFirstIssue } from "../../shared/zod-issues.js";
import { isTrackedWorkdirFile } from "../workdir/workdir.js";

/** Writes the audit JSON and the combined patch, each atomically (temp file + rename). */
export async function writeAuditFiles(audit: Audit, paths: { out: string; patch: string }): Promise<void> {
  await writeFileAtomic(paths.out, `${JSON.stringify(audit, null, 2)}\n`);
  await writeFileAtomic(paths.patch, combinedPatch(audit));
}

/**
 * Reads an audit back (a trust boundary): a missing file, bad JSON or a schema failure
 * is one usage error line naming the file and the first bad field; so is an audit under a
 * repository's `.impact/` that git tracks (a pull request's, not one Impact wrote).
 */
export async function readAuditFile(path: string, shown: string = path): Promise<Audit> {
  if (await isTrackedWorkdirFile(path)) {
    throw new UsageError(
      `${shown} is tracked by git, so it is the repository's content, not an audit Impact wrote: run impact run to write one`,
      { code: "input" },
    );
  }
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : String(error);
    throw new UsageError(`cannot read audit ${shown}: ${reason}`, { code: "input", cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${shown} is not an audit: not valid JSON`, { code: "input", cause: error });
  }
  const parsed = AuditSchema.safeParse(json);
  if (!parsed.success) {
    throw new UsageError(
      `${shown} is not an audit: ${describeFirstIssue(parsed.error.issues, { root: "(top level)" })}`,
      {
        code: "input",
      },
    );
  }
  return parsed.data;
}
