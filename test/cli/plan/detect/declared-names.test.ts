import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { gitRepo, type TestRepo } from "../../../helpers/git-repo.js";
import { expectFlaggedWith, flagged, planJson } from "../../../helpers/plan-json.js";
import { cacheEntryPath } from "../../../helpers/state.js";

/** The plan with no article index left from an earlier plan (a fresh checkout). */
async function coldPlanJson(repo: TestRepo) {
  rmSync(cacheEntryPath(repo.dir, "articles", "index.bin"), { force: true });
  return planJson(repo);
}

const FLAGS_GO = (groupFlags: string) =>
  [
    "package flags",
    "",
    'import "github.com/spf13/pflag"',
    "",
    "func Parse() {",
    '\tpflag.StringVarP(&Output, "output", "o", "", "Sets output style: [interleaved|group].")',
    groupFlags,
    '\tpflag.BoolVar(&Silent, "silent", false, "Prints less.")',
    "}",
    "",
  ].join("\n");

const GROUP_BEGIN = '\tpflag.StringVar(&Begin, "output-group-begin", "", "Printed before a group.")';

/** A CLI whose flags are declared by name in quotes, with a reference page and a guide. */
function flagsRepo(): TestRepo {
  return gitRepo({
    "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
    "internal/flags/flags.go": FLAGS_GO(GROUP_BEGIN),
    "docs/cli.md":
      "# CLI\n\n| flag | |\n|---|---|\n| `--output` | output style |\n| `--output-group-begin` | before |\n",
    "docs/guide.md": "# Guide\n\nThe output group begins with a line.\n",
  });
}

// Each test builds a real repository and runs the whole plan; slow on a loaded machine.
describe("declared names: flags, keys and tags the code names in quotes", { timeout: 120_000 }, () => {
  it("flags the page writing --output-group-begin when the flag is removed, not the page saying it in prose", async () => {
    const repo = flagsRepo();
    repo.commit({ "internal/flags/flags.go": FLAGS_GO("") });
    const plan = await coldPlanJson(repo);
    expectFlaggedWith(plan, "docs/cli.md", ["writes --output-group-begin (declared in quotes, removed)"]);
  });

  it("takes no evidence from a declaration whose line changed but whose name stays", async () => {
    const repo = flagsRepo();
    repo.commit({ "internal/flags/flags.go": FLAGS_GO(GROUP_BEGIN.replace("before a group", "first")) });
    const plan = await coldPlanJson(repo);
    expect(plan.articles).toEqual([]);
    expect(plan.weak).toEqual([]);
  });

  it("finds the same pages when the article index is warm", async () => {
    const repo = flagsRepo();
    // The first plan writes the article index; the articles' blobs stay the same after it.
    await coldPlanJson(repo);
    repo.commit({ "internal/flags/flags.go": FLAGS_GO("") });
    const warm = await planJson(repo);
    expect(flagged(warm)).toEqual(["docs/cli.md"]);
    expect(warm).toEqual(await coldPlanJson(repo));
  });

  // A Go file whose names sit in quotes (a map's keys, struct tags), before and after the change.
  it.each([
    {
      title:
        "flags the page documenting the siblings of an added table key, and not one naming a single sibling",
      path: "internal/templater/funcs.go",
      source: (extra: string) =>
        `package templater\n\nvar funcs = map[string]any{\n${extra}\t"joinPath": filepath.Join,\n\t"relPath":  filepath.Rel,\n\t"splitList": strings.Split,\n}\n`,
      before: "",
      after: '\t"absPath":  filepath.Abs,\n',
      articles: {
        "docs/templating.md": "# Templating\n\n- `joinPath`: joins\n- `relPath`: relative path\n",
        "docs/guide.md": "# Guide\n\nUse `joinPath` to build paths.\n",
      },
      page: "docs/templating.md",
      reason: "absPath (declared, added); the article documents joinPath, relPath",
    },
    {
      title: "flags the page writing a struct tag's key as code when the field is removed",
      path: "taskfile/ast/task.go",
      source: (extra: string) =>
        `package ast\n\ntype Task struct {\n\tCmds []string \`yaml:"cmds"\`\n${extra}\tDir string \`yaml:"dir"\`\n}\n`,
      before: '\tIgnoreError bool `yaml:"ignore_error"`\n',
      after: "",
      articles: {
        "docs/schema.md": "# Schema\n\n- `cmds`: the commands\n- `ignore_error`: goes on after a failure\n",
        "docs/usage.md": "# Usage\n\nTo ignore an error, see the schema.\n",
      },
      page: "docs/schema.md",
      // The tag names a key of Task (config-keys.ts): the reference rule reads it with its parent.
      reason: "mentions ignore_error (config of Task, removed)",
    },
  ])("$title", async ({ path, source, before, after, articles, page, reason }) => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      [path]: source(before),
      ...articles,
    });
    repo.commit({ [path]: source(after) });
    expectFlaggedWith(await coldPlanJson(repo), page, [reason]);
  });
});
