import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";
import { makeTempDir } from "./git-repo.js";

/**
 * The environment action.yml's "Run Impact" step gives its script when every input keeps its
 * default, with the built CLI as `IMPACT_BIN`; a test lays the inputs it sets over it.
 */
export function actionStepEnv(): Record<string, string> {
  return {
    IMPACT_BIN: join(inject("builtPackage"), "cli/bin.js"),
    IMPACT_MODE: "run",
    IMPACT_CHECK: "strict",
    IMPACT_BASE: "",
    IMPACT_HEAD: "",
    IMPACT_AUDIT: ".impact/audit.json",
    IMPACT_PATCH: ".impact/impact.patch",
    IMPACT_APPLY: "false",
    IMPACT_MODEL_INPUT: "",
    IMPACT_SHARD: "",
    IMPACT_SHARDS: "",
    IMPACT_REPORT: ".impact/report.md",
    IMPACT_PR: "",
    IMPACT_DRY_RUN: "false",
    IMPACT_ARGS: "",
    IMPACT_DOCS_REPO: "",
    IMPACT_DOCS_REF: "",
    IMPACT_DOCS_TOKEN: "",
  };
}

/**
 * A stand-in for the GitHub CLI first on PATH: no open pull request, and every call recorded in
 * `calls` with the body file it was given. Returns the folder to put before PATH and the log.
 */
export function fakeGh(): { bin: string; calls: string } {
  const bin = makeTempDir("impact-fake-gh-");
  const calls = join(bin, "calls.txt");
  writeFileSync(
    join(bin, "gh"),
    `#!/bin/sh\necho "gh $*" >> "${calls}"\nfor a in "$@"; do [ "$prev" = "--body-file" ] && cat "$a" >> "${calls}"; prev="$a"; done\nexit 0\n`,
    { mode: 0o755 },
  );
  return { bin, calls };
}
