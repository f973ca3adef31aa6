import { mkdir, readFile, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { DirectoryChanged, prepareAtomicWrite } from "../../shared/fs.js";
import { contentHash } from "../../shared/hash.js";
import type { ResolvedPath } from "../run/sandbox.js";

export type WriteBack =
  | { ok: true }
  | { ok: false; currentHash: string | null }
  | { ok: false; directoryChanged: DirectoryChanged };

/**
 * Writes an edited file to disk atomically, but only while the file still has the hash the
 * edits were made against (null: it must still be missing): a file changed on disk since it
 * was read is never overwritten. The write lands at the real path the sandbox resolved
 * (`target`, checked by the caller's write guard): through a symlinked file it changes the
 * file the link leads to and leaves the link a link, as `impact apply` does. The write goes
 * through the directory as it is right now, checked to be inside the repository and held
 * open without following a symlink (the same guard as `impact apply`), so a directory
 * swapped for a symlink after the path was checked fails closed instead of writing outside
 * the repository.
 */
export async function writeIfUnchanged(
  root: string,
  target: Pick<ResolvedPath, "realPath">,
  hashBefore: string | null,
  content: string,
): Promise<WriteBack> {
  const absolute = target.realPath;
  const currentHash = await readFile(absolute).then(
    (bytes) => contentHash(bytes),
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    },
  );
  if (currentHash !== hashBefore) return { ok: false, currentHash };
  const directory = dirname(absolute);
  if (hashBefore === null) await mkdir(directory, { recursive: true });
  const realDirectory = await realpath(directory);
  const inside = relative(await realpath(root), realDirectory);
  if (inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside))
    return { ok: false, directoryChanged: new DirectoryChanged(directory, realDirectory) };
  const prepared = await prepareAtomicWrite(join(realDirectory, basename(absolute)), content, {
    realDirectory,
  });
  try {
    await prepared.verify();
    await prepared.commit();
  } catch (error) {
    await prepared.abort();
    if (error instanceof DirectoryChanged) return { ok: false, directoryChanged: error };
    throw error;
  }
  return { ok: true };
}
