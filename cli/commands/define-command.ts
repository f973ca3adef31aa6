import { parseArgs } from "node:util";
import { UsageError } from "../../shared/errors.js";
import type { Command, CommandIo } from "../io.js";

/** One flag: its type, the placeholder shown in help for its value, and one line of help. */
type OptionSpec =
  | {
      type: "boolean";
      short?: string;
      help: string;
      /** Values the flag may also take inline (`--check=advisory`); the bare flag is `true`. */
      values?: readonly string[];
    }
  | { type: "string"; value: string; short?: string; help: string; multiple?: boolean };

export type OptionSpecs = Record<string, OptionSpec>;

/** The parsed flags, typed from their specs. */
export type OptionValues<O extends OptionSpecs> = {
  [K in keyof O]?: O[K] extends { type: "boolean"; values: readonly (infer V)[] }
    ? true | V
    : O[K] extends { type: "boolean" }
      ? boolean
      : O[K] extends { multiple: true }
        ? string[]
        : string;
};

interface PositionalSpec {
  /** How the positionals read in the usage line, e.g. "<audit.json...>". */
  usage: string;
  /** What one of them is, for errors: "audit file". */
  noun: string;
  min: number;
  /** At most this many (Infinity for a list). */
  max: number;
}

export interface CommandDefinition<O extends OptionSpecs> {
  name: string;
  /** The usage line after `impact NAME` (default: the positionals, then "[options]"). */
  usage?: string;
  /** What the command does, one paragraph or more. */
  description: string;
  options: O;
  positionals?: PositionalSpec;
  /** Text after the options (environment, exit codes). */
  footer?: string;
  run: (input: { values: OptionValues<O>; positionals: string[]; io: CommandIo }) => Promise<number>;
}

/** A command built by {@link defineCommand}: callable as a `Command`, with its help text attached. */
export type DefinedCommand = Command & { help: string; commandName: string };

const HELP_OPTION = { type: "boolean", short: "h", help: "show this help" } as const satisfies OptionSpec;

/**
 * Declares a command once: its flags (with their help lines), positionals, help text and
 * body. Parsing, `--help` and usage errors come from this one definition, so the help a
 * user reads and the flags a command accepts cannot drift apart.
 */
export function defineCommand<O extends OptionSpecs>(definition: CommandDefinition<O>): DefinedCommand {
  const options: OptionSpecs = { ...definition.options, help: HELP_OPTION };
  const help = renderHelp(definition, options);
  const command = async (argv: string[], io: CommandIo): Promise<number> => {
    const parsed = parseCommandLine(definition.name, argv, options, definition.positionals);
    if (parsed.values.help === true) {
      io.stdout(help);
      return 0;
    }
    return definition.run({ values: parsed.values as OptionValues<O>, positionals: parsed.positionals, io });
  };
  return Object.assign(command, { help, commandName: definition.name });
}

function usageError(command: string, message: string): UsageError {
  return new UsageError(`${message} (see: impact ${command} --help)`);
}

/** Parses argv against the specs, with every mistake turned into a one-line usage error. */
function parseCommandLine(
  command: string,
  argv: string[],
  options: OptionSpecs,
  positionalSpec: PositionalSpec | undefined,
): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  // Not strict: the tokens are checked here, so each mistake gets our own message.
  const { tokens } = parseArgs({
    args: argv,
    options: Object.fromEntries(
      Object.entries(options).map(([name, spec]) => [
        name,
        { type: spec.type, ...(spec.short ? { short: spec.short } : {}) },
      ]),
    ),
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const values: Record<string, string | boolean | string[] | undefined> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") {
      positionals.push(token.value);
      continue;
    }
    if (token.kind !== "option") continue;
    const spec = options[token.name];
    if (spec === undefined) {
      const known = Object.keys(options)
        .map((name) => `--${name}`)
        .join(", ");
      throw usageError(command, `unknown option ${token.rawName}; impact ${command} takes ${known}`);
    }
    if (spec.type === "boolean") {
      if (token.value !== undefined && !spec.values?.includes(token.value)) {
        throw usageError(
          command,
          spec.values
            ? `--${token.name} takes no value or one of ${spec.values.map((value) => `--${token.name}=${value}`).join(", ")}`
            : `--${token.name} takes no value`,
        );
      }
      values[token.name] = token.value ?? true;
      continue;
    }
    if (token.value === undefined) {
      throw usageError(command, `--${token.name} needs a value: --${token.name} ${spec.value}`);
    }
    if (spec.multiple) {
      const list = (values[token.name] as string[] | undefined) ?? [];
      values[token.name] = [...list, token.value];
    } else {
      if (values[token.name] !== undefined) throw usageError(command, `--${token.name} is given twice`);
      values[token.name] = token.value;
    }
  }
  if (values.help === true) return { values, positionals };
  const wanted = positionalSpec ?? { usage: "", noun: "", min: 0, max: 0 };
  if (positionals.length > wanted.max) {
    throw usageError(
      command,
      wanted.max === 0
        ? `unexpected argument "${positionals[0]}"; options start with --`
        : `takes ${wanted.max === 1 ? "one" : `at most ${wanted.max}`} ${wanted.noun}, got ${positionals.length}`,
    );
  }
  if (positionals.length < wanted.min) {
    throw usageError(command, `name the ${wanted.noun}: impact ${command} ${wanted.usage}`);
  }
  return { values, positionals };
}

function renderHelp(
  definition: Pick<
    CommandDefinition<OptionSpecs>,
    "name" | "usage" | "description" | "positionals" | "footer"
  >,
  options: OptionSpecs,
): string {
  const usage = definition.usage ?? [definition.positionals?.usage, "[options]"].filter(Boolean).join(" ");
  const rows = Object.entries(options).map(([name, spec]) => {
    const value =
      spec.type === "string" ? ` ${spec.value}` : spec.values ? `[=${spec.values.join("|")}]` : "";
    const flag = `${spec.short ? `-${spec.short}, ` : ""}--${name}${value}`;
    return [flag, spec.help] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  const optionLines = rows.map(([flag, text]) => `  ${flag.padEnd(width)}${text}`);
  const parts = [
    `Usage: impact ${definition.name}${usage ? ` ${usage}` : ""}`,
    definition.description.trim(),
    `Options:\n${optionLines.join("\n")}`,
    ...(definition.footer ? [definition.footer.trim()] : []),
  ];
  return `${parts.join("\n\n")}\n`;
}
