import { type ParseArgsConfig, parseArgs } from "node:util";
import { UsageError } from "../../shared/errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Flags shared by every command that reads a change. */
export const COMMON_OPTIONS = {
  repo: { type: "string" },
  base: { type: "string" },
  head: { type: "string" },
  diff: { type: "string" },
  config: { type: "string" },
  json: { type: "boolean" },
  quiet: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies Options;

/** node:util parseArgs, with its errors turned into one-line usage errors. */
export function parseCommandArgs<T extends Options>(
  command: string,
  argv: string[],
  options: T,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new UsageError(`${message} (see: impact ${command} --help)`, { cause: error });
  }
}

/** Parses a positive integer flag or throws a usage error naming it. */
export function parsePositiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new UsageError(`--${flag} takes a whole number of 1 or more, got "${value}"`);
  }
  return Number(value);
}
