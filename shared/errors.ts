import { plural } from "./render/markdown.js";
/**
 * The error family. Split by who is at fault, so that one place (`cli/main.ts`)
 * can turn any of them into the right exit code and message.
 */
export type ImpactErrorCode =
  | "usage"
  | "config"
  | "input"
  | "git"
  | "model_api"
  | "model_protocol"
  | "articles_failed"
  | "stale"
  | "github"
  | "interrupted";

export class ImpactError extends Error {
  readonly code: ImpactErrorCode;
  constructor(code: ImpactErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The user asked for something impossible: bad flag, config or input. Exit 2. */
export class UsageError extends ImpactError {
  constructor(message: string, options?: { cause?: unknown; code?: "usage" | "config" | "input" | "stale" }) {
    super(options?.code ?? "usage", message, options);
  }
}

/** git failed or the repository is not in the state we need. Exit 2 (the user can fix it). */
export class GitError extends ImpactError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("git", message, options);
  }
}

/** Why a model call failed: no answer in time, no connection, an HTTP error status, or no recorded answer to replay. */
export const MODEL_ERROR_REASONS = ["timeout", "connection", "status", "replay"] as const;
export type ModelErrorReason = (typeof MODEL_ERROR_REASONS)[number];

/**
 * The model API failed. `retryable` says whether trying again may help; `reason` and
 * `status` say what happened, `retryAfterMs` how long the server asked us to wait.
 */
export class ModelApiError extends ImpactError {
  readonly retryable: boolean;
  readonly reason: ModelErrorReason;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  /** The error code the API's answer carried (`model_not_found`, the router's `model_not_allowed`), if any. */
  readonly apiCode: string | undefined;
  constructor(
    message: string,
    options: {
      retryable: boolean;
      reason: ModelErrorReason;
      status?: number | undefined;
      retryAfterMs?: number | undefined;
      apiCode?: string | undefined;
      cause?: unknown;
    },
  ) {
    super("model_api", message, options);
    this.retryable = options.retryable;
    this.reason = options.reason;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.apiCode = options.apiCode;
  }
}

/** The model answered something we cannot use. */
export class ModelProtocolError extends ImpactError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("model_protocol", message, options);
  }
}

/** The run finished and wrote its audit, but at least one article failed. Exit 1. */
export class ArticlesFailed extends ImpactError {
  readonly failed: number;
  constructor(failed: number) {
    super("articles_failed", `${plural(failed, "article")} failed; see the audit for reasons`);
    this.failed = failed;
  }
}

/** `impact plan --check` found impacted articles left untouched. Exit 3. */
export class CheckFailed extends ImpactError {
  constructor(message: string) {
    super("usage", message);
  }
}

/** The run was interrupted (SIGINT/SIGTERM). Exit 130. */
export class Interrupted extends ImpactError {
  constructor(message = "interrupted") {
    super("interrupted", message);
  }
}

export function isAbortError(error: unknown): boolean {
  return (
    error instanceof Interrupted ||
    (error instanceof Error && (error.name === "AbortError" || error.name === "APIUserAbortError"))
  );
}
