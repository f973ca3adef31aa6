import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { validateAction, validateWorkflow } from "@action-validator/core";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { actionStepEnv, fakeGh } from "../helpers/action-step.js";
import { auditArticle, auditOf } from "../helpers/audit-fixture.js";
import { gitRepo, makeTempDir } from "../helpers/git-repo.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ACTION = readFileSync(join(ROOT, "action.yml"), "utf8");
const WORKFLOWS = [".github/workflows", "docs/workflows"].flatMap((folder) =>
  readdirSync(join(ROOT, folder))
    .filter((file) => file.endsWith(".yml"))
    .map((file) => `${folder}/${file}`),
);

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}

describe("action.yml and the workflows", () => {
  it("action.yml is a valid action", () => {
    expect(validateAction(ACTION).errors).toEqual([]);
  });

  it.each(WORKFLOWS)("%s is a valid workflow", (path) => {
    expect(validateWorkflow(readFileSync(join(ROOT, path), "utf8")).errors).toEqual([]);
  });

  it("action.yml uses only inputs it declares, on Node 24, without GNU-only tools", () => {
    const action = parse(ACTION) as { inputs: Record<string, unknown>; runs: { steps: Step[] } };
    const used = [...ACTION.matchAll(/inputs\.([a-z-]+)/g)].map((match) => match[1]);
    expect(used.filter((name) => !(name! in action.inputs))).toEqual([]);
    const setupNode = action.runs.steps.find((step) => step.uses?.startsWith("actions/setup-node"));
    expect(setupNode?.with?.["node-version"]).toBe("24");
    expect(ACTION).not.toMatch(/realpath|readlink -f|sed -i/);
  });

  it.each(WORKFLOWS)("%s uploads .impact/ with hidden files, failing when it is missing", (path) => {
    const workflow = parse(readFileSync(join(ROOT, path), "utf8")) as {
      jobs: Record<string, { steps: Step[] }>;
    };
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    const ids = new Set(steps.map((step) => step.id).filter(Boolean));
    for (const step of steps.filter((step) => step.uses?.startsWith("actions/upload-artifact"))) {
      expect(step.with?.["include-hidden-files"]).toBe(true);
      expect(step.with?.["if-no-files-found"]).toBe("error");
    }
    const text = readFileSync(join(ROOT, path), "utf8");
    const referenced = [...text.matchAll(/steps\.([a-z-]+)\.outputs/g)].map((match) => match[1]);
    expect(referenced.filter((id) => !ids.has(id))).toEqual([]);
  });
});

/** The action's own script (the "Run Impact" step), run by bash as the runner would. */
function runActionScript(cwd: string, inputs: Record<string, string>) {
  const action = parse(ACTION) as { runs: { steps: Step[] } };
  const script = action.runs.steps.find((step) => step.id === "impact")!.run!;
  const output = join(makeTempDir("impact-action-out-"), "output");
  writeFileSync(output, "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    GITHUB_OUTPUT: output,
    ...actionStepEnv(),
    ...inputs,
  };
  const stdout = execFileSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], {
    cwd,
    env,
    encoding: "utf8",
  });
  return { stdout, outputs: readFileSync(output, "utf8") };
}

describe("the action's script", () => {
  it("expands shard globs for mode=merge", () => {
    const dir = makeTempDir("impact-action-merge-");
    mkdirSync(join(dir, "shards"));
    const article = (path: string) => auditArticle(path);
    writeFileSync(join(dir, "shards/1.json"), JSON.stringify(auditOf([article("docs/a.md")])));
    writeFileSync(join(dir, "shards/2.json"), JSON.stringify(auditOf([article("docs/b.md")])));
    const { stdout, outputs } = runActionScript(dir, {
      IMPACT_MODE: "merge",
      IMPACT_SHARDS: "shards/*.json",
      IMPACT_ARGS: "--quiet",
    });
    expect(stdout).toBe("");
    const merged = JSON.parse(readFileSync(join(dir, ".impact/audit.json"), "utf8")) as {
      articles: Array<{ path: string }>;
    };
    expect(merged.articles.map((entry) => entry.path)).toEqual(["docs/a.md", "docs/b.md"]);
    expect(outputs).toContain(`audit=${join(dir, ".impact/audit.json")}\n`);
  });

  it("without a model key, runs the plan only and passes, saying why", () => {
    const repo = gitRepo({
      "src/a.ts": "export const PORT = 8080;\n",
      "docs/a.md": "---\nattention:\n  - op: file\n    path: src/a.ts\n---\n# A\n\nThe port is 8080.\n",
    });
    repo.commit({ "src/a.ts": "export const PORT = 9090;\n" });
    const { stdout, outputs } = runActionScript(repo.dir, {});
    expect(stdout).toContain("::notice title=Impact::no model key in this run");
    expect(stdout).toContain("docs/a.md");
    expect(outputs).toContain("skipped=true\n");
  });

  it("mode=plan: check strict fails on a stale article, advisory passes with annotations, others are refused", () => {
    const repo = gitRepo({
      "src/a.ts": "export const PORT = 8080;\n",
      "docs/a.md": "---\nattention:\n  - op: file\n    path: src/a.ts\n---\n# A\n\nThe port is 8080.\n",
    });
    repo.commit({ "src/a.ts": "export const PORT = 9090;\n" });
    const summary = join(makeTempDir("impact-action-summary-"), "summary.md");
    writeFileSync(summary, "");
    const failed = (inputs: Record<string, string>) => {
      try {
        runActionScript(repo.dir, inputs);
        return undefined;
      } catch (error) {
        return error as { status: number; stdout: string };
      }
    };
    expect(failed({ IMPACT_MODE: "plan" })?.status).toBe(3);
    const { stdout } = runActionScript(repo.dir, {
      IMPACT_MODE: "plan",
      IMPACT_CHECK: "advisory",
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(stdout).toContain("::warning file=docs/a.md,");
    expect(readFileSync(summary, "utf8")).toContain("docs/a.md");
    expect(readFileSync(summary, "utf8")).not.toContain("::warning");
    const refused = failed({ IMPACT_MODE: "plan", IMPACT_CHECK: "loose" });
    expect([refused?.status, refused?.stdout]).toEqual([
      2,
      "::error::impact action: the check input must be strict or advisory\n",
    ]);
  });
});

describe("the post-merge recipe", () => {
  const workflow = parse(readFileSync(join(ROOT, "docs/workflows/impact-post-merge.yml"), "utf8")) as {
    jobs: Record<string, { steps: (Step & { if?: string; env?: Record<string, string> })[] }>;
  };
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
  const openPr = steps.find((step) => step.name === "Open or update the docs pull request")!;

  it("opens the docs pull request after a run where some articles failed, listing them in its body", () => {
    // Runs after a failed Impact step (exit 1: an article failed) as long as the audit exists.
    for (const step of [openPr, steps.find((step) => step.id === "report")!])
      expect(step.if).toMatch(/^\(success\(\) \|\| failure\(\)\) && .*hashFiles\('\.impact\/audit\.json'\)/);

    const repo = gitRepo({ "docs/a.md": "# A\n\nPort 8080.\n", "docs/b.md": "# B\n" });
    const origin = makeTempDir("impact-origin-");
    execFileSync("git", ["init", "-q", "--bare", origin]);
    repo.git("remote", "add", "origin", origin);
    // The run applied one article and failed another.
    repo.write({ "docs/a.md": "# A\n\nPort 9090.\n" });
    mkdirSync(join(repo.dir, ".impact"), { recursive: true });
    writeFileSync(
      join(repo.dir, ".impact/audit.json"),
      JSON.stringify(
        auditOf([
          auditArticle("docs/a.md"),
          auditArticle("docs/b.md", {
            status: "failed",
            summary: "turn cap reached",
            error: { code: "turn_cap", message: "turn cap reached: 8 turns" },
          }),
        ]),
      ),
    );
    const { bin, calls } = fakeGh();
    execFileSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", openPr.run!], {
      cwd: repo.dir,
      env: {
        PATH: `${bin}:${process.env.PATH ?? ""}`,
        HOME: process.env.HOME ?? "",
        GITHUB_SHA: "c".repeat(40),
        BRANCH: "impact/docs",
        AUDIT: ".impact/audit.json",
        REPORT: "",
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
      },
      encoding: "utf8",
    });
    const recorded = readFileSync(calls, "utf8");
    expect(recorded).toContain(
      "gh pr create --base main --head impact/docs --title docs: keep the docs true to the code",
    );
    expect(recorded).toContain(
      "**Not updated by Impact** (check these by hand):\n\n- `docs/b.md` (failed): turn cap reached: 8 turns\n",
    );
    expect(
      execFileSync("git", ["--git-dir", origin, "show", "impact/docs:docs/a.md"], { encoding: "utf8" }),
    ).toBe("# A\n\nPort 9090.\n");
  });
});
