import { Readable } from "node:stream";
import type { CommandIo } from "../../cli/io.js";

/** A CommandIo that collects what a command prints, for assertions. */
export type CapturedIo = CommandIo & { out: string; err: string };

export function captureIo(
  cwd: string = process.cwd(),
  env: Record<string, string | undefined> = {},
  options: { stdin?: string | undefined; signal?: AbortSignal | undefined; isTTY?: boolean } = {},
): CapturedIo {
  const io: CapturedIo = {
    out: "",
    err: "",
    cwd,
    env,
    isTTY: options.isTTY ?? false,
    signal: options.signal ?? new AbortController().signal,
    readStdin: async () => options.stdin ?? "",
    stdinStream: () => Readable.from([options.stdin ?? ""]),
    stdout: (text: string) => {
      io.out += text;
    },
    stderr: (text: string) => {
      io.err += text;
    },
  };
  return io;
}
