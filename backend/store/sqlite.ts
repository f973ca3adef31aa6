import { mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import sqlite from "node-sqlite3-wasm";
import { UsageError } from "../../shared/errors.js";
import type { SqlDriver, SqlExecutor } from "./driver.js";

/** The state database's file name inside IMPACT_DATA_DIR. */
export const SQLITE_FILE = "state.sqlite";
/** Holds the pid of the one `impact serve` using the data folder. */
const OWNER_FILE = "state.owner";

/**
 * Opens (creating when absent) the embedded SQLite state database in `dataDir`.
 *
 * The binding is SQLite compiled to WebAssembly that reads and writes the file through
 * Node's fs (no native build, nothing downloaded at install). It journals in rollback
 * mode with fsync on commit (`synchronous=FULL`), so a commit survives a crash and a
 * half-written one is rolled back on the next open. One process owns the folder: a second
 * `impact serve` on the same folder is refused (several instances share Postgres instead).
 */
export function openSqlite(dataDir: string): SqlDriver {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, SQLITE_FILE);
  claimFolder(dir);
  // The binding locks with a `<file>.lock` directory; one left by a killed process is stale
  // now that this process owns the folder.
  rmSync(`${file}.lock`, { recursive: true, force: true });
  let database: InstanceType<typeof sqlite.Database>;
  try {
    database = new sqlite.Database(file);
    database.exec("PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL; PRAGMA busy_timeout=5000;");
    const check = database.all("PRAGMA quick_check") as Array<Record<string, unknown>>;
    const verdict = check.map((row) => String(Object.values(row)[0])).join("; ");
    if (verdict !== "ok") throw new Error(verdict);
  } catch (error) {
    releaseFolder(dir);
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(
      `the state database ${file} is unreadable or corrupt (${reason}); impact serve will not start on it. Restore it from a backup, or move it away to start with empty state`,
      { code: "config", cause: error },
    );
  }
  const run: SqlExecutor["query"] = async (sql, params = []) =>
    database.all(toSqlite(sql), params.map(toSqliteValue) as never) as never;
  // The binding is synchronous and has one connection: transactions take turns so that
  // no other query slips into one between its awaits.
  let turn: Promise<unknown> = Promise.resolve();
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const result = turn.then(work, work);
    turn = result.catch(() => undefined);
    return result;
  };
  return {
    kind: "sqlite",
    location: file,
    query: (sql, params) => serialized(() => run(sql, params)),
    transaction: (work) =>
      serialized(async () => {
        database.exec("BEGIN IMMEDIATE");
        try {
          const result = await work({ query: run });
          database.exec("COMMIT");
          return result;
        } catch (error) {
          if (database.inTransaction) database.exec("ROLLBACK");
          throw error;
        }
      }),
    close: () =>
      serialized(async () => {
        if (database.isOpen) database.close();
        releaseFolder(dir);
      }),
  };
}

/** `$1` → `?1`: SQLite's numbered parameters bind by the same numbers. */
function toSqlite(sql: string): string {
  return sql.replace(/\$(\d+)/g, "?$1");
}

function toSqliteValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

function claimFolder(dir: string): void {
  const owner = join(dir, OWNER_FILE);
  let pid: number | undefined;
  try {
    pid = Number(readFileSync(owner, "utf8").trim());
  } catch {
    pid = undefined;
  }
  if (pid && pid !== process.pid && isAlive(pid)) {
    throw new UsageError(
      `the data folder ${dir} is in use by process ${pid} (another impact serve); stop it first, give each instance its own IMPACT_DATA_DIR, or share state through DATABASE_URL`,
      { code: "config" },
    );
  }
  writeFileSync(owner, `${process.pid}\n`);
}

function releaseFolder(dir: string): void {
  const owner = join(dir, OWNER_FILE);
  try {
    if (Number(readFileSync(owner, "utf8").trim()) === process.pid) unlinkSync(owner);
  } catch {
    // Already gone.
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
