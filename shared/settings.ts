import type { ImpactConfig } from "./config.js";
import { UsageError } from "./errors.js";
import {
  CONCURRENCY_LIMIT,
  DEFAULT_CONCURRENCY,
  DEFAULT_MAX_TURNS,
  DEFAULT_MIN_SCORE,
  MAX_TURNS_LIMIT,
} from "./limits.js";
import { DEFAULT_MODEL } from "./model/model-names.js";

/**
 * A setting a run reads from a flag, an environment variable or the config file. `text` is
 * a string; `count` a whole number from 1 to `max`; `usd` an amount of US dollars (0 or more);
 * `score` a number from 0 to 1; `tiers` the plan's tiers beyond stale and new (only `related`),
 * a list in the config and one name on the command line.
 */
export interface SettingSpec {
  kind: "text" | "count" | "usd" | "score" | "tiers";
  /** The flag, without its dashes. */
  flag?: string;
  /** How the flag's value reads in --help. */
  value?: string;
  env?: string;
  config?: keyof ImpactConfig;
  default?: string | number | readonly string[];
  /** The most a count may be. */
  max?: number;
  /** What it does, for --help and the docs. */
  help: string;
}

/**
 * Every setting where a flag, the environment and the config meet, each declared once: the
 * flags' --help lines and the commands' environment lists are made from this table, and
 * resolveSettings reads it.
 */
export const SETTINGS = {
  model: {
    kind: "text",
    flag: "model",
    value: "NAME",
    env: "IMPACT_MODEL",
    config: "model",
    default: DEFAULT_MODEL,
    help: "the model; replay:FILE answers from a recording",
  },
  apiKey: { kind: "text", env: "OPENAI_API_KEY", help: "the key of the OpenAI-compatible API" },
  baseUrl: {
    kind: "text",
    env: "OPENAI_BASE_URL",
    help: "the API root of another OpenAI-compatible server (Azure-style gateways, Ollama, vLLM…)",
  },
  routerUrl: {
    kind: "text",
    flag: "router",
    value: "URL",
    env: "IMPACT_ROUTER_URL",
    help: "drive the model through an impact router instead of an API key",
  },
  routerToken: { kind: "text", env: "IMPACT_ROUTER_TOKEN", help: "the bearer token the router accepts" },
  concurrency: {
    kind: "count",
    flag: "concurrency",
    value: "N",
    config: "concurrency",
    default: DEFAULT_CONCURRENCY,
    max: CONCURRENCY_LIMIT,
    help: "articles worked on at once",
  },
  maxTurns: {
    kind: "count",
    flag: "max-turns",
    value: "N",
    config: "maxTurns",
    default: DEFAULT_MAX_TURNS,
    max: MAX_TURNS_LIMIT,
    help: "model calls per article before it fails",
  },
  minScore: {
    kind: "score",
    flag: "min-score",
    value: "X",
    config: "minScore",
    default: DEFAULT_MIN_SCORE,
    help: "leave out impacted articles scoring below X, 0 to 1",
  },
  maxCostUsd: {
    kind: "usd",
    flag: "max-cost",
    value: "USD",
    help: "cap what the run's model calls cost; an article whose next call would cross it ends skipped",
  },
  include: {
    kind: "tiers",
    flag: "include",
    value: "TIER",
    config: "include",
    default: [],
    help: "also list this tier (plan) and send it to the model (run): related",
  },
  docsRepo: {
    kind: "text",
    flag: "docs-repo",
    value: "DIR",
    config: "docsRepo",
    help: "the docs repository when the articles live apart from the code: articles and edits come from DIR, the change from --repo",
  },
} as const satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof SETTINGS;

/** The value of each setting: the flag, then the environment, then the config, then the default. */
export interface ResolvedSettings {
  model: string;
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
  routerUrl?: string | undefined;
  routerToken?: string | undefined;
  concurrency: number;
  maxTurns: number;
  minScore: number;
  maxCostUsd?: number | undefined;
  include: readonly "related"[];
  docsRepo?: string | undefined;
}

export interface SettingSources {
  /** Parsed flags by flag name (`max-turns`), as the command line gave them. */
  flags?: Record<string, unknown>;
  env?: Record<string, string | undefined>;
  config?: Partial<
    Pick<ImpactConfig, "model" | "concurrency" | "maxTurns" | "minScore" | "include" | "docsRepo">
  >;
}

/**
 * The one precedence rule: the flag, then the environment variable, then the config key,
 * then the default. An empty value (`IMPACT_MODEL=""`, what an unset `${{ vars.X }}` gives
 * in GitHub Actions) is unset. A flag or variable that does not parse is a UsageError
 * naming it.
 */
export function resolveSettings(sources: SettingSources): ResolvedSettings {
  const resolved: Record<string, SettingValue | undefined> = {};
  for (const [name, spec] of Object.entries(SETTINGS) as [SettingName, SettingSpec][]) {
    resolved[name] = resolveOne(spec, sources).value;
  }
  return resolved as unknown as ResolvedSettings;
}

/** Where a setting's value came from. */
export type SettingSource = "flag" | "env" | "config" | "default";

/**
 * One setting by the same precedence as resolveSettings, and where its value came from: the
 * plan's bar is the whole bar when a flag set it, and rises with the strongest article when
 * it comes from the config or the default (docs/plan.md).
 */
export function resolveSetting<Name extends SettingName>(
  name: Name,
  sources: SettingSources,
): { value: ResolvedSettings[Name]; from: SettingSource } {
  const { value, from } = resolveOne(SETTINGS[name], sources);
  return { value: value as ResolvedSettings[Name], from };
}

/** A setting's value: text or a number, or a list of tiers. */
type SettingValue = string | number | readonly string[];

/** A setting's flag alone, parsed (a UsageError naming it when it does not parse); undefined when not given. */
export function settingFlag(name: SettingName, flags: Record<string, unknown>): SettingValue | undefined {
  const spec: SettingSpec = SETTINGS[name];
  const flag = spec.flag === undefined ? undefined : flags[spec.flag];
  return typeof flag === "string" ? parseSetting(spec, flag, `--${spec.flag}`) : undefined;
}

function resolveOne(
  spec: SettingSpec,
  sources: SettingSources,
): { value: SettingValue | undefined; from: SettingSource } {
  const flag = spec.flag === undefined ? undefined : sources.flags?.[spec.flag];
  // A number is a flag settingFlag parsed already (the plan gets --min-score checked before it starts).
  if (typeof flag === "number" && spec.kind !== "text") return { value: flag, from: "flag" };
  if (typeof flag === "string" && (spec.kind !== "text" || flag.trim() !== ""))
    return { value: parseSetting(spec, flag, `--${spec.flag}`), from: "flag" };
  const env = spec.env === undefined ? undefined : sources.env?.[spec.env];
  if (env !== undefined && env.trim() !== "")
    return { value: parseSetting(spec, env, spec.env!), from: "env" };
  const config =
    spec.config === undefined ? undefined : (sources.config as Record<string, unknown>)?.[spec.config];
  if (config !== undefined && config !== "") return { value: config as SettingValue, from: "config" };
  return { value: spec.default, from: "default" };
}

function parseSetting(spec: SettingSpec, text: string, source: string): SettingValue {
  if (spec.kind === "text") return text;
  if (spec.kind === "tiers") {
    if (text !== "related") throw new UsageError(`${source} takes related, got "${text}"`);
    return ["related"];
  }
  if (spec.kind === "count") {
    const max = spec.max;
    if (!/^\d+$/.test(text) || Number(text) < 1 || (max !== undefined && Number(text) > max)) {
      const range = max === undefined ? "of 1 or more" : `from 1 to ${max}`;
      throw new UsageError(`${source} takes a whole number ${range}, got "${text}"`);
    }
    return Number(text);
  }
  if (spec.kind === "score") {
    const score = Number(text);
    if (text.trim() === "" || !Number.isFinite(score) || score < 0 || score > 1) {
      throw new UsageError(`${source} takes a number from 0 to 1 (such as 0.3), got "${text}"`);
    }
    return score;
  }
  const dollars = Number(text.replace(/^\$/, ""));
  if (text.trim() === "" || !Number.isFinite(dollars) || dollars < 0) {
    throw new UsageError(`${source} takes an amount in US dollars such as 0.50, got "${text}"`);
  }
  return dollars;
}

/** A setting's --help line: what it does, then where else it comes from and its default. */
export function settingHelp(name: SettingName): string {
  const spec: SettingSpec = SETTINGS[name];
  const from = [
    spec.env === undefined ? undefined : `env ${spec.env}`,
    spec.config === undefined ? undefined : `config ${spec.config}`,
    spec.default === undefined || Array.isArray(spec.default) ? undefined : `default ${spec.default}`,
    spec.max === undefined ? undefined : `at most ${spec.max}`,
  ].filter((part) => part !== undefined);
  return from.length === 0 ? spec.help : `${spec.help} (${from.join(", ")})`;
}

/** The environment variables of the settings named, in table order. */
export function settingEnvNames(names: readonly SettingName[]): string[] {
  return names.flatMap((name) => {
    const spec: SettingSpec = SETTINGS[name];
    return spec.env === undefined ? [] : [spec.env];
  });
}
