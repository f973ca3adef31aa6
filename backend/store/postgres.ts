import pg from "pg";
import { UsageError } from "../../shared/errors.js";
import type { SqlDriver, SqlExecutor } from "./driver.js";

/** Connections one instance holds at most (its workers and webhook requests share them). */
const POOL_SIZE = 10;
const INT8_OID = 20;

/**
 * Opens the shared state in Postgres (`DATABASE_URL`), for several `impact serve`
 * instances at once. Fails with one clear line when the database cannot be reached.
 */
export async function openPostgres(url: string): Promise<SqlDriver> {
  const location = describeUrl(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    // Counts and millisecond times are int8; they fit a JavaScript number.
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as never,
    },
  });
  // An idle connection the server dropped must not take the process down.
  pool.on("error", () => {});
  try {
    await pool.query("SELECT 1");
  } catch (error) {
    await pool.end().catch(() => {});
    const reason =
      (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    throw new UsageError(`cannot reach the state database at ${location} (DATABASE_URL): ${reason}`, {
      code: "config",
      cause: error,
    });
  }
  const executor = (client: pg.Pool | pg.PoolClient): SqlExecutor => ({
    query: async (sql, params = []) => (await client.query(sql, params as unknown[])).rows as never,
  });
  return {
    kind: "postgres",
    location,
    ...executor(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await work(executor(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** host:port/database of a postgres URL, without user or password. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || "localhost"}${parsed.port ? `:${parsed.port}` : ""}${parsed.pathname}`;
  } catch {
    throw new UsageError("DATABASE_URL is not a URL; expected postgres://user:password@host:5432/database", {
      code: "config",
    });
  }
}
