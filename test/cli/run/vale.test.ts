import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseValeOutput, valeNote } from "../../../cli/run/vale.js";
import { makeTempDir, type TestRepo } from "../../helpers/git-repo.js";
import { portChange, portFix } from "../../helpers/port-change.js";
import { runWithScript, scriptedRuns } from "../../helpers/run-impact.js";
import type { RecordedRequest, ScriptStep } from "../../helpers/scripted-model-server.js";

/** One alert as `vale --output=JSON` prints it; the fields Impact does not read keep Vale's empty values. */
const valeAlert = (alert: {
  Check: string;
  Message: string;
  Severity: string;
  Match: string;
  Line: number;
  Span: number[];
}) => ({
  Action: { Name: "", Params: null },
  Description: "",
  Link: "",
  ...alert,
});

/** What `vale --output=JSON` prints for stdin input: one finding on the edited line 8, one on line 6. */
const VALE_JSON = JSON.stringify({
  "stdin.md": [
    valeAlert({
      Span: [1, 2],
      Check: "Vale.Spelling",
      Message: "Did you really mean 'listens'?",
      Severity: "error",
      Match: "listens",
      Line: 8,
    }),
    valeAlert({
      Span: [3, 8],
      Check: "Google.Headings",
      Message: "'Server' should use sentence-style capitalization.",
      Severity: "warning",
      Match: "Server",
      Line: 6,
    }),
  ],
});

/** A fake `vale` on a PATH of its own: records its arguments and stdin, prints VALE_JSON. */
function fakeVale(): { path: string; log: string } {
  const bin = makeTempDir("impact-vale-");
  const log = join(bin, "calls.log");
  const script = join(bin, "vale");
  writeFileSync(
    script,
    `#!/bin/sh\necho "ARGS $*" >> '${log}'\ncat >> '${log}'\ncat <<'JSON'\n${VALE_JSON}\nJSON\n`,
  );
  chmodSync(script, 0o755);
  return { path: `${bin}${delimiter}${process.env.PATH ?? ""}`, log };
}

function pullRequest(vale: boolean): { repo: TestRepo; base: string } {
  return portChange(
    vale
      ? { ".vale.ini": "StylesPath = styles\nMinAlertLevel = suggestion\n\n[*.md]\nBasedOnStyles = Vale\n" }
      : {},
  );
}

const EDIT_THEN_STOP: ScriptStep[] = [portFix(), { content: "Updated the default port." }];

/** The tool result the model saw after its edit_article call. */
function toolResult(request: RecordedRequest): string {
  const tool = request.body.messages?.find((message) => message.role === "tool");
  return String(tool?.content ?? "");
}

describe("the Vale after-edit check", () => {
  it("shows the model Vale's findings on the lines it edited, and applies the batch", async () => {
    const { repo, base } = pullRequest(true);
    const vale = fakeVale();
    const run = await runWithScript(repo.dir, EDIT_THEN_STOP, ["--base", base], { PATH: vale.path });
    expect(run.code).toBe(0);
    expect(run.io.err).toBe("");
    expect(run.audit!.articles[0]!.status).toBe("updated");
    const result = toolResult(run.server.requests[1]!);
    expect(result).toContain(
      "Note: the edits were applied; the project's Vale style check (.vale.ini) reports on the lines you wrote:\n- line 8: error Vale.Spelling: Did you really mean 'listens'?\n",
    );
    // Line 6 was not edited: its finding is not the model's business.
    expect(result).not.toContain("Google.Headings");
    const calls = readFileSync(vale.log, "utf8");
    expect(calls).toContain(`ARGS --config=${join(repo.dir, ".vale.ini")} --output=JSON --no-exit --ext=.md`);
    // Vale read the edited draft, not the file on disk.
    expect(calls).toContain("It listens on port 9090 by default.");
  });

  it("skips the check with one warning when vale is not on the PATH", async () => {
    const { repo, base } = pullRequest(true);
    const empty = makeTempDir("impact-novale-");
    mkdirSync(join(empty, "bin"));
    const steps: ScriptStep[] = [EDIT_THEN_STOP[0]!, EDIT_THEN_STOP[0]!, { content: "Done." }];
    // Two edit batches: the warning is said once per run, not once per edit.
    steps[1] = {
      toolCalls: [
        {
          name: "edit_article",
          arguments: {
            path: "docs/server.md",
            edits: [{ old_string: "# Server", new_string: "# The server", reason: "clearer" }],
          },
        },
      ],
    };
    const run = await runWithScript(repo.dir, steps, ["--base", base], { PATH: join(empty, "bin") });
    expect(run.code).toBe(0);
    expect(run.io.err).toBe(
      "warning: .vale.ini is present but vale is not on the PATH (install it from https://vale.sh); the .vale.ini style check is skipped for this run\n",
    );
    expect(toolResult(run.server.requests[1]!)).not.toContain("Vale");
  });

  it("is part of the result cache key: adding or changing .vale.ini reruns the article", async () => {
    const { repo, base } = pullRequest(false);
    const vale = fakeVale();
    const env = { PATH: vale.path };
    // One server for all runs: the endpoint is part of the result key.
    const runs = await scriptedRuns();
    const args = ["--base", base];
    expect((await runs.run(repo.dir, EDIT_THEN_STOP, args, env)).calledFor).toHaveLength(2);
    // Same inputs: served from the cache, no model call.
    expect((await runs.run(repo.dir, [], args, env)).calledFor).toEqual([]);
    writeFileSync(join(repo.dir, ".vale.ini"), "MinAlertLevel = error\n");
    expect((await runs.run(repo.dir, EDIT_THEN_STOP, args, env)).calledFor).toHaveLength(2);
    expect(toolResult(runs.server.requests.at(-1)!)).toContain("Vale.Spelling");
    writeFileSync(join(repo.dir, ".vale.ini"), "MinAlertLevel = warning\n");
    expect((await runs.run(repo.dir, EDIT_THEN_STOP, args, env)).calledFor).toHaveLength(2);
  });

  it("does not run vale in a repository without .vale.ini", async () => {
    const { repo, base } = pullRequest(false);
    const vale = fakeVale();
    const run = await runWithScript(repo.dir, EDIT_THEN_STOP, ["--base", base], { PATH: vale.path });
    expect(run.code).toBe(0);
    expect(toolResult(run.server.requests[1]!)).not.toContain("Vale");
    expect(() => readFileSync(vale.log, "utf8")).toThrow();
  });
});

describe("Vale's JSON output", () => {
  it("parses the alerts and lists only those on the edited lines", () => {
    const findings = parseValeOutput(VALE_JSON)!;
    expect(findings.map((finding) => finding.line)).toEqual([6, 8]);
    expect(valeNote(findings, [{ startLine: 7, endLine: 7 }])).toBe("");
    expect(valeNote(findings, [{ startLine: 6, endLine: 6 }])).toContain("line 6: warning Google.Headings");
    expect(parseValeOutput("")).toEqual([]);
    expect(parseValeOutput("not json")).toBeUndefined();
    expect(parseValeOutput('{"stdin.md": [{"Line": "x"}]}')).toBeUndefined();
  });
});
