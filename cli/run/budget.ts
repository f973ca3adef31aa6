import { type ModelPrice, roundUsd } from "../../shared/model/prices.js";

/** Named caps of the agent loop. Flags and config override the defaults. */
export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_MAX_TURNS = 12;
/** Prompt + completion tokens one article may spend before it is failed. */
export const DEFAULT_TOKENS_PER_ARTICLE = 300_000;
/** Prompt + completion tokens the whole run may spend; articles that would go past it fail. */
export const DEFAULT_TOKENS_PER_RUN = 5_000_000;
/** Tokens of diff hunks the first message carries; the rest is named in a note. */
export const FIRST_MESSAGE_DIFF_TOKENS = 6_000;
/** Articles above this many tokens go in as their relevant sections instead of in full. */
export const FIRST_MESSAGE_ARTICLE_TOKENS = 12_000;
/** Model answers that were not usable (empty, protocol errors) tolerated per article. */
export const MAX_PROTOCOL_RETRIES = 2;

/** The caps of one run, each decided once: the flag, then the config, then the default. */
export interface RunLimits {
  concurrency: number;
  maxTurns: number;
  tokensPerArticle: number;
  tokensPerRun: number;
}

const DEFAULT_RUN_LIMITS: RunLimits = {
  concurrency: DEFAULT_CONCURRENCY,
  maxTurns: DEFAULT_MAX_TURNS,
  tokensPerArticle: DEFAULT_TOKENS_PER_ARTICLE,
  tokensPerRun: DEFAULT_TOKENS_PER_RUN,
};

/** Each cap from the first layer that sets it (flags before config), else its default. */
export function resolveRunLimits(...layers: { [Key in keyof RunLimits]?: number | undefined }[]): RunLimits {
  const limits = { ...DEFAULT_RUN_LIMITS };
  for (const key of Object.keys(limits) as (keyof RunLimits)[]) {
    const set = layers.find((layer) => layer[key] !== undefined)?.[key];
    if (set !== undefined) limits[key] = set;
  }
  return limits;
}

/** A rough token count (about four characters a token) for budgeting text before sending it. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The run's token budget, shared by all articles running concurrently. */
export class RunBudget {
  #used = 0;
  constructor(readonly limit: number) {}

  get used(): number {
    return this.#used;
  }

  spend(tokens: number): void {
    this.#used += tokens;
  }

  get exhausted(): boolean {
    return this.#used >= this.limit;
  }
}

/** Output tokens one model call may spend under `--max-cost`, at most (`max_completion_tokens`). */
export const COST_CAPPED_COMPLETION_TOKENS = 8_192;
/** Under `--max-cost`, a call whose budget leaves fewer output tokens than this is not made. */
export const COST_CAPPED_MIN_COMPLETION_TOKENS = 256;
/**
 * Characters a prompt token is counted at when a call's cost is reserved: fewer than the four
 * of `estimateTokens`, so the reservation errs high (code and JSON tokenise densely).
 */
const RESERVED_CHARS_PER_TOKEN = 3;

/**
 * The run's dollar cap (`--max-cost`), shared by all articles running concurrently: each
 * model call reserves what it can cost at most (its prompt, estimated high, plus the output
 * tokens it is allowed) before it is sent, and is charged what it really cost when it
 * returns. A call that does not fit next to what was spent and what is reserved is not
 * made, so concurrent articles cannot pass the cap together.
 */
export class CostBudget {
  #spent = 0;
  #reserved = 0;
  constructor(
    readonly capUsd: number,
    readonly price: ModelPrice,
  ) {}

  get spentUsd(): number {
    return this.#spent;
  }

  /**
   * Reserves one call of `promptChars` characters (messages and tools as sent): the output
   * tokens it may use, and a `settle(actualUsd)` to call when it returned (`undefined` when
   * its usage is unknown: the reservation is then charged). Undefined when it does not fit.
   */
  reserve(promptChars: number): { maxTokens: number; settle: (actualUsd?: number) => void } | undefined {
    const promptUsd = (Math.ceil(promptChars / RESERVED_CHARS_PER_TOKEN) * this.price.input) / 1_000_000;
    const room = this.capUsd - this.#spent - this.#reserved - promptUsd;
    const perOutputToken = this.price.output / 1_000_000;
    const affordable = perOutputToken > 0 ? Math.floor(room / perOutputToken) : COST_CAPPED_COMPLETION_TOKENS;
    const maxTokens = Math.min(COST_CAPPED_COMPLETION_TOKENS, affordable);
    if (room < 0 || maxTokens < COST_CAPPED_MIN_COMPLETION_TOKENS) return undefined;
    const reserved = roundUsd(promptUsd + maxTokens * perOutputToken);
    this.#reserved = roundUsd(this.#reserved + reserved);
    let settled = false;
    return {
      maxTokens,
      settle: (actualUsd) => {
        if (settled) return;
        settled = true;
        this.#reserved = roundUsd(this.#reserved - reserved);
        this.#spent = roundUsd(this.#spent + (actualUsd ?? reserved));
      },
    };
  }
}
