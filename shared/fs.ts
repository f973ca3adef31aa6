import { randomBytes } from "node:crypto";
import { lstat, mkdir, open, readdir, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Temp files are named `.<name>.impact-<12 hex>.tmp` next to their target (same file
 * system, so the rename is atomic): recognisable, so a later run can remove those a killed
 * one left behind.
 */
const TEMP_NAME = /^\..+\.impact-[0-9a-f]{12}\.tmp$/;
/** A temp file older than this was left by a process that died; younger ones may be in use. */
export const STALE_TEMP_MS = 10 * 60 * 1000;

/**
 * Removes the temp files of atomic writes that a killed process left in `directories`
 * (older than `STALE_TEMP_MS`); returns how many. Missing directories are skipped.
 */
export async function sweepStaleTempFiles(directories: Iterable<string>, now = Date.now()): Promise<number> {
  let removed = 0;
  for (const directory of new Set(directories)) {
    let names: string[];
    try {
      names = await readdir(directory);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!TEMP_NAME.test(name)) continue;
      const path = join(directory, name);
      const info = await lstat(path).catch(() => undefined);
      if (!info?.isFile() || now - info.mtimeMs < STALE_TEMP_MS) continue;
      await unlink(path).then(
        () => {
          removed += 1;
        },
        () => {},
      );
    }
  }
  return removed;
}

/** A temp file written and flushed next to its target, waiting to be renamed over it. */
export interface PreparedWrite {
  readonly path: string;
  readonly tempPath: string;
  /** Renames the temp file over the target (atomic on POSIX file systems). */
  commit(): Promise<void>;
  /** Removes the temp file; safe to call after a failed or finished commit. */
  abort(): Promise<void>;
}

/**
 * Writes `content` to a temp file in the same directory as `path` and fsyncs it, keeping
 * the mode of the file it will replace. Nothing at `path` changes until `commit()`, so a
 * caller can prepare several files and rename them only when all were written.
 */
export async function prepareAtomicWrite(path: string, content: string | Uint8Array): Promise<PreparedWrite> {
  const directory = dirname(path);
  const tempPath = join(directory, `.${basename(path)}.impact-${randomBytes(6).toString("hex")}.tmp`);
  let mode: number | undefined;
  try {
    mode = (await stat(path)).mode & 0o7777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  // "wx": never follow or reuse something already sitting at the temp name.
  const handle = await open(tempPath, "wx", mode ?? 0o666);
  try {
    await handle.writeFile(content);
    // open() applies the umask; chmod restores the exact mode of the replaced file.
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(tempPath).catch(() => {});
    throw error;
  }
  await handle.close();
  let settled = false;
  return {
    path,
    tempPath,
    async commit() {
      await rename(tempPath, path);
      settled = true;
      await syncDirectory(directory);
    },
    async abort() {
      if (settled) return;
      settled = true;
      await unlink(tempPath).catch(() => {});
    },
  };
}

/** Writes a file atomically: temp file in the same directory, fsync, rename; keeps the file mode. */
export async function writeFileAtomic(path: string, content: string | Uint8Array): Promise<void> {
  const prepared = await prepareAtomicWrite(path, content);
  try {
    await prepared.commit();
  } catch (error) {
    await prepared.abort();
    throw error;
  }
}

/**
 * Writes several files so that a failure leaves each one either old or new: all are
 * written to temp files (and their directories made) first, and only when every one was
 * written are they renamed into place. On an error the temp files are removed.
 */
export async function writeFilesAtomic(
  files: { path: string; content: string | Uint8Array }[],
): Promise<void> {
  const prepared: PreparedWrite[] = [];
  try {
    for (const file of files) {
      await mkdir(dirname(file.path), { recursive: true });
      prepared.push(await prepareAtomicWrite(file.path, file.content));
    }
    for (const write of prepared) await write.commit();
  } catch (error) {
    await Promise.all(prepared.map((write) => write.abort()));
    throw error;
  }
}

async function syncDirectory(directory: string): Promise<void> {
  // Makes the rename itself durable; some platforms cannot open a directory, which is fine.
  try {
    const handle = await open(directory, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort
  }
}
