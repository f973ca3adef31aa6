import {
  DEFAULT_CONCURRENCY,
  DEFAULT_MAX_TURNS,
  DEFAULT_TOKENS_PER_ARTICLE,
  DEFAULT_TOKENS_PER_RUN,
  resolveLimits,
} from "../../shared/limits.js";

/** The caps of one run, each decided once: the flag, then the config, then the default. */
export interface RunLimits {
  concurrency: number;
  maxTurns: number;
  tokensPerArticle: number;
  tokensPerRun: number;
}

const DEFAULT_RUN_LIMITS: Readonly<RunLimits> = {
  concurrency: DEFAULT_CONCURRENCY,
  maxTurns: DEFAULT_MAX_TURNS,
  tokensPerArticle: DEFAULT_TOKENS_PER_ARTICLE,
  tokensPerRun: DEFAULT_TOKENS_PER_RUN,
};

/** Each cap from the first layer that sets it (flags before config), else its default (resolveLimits). */
export function resolveRunLimits(...layers: { [Key in keyof RunLimits]?: number | undefined }[]): RunLimits {
  return resolveLimits(DEFAULT_RUN_LIMITS, ...layers);
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
