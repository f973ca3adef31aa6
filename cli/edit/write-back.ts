import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../../shared/fs.js";
import { contentHash } from "../../shared/hash.js";

export type WriteBack = { ok: true } | { ok: false; currentHash: string | null };

/**
 * Writes an edited file to disk atomically, but only while the file still has the hash the
 * edits were made against (null: it must still be missing): a file changed on disk since it
 * was read is never overwritten.
 */
export async function writeIfUnchanged(
  root: string,
  path: string,
  hashBefore: string | null,
  content: string,
): Promise<WriteBack> {
  const absolute = join(root, path);
  const currentHash = await readFile(absolute).then(
    (bytes) => contentHash(bytes),
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    },
  );
  if (currentHash !== hashBefore) return { ok: false, currentHash };
  if (hashBefore === null) await mkdir(dirname(absolute), { recursive: true });
  await writeFileAtomic(absolute, content);
  return { ok: true };
}
