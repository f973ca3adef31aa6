/**
 * Memory and time caps against hostile input (a hostile model, a crafted diff, audit or
 * webhook), in one place. Those a user may need to raise are configurable: the tool-host
 * ones through impact.config.json `limits`, the plan ones through `limits` too, the server
 * ones through environment variables (docs/tools-and-sandbox.md, docs/backend.md).
 */

/** An edit batch may not make an article longer than this many characters. */
export const DEFAULT_ARTICLE_CHARS = 1_000_000;
/** One edit batch may add at most this many characters to an article. */
export const DEFAULT_EDIT_GROWTH_CHARS = 200_000;

/** Alias expansions allowed in an article's YAML frontmatter (YAML alias bombs). */
export const FRONTMATTER_MAX_ALIASES = 100;

/** Bytes of diff `plan` and `run` read; files past it are listed as skipped in the plan. */
export const DEFAULT_DIFF_BYTES = 64 * 1024 * 1024;
/** Bytes of one file's part of the diff; a larger file is listed as skipped in the plan. */
export const DEFAULT_FILE_DIFF_BYTES = 4 * 1024 * 1024;

/**
 * Bytes of files the read tools (search_repo, read_file, outline_article) hold at once,
 * across every article of a run: parallel searches over large files wait for each other
 * instead of loading gigabytes (config `limits.readBytesInFlight`).
 */
export const DEFAULT_READ_BYTES_IN_FLIGHT = 128 * 1024 * 1024;
