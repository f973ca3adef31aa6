import { describe, expect, it } from "vitest";
import { gitRepo } from "../../../helpers/git-repo.js";
import { expectFlaggedFor, flagged, planJson } from "../../../helpers/plan-json.js";

// A private Go function's body: no symbol surface changed, so only the copied lines can flag.
const template = (body: string[]) =>
  `package tpl\n\nfunc mainTemplate() []byte {\n\treturn []byte(\`\nfunc initConfig() {\n${body.join("\n")}\n}\n\`)\n}\n`;

describe("an article copying code the change altered", { timeout: 120_000 }, () => {
  it("flags the page writing two adjacent lines the change separated (a line removed, changed or inserted between them)", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "tpl/main.go": template([
        "\thome, err := homedir.Dir()",
        "\tcobra.CheckErr(err)",
        "\tviper.AddConfigPath(home)",
        '\tviper.SetConfigName(".cobra")',
      ]),
      "docs/guide.md":
        '# Guide\n\nThe generated root command reads its config:\n\n```go\nfunc initConfig() {\n    home, err := homedir.Dir()\n    cobra.CheckErr(err)\n\n    viper.AddConfigPath(home)\n    viper.SetConfigName(".cobra")\n}\n```\n',
      // Writes the removed line alone, beside other code: a passing likeness, not a copy.
      "docs/other.md": "# Other\n\n```go\nhome, err := homedir.Dir()\nfmt.Println(home)\n```\n",
    });
    repo.commit({
      "tpl/main.go": template([
        "\thome, err := os.UserHomeDir()",
        "\tcobra.CheckErr(err)",
        "\tviper.AddConfigPath(home)",
        '\tviper.SetConfigName(".cobra")',
      ]),
    });
    let plan = await planJson(repo);
    expectFlaggedFor(plan, "docs/guide.md", {
      detail: "quotes code the change altered (home, err := homedir.Dir())",
      line: 7,
      hunk: "tpl/main.go @@ -3,7 +3,7 @@ package tpl",
    });
    // A line inserted between two the page writes one after the other.
    repo.commit({
      "tpl/main.go": template([
        "\thome, err := os.UserHomeDir()",
        "\tcobra.CheckErr(err)",
        "\tviper.AddConfigPath(home)",
        '\tviper.SetConfigType("yaml")',
        '\tviper.SetConfigName(".cobra")',
      ]),
    });
    plan = await planJson(repo);
    expectFlaggedFor(plan, "docs/guide.md", { line: 10 });
    // A comment changed: no code the page copies.
    repo.commit({
      "tpl/main.go": template([
        "\thome, err := os.UserHomeDir()",
        "\tcobra.CheckErr(err)",
        "\t// Search config in home directory.",
        "\tviper.AddConfigPath(home)",
        '\tviper.SetConfigType("yaml")',
        '\tviper.SetConfigName(".cobra")',
      ]),
    });
    expect(flagged(await planJson(repo))).toEqual([]);
  });
});
