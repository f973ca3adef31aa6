import { ModelProtocolError } from "../errors.js";
import { MAX_USAGE_TOKENS } from "../limits.js";
import type { ModelUsage } from "./types.js";

/**
 * The usage block of a model answer, checked: each count a whole number from 0 to
 * MAX_USAGE_TOKENS. Anything else (negative, fractional, a string, absurd) is a protocol
 * problem, so it can neither lower the run's spend below what it was (and slip past
 * `--max-cost`) nor break the totals; the runner then counts the call at its estimate.
 * A field left out counts 0, as the API documents it.
 */
export function checkedUsage(usage: {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  cached_tokens?: unknown;
}): ModelUsage {
  const count = (field: string, value: unknown): number => {
    if (value === undefined || value === null) return 0;
    if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_USAGE_TOKENS)
      return value;
    const shown = JSON.stringify(value)?.slice(0, 40) ?? String(value);
    throw new ModelProtocolError(
      `the model API reported invalid usage: ${field} is ${shown}, not a whole number of tokens from 0 to ${MAX_USAGE_TOKENS}`,
    );
  };
  const promptTokens = count("prompt_tokens", usage.prompt_tokens);
  const completionTokens = count("completion_tokens", usage.completion_tokens);
  const cached = Math.min(count("cached_tokens", usage.cached_tokens), promptTokens);
  return { promptTokens, completionTokens, ...(cached > 0 ? { cachedPromptTokens: cached } : {}) };
}
