import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Audit, AuditSchema } from "../../shared/audit.js";
import { UsageError } from "../../shared/errors.js";
import { writeFileAtomic } from "../../shared/fs.js";
import { combinedPatch } from "../../shared/merge.js";
import { describeFirstIssue } from "../../shared/zod-issues.js";

/** Writes the audit JSON and the combined patch, each atomically (temp file + rename). */
export async function writeAuditFiles(audit: Audit, paths: { out: string; patch: string }): Promise<void> {
  await writeFileAtomic(paths.out, `${JSON.stringify(audit, null, 2)}\n`);
  await writeFileAtomic(paths.patch, combinedPatch(audit));
}

/** The folder of the default outputs, relative to the repository root. */
export const OUTPUT_DIR = ".impact";

/**
 * Makes `.impact/` ignore itself (a `.gitignore` holding `*`), so the default outputs never
 * show up in `git status` or get committed by a docs PR by accident. An existing file is kept.
 */
export async function ignoreOutputDir(repoRoot: string): Promise<void> {
  const dir = join(repoRoot, OUTPUT_DIR);
  await mkdir(dir, { recursive: true });
  try {
    await writeFile(join(dir, ".gitignore"), "# Impact's outputs (audit, patch); not for committing.\n*\n", {
      flag: "wx",
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
}

/**
 * Reads an audit back (a trust boundary): a missing file, bad JSON or a schema failure
 * is one usage error line naming the file and the first bad field.
 */
export async function readAuditFile(path: string, shown: string = path): Promise<Audit> {
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
