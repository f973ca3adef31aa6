import { describe, expect, it } from "vitest";
import { gitRepo } from "../../../helpers/git-repo.js";
import { details, expectFlaggedFor, flagged, planJson, related } from "../../../helpers/plan-json.js";

const ENGINE_GO = (engine: string) =>
  [
    "package flags",
    "",
    'import "github.com/spf13/pflag"',
    "",
    "func Parse() {",
    '\tpflag.BoolVar(&PCRE2, "pcre2", false, "Use PCRE2 always.")',
    engine,
    '\tpflag.BoolVar(&Hybrid, "auto-hybrid-regex", false, "Use PCRE2 only if needed.")',
    "}",
    "",
  ].join("\n");

describe("siblings enumerated in one sentence", { timeout: 120_000 }, () => {
  it("flags the page whose sentence lists the added flag's siblings, not the page naming them in two clauses", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "internal/flags/flags.go": ENGINE_GO(""),
      "docs/readme.md":
        "# Tool\n\n* PCRE2 is optional. Among other things, it allows look-around. PCRE2 support\n" +
        "  can be enabled with `-P/--pcre2` (use PCRE2 always) or `--auto-hybrid-regex`\n" +
        "  (use PCRE2 only if needed).\n",
      "docs/guide.md":
        "# Guide\n\nUse `--pcre2` for look-around.\n\n" +
        "When `--pcre2` is off, `--auto-hybrid-regex` picks the engine for you.\n",
    });
    repo.commit({
      "internal/flags/flags.go": ENGINE_GO(
        '\tpflag.StringVar(&Engine, "engine", "default", "The regex engine.")',
      ),
    });
    const plan = await planJson(repo);
    expectFlaggedFor(plan, "docs/readme.md", {
      detail: "engine (declared, added); the article documents --pcre2, --auto-hybrid-regex",
      line: 4,
    });
    expect(related(plan)).toEqual(["docs/guide.md"]);
    expect(details(plan, "docs/guide.md")[0]).toMatch(/not on a list of the article$/);
    expect(flagged(plan)).not.toContain("docs/guide.md");
  });
});
