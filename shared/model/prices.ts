import { z } from "zod";
import type { ModelUsage } from "./types.js";

/** A model's price in US dollars per million tokens. */
export const ModelPriceSchema = z.strictObject({
  input: z.number().nonnegative(),
  /** Prompt tokens served from the provider's prompt cache; default: the `input` price. */
  cachedInput: z.number().nonnegative().optional(),
  output: z.number().nonnegative(),
});

export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/**
 * Standard (not batch) API prices of common models, from https://openai.com/api/pricing/,
 * as of 2025-08-07 (docs/models.md names the day).
 */
export const BUILT_IN_PRICES: Readonly<Record<string, ModelPrice>> = {
  "gpt-5": { input: 1.25, cachedInput: 0.125, output: 10 },
  "gpt-5-mini": { input: 0.25, cachedInput: 0.025, output: 2 },
  "gpt-5-nano": { input: 0.05, cachedInput: 0.005, output: 0.4 },
  "gpt-4.1": { input: 2, cachedInput: 0.5, output: 8 },
  "gpt-4.1-mini": { input: 0.4, cachedInput: 0.1, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, cachedInput: 0.025, output: 0.4 },
  "gpt-4o": { input: 2.5, cachedInput: 1.25, output: 10 },
  "gpt-4o-mini": { input: 0.15, cachedInput: 0.075, output: 0.6 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  "o4-mini": { input: 1.1, cachedInput: 0.275, output: 4.4 },
};

/** A dated snapshot name (`gpt-4.1-mini-2025-04-14`) costs what its model does. */
const SNAPSHOT_SUFFIX = /-\d{4}-\d{2}-\d{2}$/;

/**
 * The price of `model`: the config's `prices` first (exact name), then the built-in table
 * (exact name, then without a snapshot date). Unknown models have no price: a cost is never
 * guessed.
 */
export function priceOf(
  model: string,
  overrides: Readonly<Record<string, ModelPrice>> = {},
): ModelPrice | undefined {
  const own = Object.hasOwn(overrides, model) ? overrides[model] : undefined;
  if (own) return own;
  if (Object.hasOwn(BUILT_IN_PRICES, model)) return BUILT_IN_PRICES[model];
  const undated = model.replace(SNAPSHOT_SUFFIX, "");
  return undated !== model && Object.hasOwn(BUILT_IN_PRICES, undated) ? BUILT_IN_PRICES[undated] : undefined;
}

/** What `usage` costs at `price`, in US dollars, rounded to a millionth of a dollar. */
export function costOf(usage: ModelUsage, price: ModelPrice): number {
  const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const dollars =
    ((usage.promptTokens - cached) * price.input +
      cached * (price.cachedInput ?? price.input) +
      usage.completionTokens * price.output) /
    1_000_000;
  return roundUsd(dollars);
}

/** Sums of dollar amounts stay free of float noise (0.1 + 0.2) at a millionth of a dollar. */
export function roundUsd(dollars: number): number {
  return Math.round(dollars * 1_000_000) / 1_000_000;
}

/** `$0.0123` for people: four decimals under a dollar, two above. */
export function formatUsd(dollars: number): string {
  return dollars < 1 ? `$${dollars.toFixed(4)}` : `$${dollars.toFixed(2)}`;
}
