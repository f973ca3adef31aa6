import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { makeTempDir } from "./git-repo.js";

/**
 * Runs `action` with a `git` first on PATH that logs its arguments, then runs the real git.
 * Returns each logged call's arguments, in order.
 */
export async function gitCallsOf(action: () => Promise<unknown>): Promise<string[]> {
  const shim = makeTempDir("impact-git-shim-");
  const log = join(shim, "calls.log");
  const realGit = (process.env.PATH ?? "")
    .split(delimiter)
    .map((dir) => join(dir, "git"))
    .find((path) => {
      try {
        return readFileSync(path).length > 0;
      } catch {
        return false;
      }
    });
  if (!realGit) throw new Error("no git on PATH");
  writeFileSync(log, "");
  writeFileSync(join(shim, "git"), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${realGit}' "$@"\n`);
  chmodSync(join(shim, "git"), 0o755);
  const path = process.env.PATH;
  process.env.PATH = `${shim}${delimiter}${path ?? ""}`;
  try {
    await action();
  } finally {
    process.env.PATH = path;
  }
  return readFileSync(log, "utf8").split("\n").filter(Boolean);
}
