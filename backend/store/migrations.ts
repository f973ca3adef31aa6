import { UsageError } from "../../shared/errors.js";
import type { SqlDriver } from "./driver.js";

/**
 * The state schema, one entry per version, applied in order and never edited once
 * released: a change is a new entry. Each statement is valid SQLite and Postgres alike
 * (BIGINT for millisecond times and ids).
 */
export const MIGRATIONS: ReadonlyArray<{ version: number; statements: readonly string[] }> = [
  {
    version: 1,
    statements: [
      // Delivery ids and signed-body digests seen (key `delivery:<id>` or `body:<sha256>`).
      "CREATE TABLE deliveries (key TEXT PRIMARY KEY, seen_at BIGINT NOT NULL)",
      "CREATE INDEX deliveries_seen_at ON deliveries (seen_at)",
      // Each pull request's latest head (and its `updated_at`).
      `CREATE TABLE pull_requests (
        repository TEXT NOT NULL,
        number BIGINT NOT NULL,
        head_sha TEXT NOT NULL,
        updated_at TEXT,
        changed_at BIGINT NOT NULL,
        PRIMARY KEY (repository, number)
      )`,
      // One row per accepted delivery; state: queued, running, done, failed, dropped, superseded.
      `CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        repository TEXT NOT NULL,
        number BIGINT NOT NULL,
        head_sha TEXT NOT NULL,
        base_sha TEXT NOT NULL,
        clone_url TEXT NOT NULL,
        installation_id BIGINT,
        updated_at TEXT,
        state TEXT NOT NULL,
        attempts BIGINT NOT NULL DEFAULT 0,
        enqueued_at BIGINT NOT NULL,
        claimed_by TEXT,
        claimed_at BIGINT,
        heartbeat_at BIGINT,
        finished_at BIGINT,
        reason TEXT
      )`,
      "CREATE INDEX jobs_state ON jobs (state, enqueued_at)",
      "CREATE INDEX jobs_pull_request ON jobs (repository, number, state)",
    ],
  },
  {
    version: 2,
    statements: [
      // The id of the bot's comment on each pull request, so a job updates it without a search.
      "ALTER TABLE pull_requests ADD COLUMN comment_id BIGINT",
      // The result cache shared by every instance: one row per repository and key, the
      // entry's JSON text, its size and when a job last used it (the oldest go past the cap).
      `CREATE TABLE result_cache (
        repository TEXT NOT NULL,
        key TEXT NOT NULL,
        entry TEXT NOT NULL,
        bytes BIGINT NOT NULL,
        used_at BIGINT NOT NULL,
        PRIMARY KEY (repository, key)
      )`,
      "CREATE INDEX result_cache_used_at ON result_cache (repository, used_at)",
    ],
  },
];

const SCHEMA_TABLE =
  "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at BIGINT NOT NULL)";
/** Instances starting at once on one Postgres take turns migrating. */
const MIGRATION_LOCK = 7_115_301;

/**
 * Brings the database to the newest schema of `migrations` (tests pass an older list to
 * make the database an older Impact made); refuses one written by a newer Impact.
 */
export async function migrate(
  driver: SqlDriver,
  now = Date.now(),
  migrations: typeof MIGRATIONS = MIGRATIONS,
): Promise<number> {
  return driver.transaction(async (tx) => {
    if (driver.kind === "postgres") await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.query(SCHEMA_TABLE);
    const [row] = await tx.query<{ version: number | null }>(
      "SELECT max(version) AS version FROM schema_migrations",
    );
    const current = Number(row?.version ?? 0);
    const newest = migrations[migrations.length - 1]!.version;
    if (current > newest) {
      throw new UsageError(
        `the state database at ${driver.location} has schema version ${current}, newer than this Impact knows (${newest}); run a newer Impact`,
        { code: "config" },
      );
    }
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      for (const statement of migration.statements) await tx.query(statement);
      await tx.query("INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)", [
        migration.version,
        now,
      ]);
    }
    return newest;
  });
}
