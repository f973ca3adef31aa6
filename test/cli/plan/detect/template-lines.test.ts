import { describe, expect, it } from "vitest";
import { gitRepo } from "../../../helpers/git-repo.js";
import { expectFlaggedFor, flagged, planJson } from "../../../helpers/plan-json.js";

/** A Go help text (a raw string) telling macOS users where bash completions go, under `dir`. */
const COMPLETION_GO = (dir: string) => `package tool

const bashHelp = \`To load completions for every new session, execute once:

#### macOS:

\t%[1]s completion bash > ${dir}/etc/bash_completion.d/%[1]s

You will need to start a new shell for this setup to take effect.
\`
`;

describe("a template line the change altered, copied by an article", { timeout: 120_000 }, () => {
  it("flags the page copying a help text's line with its placeholders, not the page naming its words", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "completions.go": COMPLETION_GO("/usr/local"),
      "docs/shell.md":
        "# Shell completions\n\n```\nBash:\n  # macOS:\n" +
        "  $ %[1]s completion bash > /usr/local/etc/bash_completion.d/%[1]s\n```\n",
      "docs/faq.md": "# FAQ\n\nOn macOS the bash completion goes under /usr/local/etc/bash_completion.d.\n",
    });
    repo.commit({ "completions.go": COMPLETION_GO("$(brew --prefix)") });
    const plan = await planJson(repo);
    expectFlaggedFor(plan, "docs/shell.md", {
      detail: "copies a line the change altered (%[1]s completion bash > /usr/local/etc/bash_completion.d/…)",
      line: 6,
    });
    // A line without a placeholder, changed the same way: no template line, nothing copied.
    repo.commit({
      "completions.go": COMPLETION_GO("$(brew --prefix)").replace("every new session", "each session"),
    });
    expect(flagged(await planJson(repo))).toEqual([]);
  });
});
