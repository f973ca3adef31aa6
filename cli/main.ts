import {
  ArticlesFailed,
  CheckFailed,
  GitError,
  ImpactError,
  Interrupted,
  isAbortError,
  UsageError,
} from "../shared/errors.js";
import { redactSecrets } from "../shared/redact.js";
import { printable } from "../shared/render/escape.js";
import type { Command, CommandIo } from "./io.js";
import { VERSION } from "./version.js";

// Commands load lazily so `impact --version` starts fast.
const COMMANDS: Record<string, { summary: string; load: () => Promise<{ command: Command }> }> = {
  run: {
    summary: "diff → plan → agents → audit JSON + patch (+ --apply)",
    load: () => import("./commands/run.js"),
  },
  plan: { summary: "diff → plan only; no model needed", load: () => import("./commands/plan.js") },
  init: {
    summary: "propose an impact.config.json, scored on the history",
    load: () => import("./commands/init.js"),
  },
  apply: {
    summary: "write an audit's patches to the working tree",
    load: () => import("./commands/apply.js"),
  },
  dismiss: {
    summary: "remember that an article is not affected by some changes",
    load: () => import("./commands/dismiss.js"),
  },
  report: {
    summary: "render an audit as Markdown, HTML or JSON",
    load: () => import("./commands/report.js"),
  },
  comment: { summary: "post or update the PR comment", load: () => import("./commands/comment.js") },
  merge: { summary: "merge audits from sharded runs", load: () => import("./commands/merge.js") },
  edit: {
    summary: "apply exact edits to one file, as one atomic batch",
    load: () => import("./commands/edit.js"),
  },
  mcp: {
    summary: "serve the edit engine and read tools over MCP (stdio)",
    load: () => import("./commands/mcp.js"),
  },
  serve: { summary: "start the backend (router + webhook bot)", load: () => import("./commands/serve.js") },
};

export { VERSION };

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, { summary }]) => `  ${name.padEnd(8)} ${summary}`);
  return `Usage: impact <command> [options]\n\nCommands:\n${lines.join("\n")}\n\nRun "impact help <command>" (or "impact <command> --help") for a command's options.\n`;
}

/** The only place that turns errors into exit codes. */
export async function main(argv: string[], io: CommandIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "help" && rest[0] !== undefined) {
    // `impact help plan` is `impact plan --help`.
    if (COMMANDS[rest[0]]) return main([rest[0], "--help"], io);
    io.stderr(`impact: unknown command "${rest[0]}"; run "impact --help" for the list\n`);
    return 2;
  }
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.stdout(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-v") {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    io.stderr(`impact: unknown command "${name}"; run "impact --help" for the list\n`);
    return 2;
  }
  try {
    const { command } = await entry.load();
    return await command(rest, io);
  } catch (error) {
    return exitCodeFor(error, name, io);
  }
}

function exitCodeFor(error: unknown, command: string, io: CommandIo): number {
  // Error messages never name the command themselves: this is the one place that does.
  // Printable: a message may quote a path or model text, which must not drive the terminal
  // or start a workflow command in a CI log.
  const say = (message: string) =>
    io.stderr(`impact ${command}: ${printable(redactSecrets(message, io.env))}\n`);
  if (error instanceof Interrupted || isAbortError(error)) {
    say(error instanceof Error ? error.message : "interrupted");
    return 130;
  }
  if (error instanceof ArticlesFailed) {
    say(error.message);
    return 1;
  }
  if (error instanceof CheckFailed) {
    say(error.message);
    return 3;
  }
  if (error instanceof UsageError || error instanceof GitError) {
    say(error.message);
    return 2;
  }
  if (error instanceof ImpactError) {
    say(error.message);
    return 1;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  // A stack trace keeps its lines, each one printable.
  const lines = redactSecrets(stack, io.env).split("\n").map(printable).join("\n");
  io.stderr(`impact ${command}: unexpected error (a bug; please report it):\n${lines}\n`);
  return 1;
}
