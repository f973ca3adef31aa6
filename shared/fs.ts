import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import {
  type FileHandle,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  realpath,
  rename,
  stat,
  unlink,
} from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * A directory on the path of a write is no longer the one that was checked: it was
 * replaced by a symlink, or moved, between the check and the write. Nothing was written.
 */
export class DirectoryChanged extends Error {
  readonly code = "directory_changed";
  /** The directory as checked (its real path). */
  readonly expected: string;
  /** Where the directory handle or path leads now, when known. */
  readonly actual: string | undefined;
  constructor(expected: string, actual: string | undefined) {
    super(
      `the directory ${expected} was replaced${actual === undefined ? "" : ` (it now leads to ${actual})`} while writing; nothing was written there`,
    );
    this.name = "DirectoryChanged";
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * Temp files are named `.<name>.impact-<12 hex>.tmp` next to their target (same file
 * system, so the rename is atomic): recognisable, so a later run can remove those a killed
 * one left behind.
 */
const TEMP_NAME = /^\..+\.impact-[0-9a-f]{12}\.tmp$/;
/** A temp file older than this was left by a process that died; younger ones may be in use. */
const STALE_TEMP_MS = 10 * 60 * 1000;

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
  /**
   * With `realDirectory`: rejects with DirectoryChanged when the directory opened for the
   * write is no longer at that real path (or the path no longer leads to it).
   */
  verify(): Promise<void>;
  /** Renames the temp file over the target (atomic on POSIX file systems), after `verify()`. */
  commit(): Promise<void>;
  /** Removes the temp file; safe to call after a failed or finished commit. */
  abort(): Promise<void>;
}

export interface AtomicWriteOptions {
  /**
   * The real path (symlinks resolved) the target's directory had when the write was
   * decided. The directory is then opened without following a symlink in its last
   * component, its real path checked against this one when opened and again right before
   * the rename, and on Linux the temp file is written and renamed through the open
   * directory handle (`/proc/self/fd/N`), so a directory swapped for a symlink in between
   * cannot redirect the write: it fails with DirectoryChanged instead.
   */
  realDirectory?: string | undefined;
}

/**
 * Writes `content` to a temp file in the same directory as `path` and fsyncs it, keeping
 * the mode of the file it will replace. Nothing at `path` changes until `commit()`, so a
 * caller can prepare several files and rename them only when all were written.
 */
export async function prepareAtomicWrite(
  path: string,
  content: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<PreparedWrite> {
  const directory = dirname(path);
  const guard =
    options.realDirectory === undefined ? undefined : await openGuard(directory, options.realDirectory);
  // Through the handle where the platform allows it, else by path (checked by `verify`).
  const base = guard?.handlePath ?? directory;
  const tempName = `.${basename(path)}.impact-${randomBytes(6).toString("hex")}.tmp`;
  const tempPath = join(directory, tempName);
  let handle: FileHandle | undefined;
  try {
    let mode: number | undefined;
    try {
      mode = (await stat(join(base, basename(path)))).mode & 0o7777;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    // "wx": never follow or reuse something already sitting at the temp name.
    handle = await open(join(base, tempName), "wx", mode ?? 0o666);
    try {
      await handle.writeFile(content);
      // open() applies the umask; chmod restores the exact mode of the replaced file.
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close().catch(() => {});
    }
  } catch (error) {
    if (handle) await unlink(join(base, tempName)).catch(() => {});
    await guard?.close();
    throw error;
  }
  let settled = false;
  const prepared: PreparedWrite = {
    path,
    tempPath,
    async verify() {
      await guard?.verify();
    },
    async commit() {
      await prepared.verify();
      await rename(join(base, tempName), join(base, basename(path)));
      settled = true;
      await syncDirectory(base);
      await guard?.close();
    },
    async abort() {
      if (settled) return;
      settled = true;
      await unlink(join(base, tempName)).catch(() => {});
      await guard?.close();
    },
  };
  return prepared;
}

/** An open directory whose real path was checked, for writing through it. */
interface DirectoryGuard {
  /** A path that leads to the open directory itself whatever happens to its name (Linux), or undefined. */
  handlePath: string | undefined;
  verify(): Promise<void>;
  close(): Promise<void>;
}

const O_DIRECTORY = constants.O_DIRECTORY;
const O_NOFOLLOW = constants.O_NOFOLLOW;

async function openGuard(directory: string, realDirectory: string): Promise<DirectoryGuard> {
  let handle: FileHandle | undefined;
  // Windows has neither flag; there only the real path is checked (before the write and the rename).
  if (O_DIRECTORY !== undefined && O_NOFOLLOW !== undefined) {
    try {
      handle = await open(directory, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A symlink where the directory was (ELOOP), or a file (ENOTDIR).
      if (code === "ELOOP" || code === "ENOTDIR") throw new DirectoryChanged(realDirectory, undefined);
      throw error;
    }
  }
  const procPath = handle && process.platform === "linux" ? `/proc/self/fd/${handle.fd}` : undefined;
  const handlePath = procPath && (await readlink(procPath).catch(() => undefined)) ? procPath : undefined;
  const verify = async () => {
    // Where the open directory really is now, and where its path leads now: both must be the checked one.
    const held = handlePath ? await readlink(handlePath).catch(() => undefined) : realDirectory;
    const named = await realpath(directory).catch(() => undefined);
    if (held !== realDirectory) throw new DirectoryChanged(realDirectory, held);
    if (named !== realDirectory) throw new DirectoryChanged(realDirectory, named);
  };
  let closed = false;
  const guard: DirectoryGuard = {
    handlePath,
    verify,
    async close() {
      if (closed) return;
      closed = true;
      await handle?.close().catch(() => {});
    },
  };
  try {
    await verify();
  } catch (error) {
    await guard.close();
    throw error;
  }
  return guard;
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
  files: { path: string; content: string | Uint8Array; realDirectory?: string | undefined }[],
): Promise<void> {
  const prepared: PreparedWrite[] = [];
  try {
    for (const file of files) {
      await mkdir(dirname(file.path), { recursive: true });
      prepared.push(await prepareAtomicWrite(file.path, file.content, { realDirectory: file.realDirectory }));
    }
    // Every directory is checked once more before the first rename, so a swap found at the
    // last file does not leave the first ones written.
    for (const write of prepared) await write.verify();
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
