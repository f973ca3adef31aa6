import { UsageError } from "../../shared/errors.js";
import { SETTINGS, type SettingName, type SettingSpec, settingHelp } from "../../shared/settings.js";
import type { OptionSpecs } from "./define-command.js";

/** Flags shared by the commands that read a change (`run` and `plan`). */
export const CHANGE_OPTIONS = {
  repo: { type: "string", value: "DIR", help: "the repository (default: the current directory)" },
  base: { type: "string", value: "REV", help: "the revision before the change (default: HEAD~1)" },
  head: { type: "string", value: "REV", help: "the revision after the change (default: HEAD)" },
  diff: { type: "string", value: "FILE|-", help: "read a unified diff instead of asking git" },
  config: {
    type: "string",
    value: "FILE",
    help: "the config file (default: impact.config.json at the repository root)",
  },
} as const satisfies OptionSpecs;

/** `--judge`, shared by `plan` and `run` (cli/plan/judge.ts). */
export const JUDGE_OPTIONS = {
  judge: {
    type: "boolean",
    help: "ask the model, once per related article, whether the change makes it say something false; a verified quote flags it (config judge)",
  },
} as const satisfies OptionSpecs;

/** Output flags every command that prints a result accepts. */
export const OUTPUT_OPTIONS = {
  json: { type: "boolean", help: "print one JSON object" },
  quiet: { type: "boolean", help: "print nothing but errors" },
} as const satisfies OptionSpecs;

/** Parses a whole-number flag (1 or more, at most `max`) or throws a usage error naming it. */
export function parsePositiveInt(flag: string, value: string | undefined, max?: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || (max !== undefined && Number(value) > max)) {
    const range = max === undefined ? "of 1 or more" : `from 1 to ${max}`;
    throw new UsageError(`--${flag} takes a whole number ${range}, got "${value}"`);
  }
  return Number(value);
}

type FlagOf<Name extends SettingName> = (typeof SETTINGS)[Name] extends { flag: infer Flag extends string }
  ? Flag
  : never;

/** The flags of the settings named, made from the settings table (their --help lines too). */
export function settingOptions<const Name extends SettingName>(
  names: readonly Name[],
): { [Key in Name as FlagOf<Key>]: { type: "string"; value: string; help: string } } {
  const options: Record<string, { type: "string"; value: string; help: string }> = {};
  for (const name of names) {
    const spec: SettingSpec = SETTINGS[name];
    if (spec.flag === undefined || spec.value === undefined)
      throw new Error(`bug: setting ${name} has no flag`);
    options[spec.flag] = { type: "string", value: spec.value, help: settingHelp(name) };
  }
  return options as { [Key in Name as FlagOf<Key>]: { type: "string"; value: string; help: string } };
}

/**
 * `--docs-repo OWNER/NAME` of `report` and `comment`: the docs repository on GitHub, where an
 * audit of a separate docs repository applies (undefined when not given).
 */
export function gitHubDocsRepository(
  value: string | undefined,
  serverUrl: string | undefined,
): { fullName: string; serverUrl?: string | undefined } | undefined {
  if (value === undefined) return undefined;
  // An owner starts with a letter or digit; `.` and `..` are no repository names (`../website` is a folder).
  if (!/^[A-Za-z0-9][A-Za-z0-9-]*\/(?!\.\.?$)[\w.-]+$/.test(value))
    throw new UsageError(`--docs-repo takes the docs repository on GitHub as OWNER/NAME, got "${value}"`);
  // An empty GITHUB_SERVER_URL is unset.
  return { fullName: value, serverUrl: serverUrl || undefined };
}
