import {
  DEFAULT_ARTICLE_CHARS,
  DEFAULT_EDIT_GROWTH_CHARS,
  DEFAULT_LIST_FILES,
  DEFAULT_READ_PAGE_LINES,
  DEFAULT_REGEX_TIMEOUT_MS,
  DEFAULT_SEARCH_MATCHES,
  DEFAULT_TOOL_CALLS_PER_TURN,
  DEFAULT_TOOL_RESULT_BYTES,
  resolveLimits,
} from "../../shared/limits.js";

/** Caps of the tool host; all configurable through impact.config.json `limits`. */
export interface ToolLimits {
  /** Bytes per tool result; a longer result is cut with a note saying so. */
  toolResultBytes: number;
  /** Matching lines per search_repo call. */
  searchMatches: number;
  /** Paths per list_files call. */
  listFiles: number;
  /** Tool calls answered per model turn; the rest get an error result. */
  toolCallsPerTurn: number;
  /** Lines per read_file page when the model gives no limit. */
  readPageLines: number;
  /** Time budget of one regex search_repo call, in milliseconds. */
  regexTimeoutMs: number;
  /** Longest article (characters) an edit_article batch may leave. */
  articleChars: number;
  /** Most characters one edit_article batch may add. */
  editGrowthChars: number;
}

const DEFAULT_TOOL_LIMITS: Readonly<ToolLimits> = Object.freeze({
  toolResultBytes: DEFAULT_TOOL_RESULT_BYTES,
  searchMatches: DEFAULT_SEARCH_MATCHES,
  listFiles: DEFAULT_LIST_FILES,
  toolCallsPerTurn: DEFAULT_TOOL_CALLS_PER_TURN,
  readPageLines: DEFAULT_READ_PAGE_LINES,
  regexTimeoutMs: DEFAULT_REGEX_TIMEOUT_MS,
  articleChars: DEFAULT_ARTICLE_CHARS,
  editGrowthChars: DEFAULT_EDIT_GROWTH_CHARS,
});

/**
 * The defaults overridden by the limits given (resolveLimits). Accepts the config's `limits`
 * object as it is: keys that are not tool limits (token caps) and undefined values are ignored.
 */
export function resolveToolLimits(
  given: Partial<Record<keyof ToolLimits, number | undefined>> = {},
): ToolLimits {
  return resolveLimits(DEFAULT_TOOL_LIMITS, given);
}
