import { describe, expect, it } from "vitest";
import { gitRepo } from "../../../helpers/git-repo.js";
import { details, expectFlaggedFor, flagged, planJson, related } from "../../../helpers/plan-json.js";

const POWERSHELL_MD = `# Generating PowerShell Completions

Cobra can generate PowerShell completion scripts for PowerShell 5.0 or above.

# What's supported

- Completion for subcommands using their \`.Short\` description
- Completion for non-hidden flags using their \`.Name\` and \`.Shorthand\`

# What's not yet supported

- Custom completions
`;

describe("a document emptied into a pointer at an article", { timeout: 120_000 }, () => {
  it("flags the article a document now points to for what it said, not one a document links in passing", async () => {
    const repo = gitRepo({
      // powershell.md and notes.md are documents, not articles of the config.
      "impact.config.json": JSON.stringify({ docs: ["shell_completions.md", "guide.md"] }),
      "powershell.md": POWERSHELL_MD,
      "notes.md": "# Notes\n\nCompletions are generated at build time.\n",
      "shell_completions.md":
        "# Shell completions\n\n## PowerShell completions\n\nPlease refer to [PowerShell Completions](powershell.md) for details.\n",
      "guide.md": "# Guide\n\nA command has flags and subcommands.\n",
    });
    repo.commit({
      "powershell.md": "Please refer to [Shell Completions](shell_completions.md) for details.\n",
    });
    const plan = await planJson(repo);
    expectFlaggedFor(plan, "shell_completions.md", {
      detail: "powershell.md now points here for what it said (emptied into a link to the article)",
    });
    // One line added linking an article, nothing removed: a link in passing, relevance only.
    repo.commit({
      "notes.md": "# Notes\n\nCompletions are generated at build time; see [the guide](guide.md).\n",
    });
    const passing = await planJson(repo);
    expect(flagged(passing)).toEqual([]);
    expect(related(passing)).toEqual(["guide.md"]);
    expect(details(passing, "guide.md")).toEqual(["a changed line of notes.md names the article's path"]);
  });
});
