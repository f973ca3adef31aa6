import type { Readable } from "node:stream";

/** What a command may touch of the outside world; tests pass their own. */
export interface CommandIo {
  cwd: string;
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal (progress is shown only then). */
  isTTY: boolean;
  /** Aborted on the first SIGINT/SIGTERM. */
  signal: AbortSignal;
  /** Reads all of standard input (for `--diff -`). */
  readStdin: () => Promise<string>;
  /** Standard input as a stream, for commands that serve requests on it (`impact mcp`); default process.stdin. */
  stdinStream?: () => Readable;
}

/** A command parses its own argv and returns the exit code; it throws ImpactError subclasses for failures. */
export type Command = (argv: string[], io: CommandIo) => Promise<number>;
