/**
 * Memory and time caps against hostile input (a hostile model, a crafted diff, audit or
 * webhook), in one place. Those a user may need to raise are configurable: the tool-host
 * ones through impact.config.json `limits`, the plan ones through `limits` too, the server
 * ones through environment variables (docs/tools-and-sandbox.md, docs/backend.md).
 */

// The run: flags and config override these (the settings table, shared/settings.ts).

/** Articles worked on at once (--concurrency, config concurrency), and the most a run may ask for. */
export const DEFAULT_CONCURRENCY = 4;
export const CONCURRENCY_LIMIT = 64;
/** Model calls per article before it fails (--max-turns, config maxTurns), and the most a run may ask for. */
export const DEFAULT_MAX_TURNS = 12;
export const MAX_TURNS_LIMIT = 100;
/** Prompt + completion tokens one article may spend before it is failed (limits.tokensPerArticle). */
export const DEFAULT_TOKENS_PER_ARTICLE = 300_000;
/** Prompt + completion tokens the whole run may spend; articles that would go past it fail (limits.tokensPerRun). */
export const DEFAULT_TOKENS_PER_RUN = 5_000_000;
/** Tokens of diff hunks the first message carries; the rest is named in a note. */
export const FIRST_MESSAGE_DIFF_TOKENS = 6_000;
/** Articles above this many tokens go in as their relevant sections instead of in full. */
export const FIRST_MESSAGE_ARTICLE_TOKENS = 12_000;
/** Related articles the judge reads by default (config judge.maxArticles), and the most it may be set to. */
export const DEFAULT_JUDGE_MAX_ARTICLES = 20;
export const JUDGE_MAX_ARTICLES_LIMIT = 1_000;
/** Bytes of the change's hunks, and of the article, one judge prompt carries; the rest is named as cut. */
export const JUDGE_DIFF_BYTES = 12 * 1024;
export const JUDGE_ARTICLE_BYTES = 24 * 1024;
/** Model answers that were not usable (empty, protocol errors) tolerated per article. */
export const MAX_PROTOCOL_RETRIES = 2;
/** One model request (OpenAI-compatible API) gets this long. */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** The preflight's one request gets this long. */
export const PREFLIGHT_TIMEOUT_MS = 15_000;
/** One turn through the router gets this long (the router itself waits on the model). */
export const DEFAULT_ROUTER_TIMEOUT_MS = 180_000;

// git and the plan.

/**
 * Impacted articles scoring below this are left out of the plan by default (so are those far
 * below the change's strongest article, RELATIVE_MIN_SCORE in cli/plan/score.ts). Chosen on
 * the truth bench (the older half of each corpus repository's commits): together with the
 * relative bar, the value with the best recall at a precision of about 0.5
 * (docs/configuration.md gives the figures; config minScore, --min-score).
 */
export const DEFAULT_MIN_SCORE = 0.3;

/**
 * A change that removes or renames at least this many public names, written by at least
 * SWEEP_MIN_ARTICLES flagged articles, is shown as one sweep (cli/plan/name-sweep.ts): the
 * articles listed under one line saying what the change did, not as independent findings.
 */
export const SWEEP_MIN_NAMES = 10;
/** Flagged articles writing an old name that make a sweep (with SWEEP_MIN_NAMES). */
export const SWEEP_MIN_ARTICLES = 10;

/** Output of one git command kept at most (a diff has its own cap, DEFAULT_DIFF_LIMITS). */
export const GIT_OUTPUT_BYTES = 512 * 1024 * 1024;
/** How long an idle object reader waits for the command's next read before its git process ends. */
export const OBJECT_READER_IDLE_MS = 5_000;
/** Commits the history scan reads back from the base, newest first. */
export const HISTORY_MAX_COMMITS = 3000;
/** Wall-clock budget of one `git log` for history; what arrived by then is used. */
export const HISTORY_TIMEOUT_MS = 10_000;
/** A commit that touches more files than this is a sweep (a rename, a reformat): no coupling evidence. */
export const HISTORY_MAX_FILES_PER_COMMIT = 30;
/**
 * Co-changes needed before a pair counts as coupled: a pair that changed together once or
 * twice (one docs push years ago) is chance, not coupling (cli/plan/history.ts).
 */
export const HISTORY_MIN_SUPPORT = 3;
/**
 * Commits added to a file's count before the co-change ratio is taken: "1 of 2" is no
 * coupling yet, "6 of 8" is. Smooths thin history toward zero.
 */
export const HISTORY_SMOOTHING = 4;
/** Share of a file's commits that must also change the article. */
export const HISTORY_MIN_CONFIDENCE = 0.05;
/** At most this many history articles per changed file (the strongest). */
export const HISTORY_MAX_ARTICLES_PER_FILE = 3;
/** How far back the backtest looks for commits that changed both code and docs. */
export const BACKTEST_SCAN_LIMIT = 5000;
/** `impact mcp`: a request line longer than this is answered with an error and skipped, never buffered whole. */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

// The tool host.

/** After this many identical failing calls, the answer says plainly to stop repeating it. */
export const REPEATED_FAILURE_THRESHOLD = 2;
/** Characters of a matching line shown in a search_repo result. */
export const SEARCH_LINE_CHARS = 240;
/** Longest regex search_repo accepts. */
export const MAX_REGEX_LENGTH = 500;

/** Bytes per tool result; a longer result is cut with a note saying so (limits.toolResultBytes). */
export const DEFAULT_TOOL_RESULT_BYTES = 32_000;
/** Matching lines per search_repo call (limits.searchMatches). */
export const DEFAULT_SEARCH_MATCHES = 50;
/** Paths per list_files call (limits.listFiles). */
export const DEFAULT_LIST_FILES = 200;
/** Tool calls answered per model turn; the rest get an error result (limits.toolCallsPerTurn). */
export const DEFAULT_TOOL_CALLS_PER_TURN = 16;
/** Lines per read_file page when the model gives no limit (limits.readPageLines). */
export const DEFAULT_READ_PAGE_LINES = 400;
/** Time budget of one regex search_repo call, in milliseconds (limits.regexTimeoutMs). */
export const DEFAULT_REGEX_TIMEOUT_MS = 2_000;
/** Files larger than this are never loaded whole: read_file refuses them, search_repo skips them. */
export const DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024;

/** An edit batch may not make an article longer than this many characters. */
export const DEFAULT_ARTICLE_CHARS = 1_000_000;
/** One edit batch may add at most this many characters to an article. */
export const DEFAULT_EDIT_GROWTH_CHARS = 200_000;

/** Alias expansions allowed in an article's YAML frontmatter (YAML alias bombs). */
export const FRONTMATTER_MAX_ALIASES = 100;

/** The diff's caps (config `limits.diffBytes`, `limits.fileDiffBytes`), for resolveLimits. */
export const DEFAULT_DIFF_LIMITS = {
  /** Bytes of diff `plan` and `run` read; files past it are listed as skipped in the plan. */
  diffBytes: 64 * 1024 * 1024,
  /** Bytes of one file's part of the diff; a larger file is listed as skipped in the plan. */
  fileDiffBytes: 4 * 1024 * 1024,
};
/**
 * A changed file with a changed line longer than this is minified or generated (a bundled
 * `highlight.js`, a data table): its symbols are not read. No article names them, and each
 * changed line is scanned by several patterns.
 */
export const MAX_SYMBOL_LINE_CHARS = 2_000;

/**
 * File versions the declaration cache (`.impact/cache/declarations/`) keeps: those of the
 * latest plan, then older ones up to this many (a few hundred bytes each), so a plan over
 * the next change of the same files parses only what that change added.
 */
export const MAX_CACHED_DECLARATION_FILES = 20_000;

/**
 * Bytes of files the read tools (search_repo, read_file, outline_article) hold at once,
 * across every article of a run: parallel searches over large files wait for each other
 * instead of loading gigabytes (config `limits.readBytesInFlight`).
 */
export const DEFAULT_READ_BYTES_IN_FLIGHT = 128 * 1024 * 1024;

/** Request bodies of the router's turn endpoint (`impact serve`); larger ones get 413. */
export const TURN_BODY_LIMIT = 10 * 1024 * 1024;
/** Webhook bodies (GitHub's own cap); larger ones get 413, as soon as they pass it. */
export const WEBHOOK_BODY_LIMIT = 25 * 1024 * 1024;
/**
 * Webhook bodies read at once before their signature is known; more get 503 at once
 * (IMPACT_WEBHOOK_CONCURRENT_BODIES). Unsigned senders hold at most this many times
 * WEBHOOK_BODY_LIMIT of memory.
 */
export const WEBHOOK_CONCURRENT_BODIES = 8;
/** A webhook body must arrive within this time; a slower one is dropped (408), freeing its slot. */
export const WEBHOOK_BODY_READ_MS = 10_000;

/** Completion tokens the router asks the upstream for at most, whatever the client wants (IMPACT_ROUTER_MAX_TOKENS). */
export const DEFAULT_ROUTER_MAX_TOKENS = 8192;
/** Tokens (prompt and completion) one router bearer token may use per window (IMPACT_ROUTER_TOKENS_PER_DAY). */
export const DEFAULT_ROUTER_TOKENS_PER_DAY = 5_000_000;
/** The window of the router's token budget. */
export const ROUTER_TOKEN_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Bytes of a turn's messages counted as one token when a prompt is estimated before it is sent. */
export const ROUTER_BYTES_PER_TOKEN = 4;

// The PR bot's queue and store: caps and timings, each configurable by the environment
// variable named beside it (see docs/backend.md).

/** IMPACT_BOT_MAX_PENDING: jobs waiting at most, all repositories together. */
export const DEFAULT_BOT_MAX_PENDING = 100;
/**
 * IMPACT_BOT_MAX_PENDING_PER_REPOSITORY: jobs one repository may have waiting, so that one
 * repository's flood of pull requests cannot lock out the others.
 */
export const DEFAULT_BOT_MAX_PENDING_PER_REPOSITORY = 20;
/** A job that was running when its server died runs again; one that dies this often fails. */
export const JOB_MAX_ATTEMPTS = 2;
/** IMPACT_DRAIN_TIMEOUT_MS: on SIGTERM, running jobs get this long to finish before they go back to the queue. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 25_000;
/** How often a worker looks for queued jobs other instances took (it is also woken by its own deliveries). */
export const JOB_POLL_MS = 1_000;
/** A running job's instance renews its claim this often ... */
export const JOB_HEARTBEAT_MS = 5_000;
/**
 * IMPACT_JOB_LEASE_MS: ... and another instance takes a running job back into the queue
 * when its claim was not renewed for this long (its instance died).
 */
export const DEFAULT_JOB_LEASE_MS = 60_000;
/** Delivery ids and body digests are remembered this long (GitHub redelivers within days at most, by hand). */
export const DELIVERY_TTL_MS = 26 * 60 * 60 * 1000;
/** Finished jobs stay in the store this long (for the metrics and an operator's look). */
export const FINISHED_JOB_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * A pull request's row (latest head, comment id) is swept when no delivery came for this
 * long and it has no job waiting or running: closed and abandoned PRs do not pile up.
 */
export const PULL_REQUEST_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** A cached result no job used for this long is swept, whatever its repository's cap. */
export const RESULT_CACHE_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Old deliveries, finished jobs, idle pull requests and unused cached results are swept this often. */
export const STORE_SWEEP_MS = 10 * 60 * 1000;
/**
 * IMPACT_RESULT_CACHE_BYTES_PER_REPOSITORY: bytes of cached results the state store keeps
 * per repository (shared by every instance); past it the least recently used go first.
 * Each job reads its repository's entries, so this also bounds what one job reads.
 */
export const DEFAULT_RESULT_CACHE_BYTES_PER_REPOSITORY = 16 * 1024 * 1024;
/** A single cached result larger than this is not kept by the PR bot (it is rerun next time). */
export const RESULT_CACHE_ENTRY_MAX_BYTES = 2 * 1024 * 1024;
/** Asking the GitHub API for a PR's head, or for an installation token, gives up after this long. */
export const GITHUB_API_TIMEOUT_MS = 30_000;

/**
 * The one rule for caps given in layers (flags, then the config, then the defaults): each
 * key takes the first layer's value that is a finite number above 0, rounded down; other
 * values (undefined, keys the defaults lack) are ignored.
 */
export function resolveLimits<Limits extends { [Key in keyof Limits]: number }>(
  defaults: Readonly<Limits>,
  ...layers: { [Key in keyof Limits]?: number | undefined }[]
): Limits {
  const limits = { ...defaults } as Limits;
  for (const key of Object.keys(defaults) as (keyof Limits)[]) {
    for (const layer of layers) {
      const value = layer[key];
      if (typeof value === "number" && Number.isFinite(value) && value > 0) {
        limits[key] = Math.floor(value) as Limits[keyof Limits];
        break;
      }
    }
  }
  return limits;
}

/**
 * Characters of the project's style instructions (config `instructions`, or the default
 * files) that go into an article's first message, over all files; the rest is cut with a
 * note saying so.
 */
export const INSTRUCTIONS_MAX_CHARS = 8_000;

/** Time one `vale` run (the after-edit style check) may take before it is stopped and skipped. */
export const VALE_TIMEOUT_MS = 30_000;
/** Bytes of `vale --output=JSON` read; a longer report is not parsed (the check is skipped). */
export const VALE_OUTPUT_BYTES = 1024 * 1024;
/** Vale findings listed in one tool result; the rest are counted. */
export const VALE_FINDINGS_SHOWN = 20;

/**
 * Code nested deeper than this (brackets, or declarations inside declarations) is not
 * parsed: the native TS/JS parser recurses per level and crashes the process (not an
 * exception) somewhere past 8,000 levels on a worker thread; real code stays under 100.
 */
export const MAX_CODE_NESTING = 1_000;
/**
 * TS/JS: operators chained in one expression (between `,` `;` and brackets) past this are
 * not parsed either; the parser recurses on `a => a => …` and `a ? b : a ? …` chains too.
 */
export const MAX_CODE_OPERATOR_CHAIN = 4_000;

/**
 * `impact mcp`: tool calls that run at once; the rest wait in a queue. 150 parallel regex
 * searches held 879 MB and 161 threads without a cap.
 */
export const MCP_CALLS_IN_FLIGHT = 4;
/** `impact mcp`: calls that may wait beyond those running; one more gets a "busy" error result at once. */
export const MCP_CALLS_QUEUED = 32;

/** Tokens one model answer may report per usage field; more is no real answer (the context windows are far smaller). */
export const MAX_USAGE_TOKENS = 100_000_000;

/**
 * Frontmatter nested deeper than this (flow brackets, or columns of indentation) is
 * reported as invalid, not parsed: the YAML library recurses per level, and past about a
 * thousand levels a stack overflow left it unable to compile its patterns, which then
 * killed the process on the next article.
 */
export const FRONTMATTER_MAX_NESTING = 64;
export const FRONTMATTER_MAX_INDENT = 256;

/**
 * A name at least this many code files of the base declare (tests and docs left out) is
 * boilerplate, not evidence (cli/plan/boilerplate-names.ts): `code` and `name` in every error
 * class, `request` in every transport.
 */
export const BOILERPLATE_DECLARING_FILES = 5;
/** The change's names asked about at most (one `git grep` at the base holds them all). */
export const MAX_BOILERPLATE_CANDIDATES = 200;
