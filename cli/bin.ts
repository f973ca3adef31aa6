#!/usr/bin/env node
import { main } from "./main.js";

const controller = new AbortController();
let interrupts = 0;
const onSignal = () => {
  interrupts += 1;
  // A second interrupt exits at once; the first aborts in-flight work so the audit can be written.
  if (interrupts > 1) process.exit(130);
  controller.abort();
};
// `impact plan | head`: a reader that stops early is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

// No top-level await: the bundle is a script (see .ci/bundle.mjs), which cannot have one.
void main(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stderr.isTTY),
  signal: controller.signal,
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  },
  stdinStream: () => process.stdin,
}).then((code) => {
  process.exitCode = code;
});
