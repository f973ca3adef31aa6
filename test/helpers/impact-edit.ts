import { main } from "../../cli/main.js";
import { captureIo } from "./io.js";

/** `impact edit ARGS` in process in `cwd`, with `input` (default none) on standard input: the command code without a process start. */
export async function impactEdit(
  cwd: string,
  args: string[],
  input = "",
): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(cwd, {}, { stdin: input });
  const code = await main(["edit", ...args], io);
  return { code, out: io.out, err: io.err };
}
