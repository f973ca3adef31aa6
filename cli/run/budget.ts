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
