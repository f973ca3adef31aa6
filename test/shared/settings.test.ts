import { describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import { UsageError } from "../../shared/errors.js";
import { resolveSetting, resolveSettings, SETTINGS, settingHelp } from "../../shared/settings.js";
import { captureIo } from "../helpers/io.js";

describe("the settings table", () => {
  it("takes the flag, then the environment, then the config, then the default; empty is unset", () => {
    const config = { model: "config-model", concurrency: 7 };
    expect(resolveSettings({}).model).toBe("gpt-4.1-mini");
    expect(resolveSettings({ config }).model).toBe("config-model");
    expect(resolveSettings({ config, env: { IMPACT_MODEL: "" } }).model).toBe("config-model");
    expect(resolveSettings({ config, env: { IMPACT_MODEL: "env-model" } }).model).toBe("env-model");
    expect(
      resolveSettings({ config, env: { IMPACT_MODEL: "env-model" }, flags: { model: "flag-model" } }).model,
    ).toBe("flag-model");
    expect(resolveSettings({ config, flags: { model: "" } }).model).toBe("config-model");
    expect(resolveSettings({ env: { IMPACT_ROUTER_URL: "", OPENAI_BASE_URL: "" } })).toEqual({
      model: "gpt-4.1-mini",
      concurrency: 4,
      maxTurns: 12,
      minScore: 0.3,
      include: [],
    });
    const counts = resolveSettings({ config, flags: { "max-turns": "3", "max-cost": "$0.50" } });
    expect([counts.concurrency, counts.maxTurns, counts.maxCostUsd]).toEqual([7, 3, 0.5]);
    expect(() => resolveSettings({ flags: { concurrency: "65" } })).toThrow(
      new UsageError('--concurrency takes a whole number from 1 to 64, got "65"'),
    );
    expect(() => resolveSettings({ flags: { "max-cost": "-1" } })).toThrow(/--max-cost takes an amount/);
    expect(resolveSettings({ config: { minScore: 0.5 }, flags: { "min-score": "0.2" } }).minScore).toBe(0.2);
    expect(() => resolveSettings({ flags: { "min-score": "7" } })).toThrow(
      /--min-score takes a number from 0 to 1/,
    );
  });

  it("takes the tiers to include from --include, else the config's list", () => {
    expect(resolveSetting("include", {})).toEqual({ value: [], from: "default" });
    expect(resolveSetting("include", { config: { include: ["related"] } })).toEqual({
      value: ["related"],
      from: "config",
    });
    expect(resolveSetting("include", { config: { include: [] }, flags: { include: "related" } })).toEqual({
      value: ["related"],
      from: "flag",
    });
    expect(() => resolveSettings({ flags: { include: "touched" } })).toThrow(
      new UsageError('--include takes related, got "touched"'),
    );
  });

  it("says where one setting came from: the plan's --min-score is its whole bar, the config's rises with the strongest article", () => {
    expect(resolveSetting("minScore", {})).toEqual({ value: 0.3, from: "default" });
    expect(resolveSetting("minScore", { config: { minScore: 0.5 } })).toEqual({ value: 0.5, from: "config" });
    expect(resolveSetting("minScore", { config: { minScore: 0.5 }, flags: { "min-score": "0.2" } })).toEqual({
      value: 0.2,
      from: "flag",
    });
    // A flag the command parsed already (plan checks --min-score before it starts) counts as given.
    expect(resolveSetting("minScore", { config: { minScore: 0.5 }, flags: { "min-score": 0 } })).toEqual({
      value: 0,
      from: "flag",
    });
    expect(
      resolveSetting("minScore", { config: { minScore: 0.5 }, flags: { "min-score": undefined } }),
    ).toEqual({
      value: 0.5,
      from: "config",
    });
    expect(resolveSetting("model", { env: { IMPACT_MODEL: "" }, config: { model: "m" } })).toEqual({
      value: "m",
      from: "config",
    });
  });

  it("gives run's and plan's --help their lines", async () => {
    const io = captureIo(process.cwd(), {});
    expect(await main(["run", "--help"], io)).toBe(0);
    expect(await main(["plan", "--help"], io)).toBe(0);
    for (const [name, spec] of Object.entries(SETTINGS)) {
      if ("flag" in spec) expect(io.out).toContain(`--${spec.flag} ${spec.value}`);
      if ("flag" in spec) expect(io.out).toContain(settingHelp(name as keyof typeof SETTINGS));
      if ("env" in spec) expect(io.out).toContain(spec.env);
    }
  });
});
