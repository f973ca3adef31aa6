/** Runs SQL written with `$1, $2 …` placeholders (each driver adapts them to its database). */
export interface SqlExecutor {
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
}

/** One database behind the state store: embedded SQLite or a shared Postgres. */
export interface SqlDriver extends SqlExecutor {
  readonly kind: "sqlite" | "postgres";
  /** Where the state lives, for logs and /healthz: a file path, or host/database (never a password). */
  readonly location: string;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
