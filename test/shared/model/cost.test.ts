import { describe, expect, it } from "vitest";
import { BUILT_IN_PRICES, costOf, priceOf } from "../../../shared/model/prices.js";

describe("prices", () => {
  it("knows common models, dated snapshots of them, and config overrides; nothing else", () => {
    expect(priceOf("gpt-4.1-mini")).toEqual(BUILT_IN_PRICES["gpt-4.1-mini"]);
    expect(priceOf("gpt-4.1-mini-2025-04-14")).toEqual(BUILT_IN_PRICES["gpt-4.1-mini"]);
    expect(priceOf("gpt-4.1-mini", { "gpt-4.1-mini": { input: 1, output: 2 } })).toEqual({
      input: 1,
      output: 2,
    });
    expect(priceOf("llama3:8b")).toBeUndefined();
    expect(priceOf("toString")).toBeUndefined();
    expect(priceOf("llama3:8b", { "llama3:8b": { input: 0, output: 0 } })).toEqual({ input: 0, output: 0 });
  });

  it("bills cached prompt tokens at the cached-input price, or the input price when there is none", () => {
    const usage = { promptTokens: 1_000_000, completionTokens: 100_000, cachedPromptTokens: 400_000 };
    expect(costOf(usage, { input: 0.4, cachedInput: 0.1, output: 1.6 })).toBe(0.44);
    expect(costOf(usage, { input: 0.4, output: 1.6 })).toBe(0.56);
    expect(costOf({ promptTokens: 3, completionTokens: 0 }, { input: 0.1, output: 0 })).toBe(0);
  });
});
