import { describe, expect, it } from "vitest";
import { gitRepo } from "../../../helpers/git-repo.js";
import { flagged, planJson } from "../../../helpers/plan-json.js";

const MAIN_GO = 'package main\n\nimport "example.com/tool/gen/cmd"\n\nfunc main() {\n\tcmd.Execute()\n}\n';

describe("a command-line program the change deleted", { timeout: 120_000 }, () => {
  it("flags the page running the deleted program, not the page naming it in prose", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "tool.go": "package tool\n\n// Run runs the tool.\nfunc Run() {}\n",
      "gen/main.go": MAIN_GO,
      "gen/cmd/root.go": "package cmd\n\n// Execute runs the generator.\nfunc Execute() {}\n",
      "docs/completions.md":
        "# Completions\n\nIf you use the generator, create the command with:\n\n```bash\ngen add completion\n```\n",
      "docs/history.md": "# History\n\nThe gen tool came first; gen is a short name.\n",
      // A four-backtick fence quoting a Markdown example: its inner ``` lines do not close it.
      "docs/writing.md": "# Writing\n\n````markdown\n```bash\ngen add completion\n```\n````\n",
    });
    repo.commit({ "gen/main.go": null, "gen/cmd/root.go": null });
    const plan = await planJson(repo);
    expect(flagged(plan).sort()).toEqual(["docs/completions.md", "docs/writing.md"]);
    for (const [path, line] of [
      ["docs/completions.md", 6],
      ["docs/writing.md", 5],
    ] as const)
      expect(plan.articles.find((article) => article.path === path)?.impact[0]).toMatchObject({
        stale: true,
        detail: "runs gen (program, deleted)",
        line,
      });
    // The program moved to another folder under the same name: nothing the page runs is gone.
    const moved = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "gen/main.go": MAIN_GO,
      "docs/completions.md": "# Completions\n\n```bash\n$ gen add completion\n```\n",
    });
    // Rewritten as it moved (git sees a deletion and an addition, not a rename).
    moved.commit({
      "gen/main.go": null,
      "cmd/gen/main.go":
        'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc main() {\n\tif len(os.Args) < 2 {\n\t\tfmt.Println("usage: gen add NAME")\n\t\tos.Exit(2)\n\t}\n}\n',
    });
    expect(flagged(await planJson(moved))).toEqual([]);
  });
});
