import { describe, expect, it } from "vitest";
import { gitRepo } from "../../../helpers/git-repo.js";
import { details, expectFlaggedFor, flagged, planJson } from "../../../helpers/plan-json.js";

const CONFIG = JSON.stringify({ docs: ["docs/**/*.md"] });

/** A Go struct whose fields stand apart (doc comments between them): no hunk shows two tags beside a new one. */
function goSettings(fields: string[]): string {
  const body = fields
    .map(
      (field) =>
        `\t// ${field.split(" ")[0]} is one option of the file.\n\t// See the configuration page.\n\t//\n\t// More words.\n\t${field}`,
    )
    .join("\n\n");
  return `package config\n\n// Settings is the file .toolrc.\ntype Settings struct {\n${body}\n}\n`;
}

const FIELDS = [
  'Verbose bool `yaml:"verbose"`',
  'CacheDir string `yaml:"cache-dir,omitempty"`',
  'Concurrency int `yaml:"concurrency"`',
  'Internal string `yaml:"-"`',
];

/** A reference page listing the keys as headings, and a guide writing two of them in a sentence. */
const GO_DOCS = {
  "docs/config.md":
    "# Configuration\n\n### `verbose`\n\nPrints more.\n\n### `cache-dir`\n\nWhere downloads go.\n\n### `concurrency`\n\nHow many at once.\n",
  "docs/guide.md": "# Guide\n\nSet `verbose` and `concurrency` in your file to see more, faster.\n",
};

describe("configuration keys as the members whose siblings a reference page lists", {
  timeout: 120_000,
}, () => {
  it("reads a Go struct's tags as keys: an added key flags the page listing its siblings, a renamed one every page writing it", async () => {
    const repo = gitRepo({
      "impact.config.json": CONFIG,
      "config/settings.go": goSettings(FIELDS),
      ...GO_DOCS,
    });
    repo.commit({ "config/settings.go": goSettings([...FIELDS, 'Offline bool `yaml:"offline"`']) });
    let plan = await planJson(repo);
    expectFlaggedFor(plan, "docs/config.md", {
      detail:
        "mentions offline (config of Settings, added); the article documents verbose, cache-dir, concurrency",
      line: 3,
    });
    // The guide writes two keys in passing: it lists none of them, so nothing it keeps is incomplete.
    expect(details(plan, "docs/guide.md")).toEqual([]);

    repo.commit({
      "config/settings.go": goSettings([
        ...FIELDS.map((field) => field.replace("cache-dir", "cache-path")),
        'Offline bool `yaml:"offline"`',
      ]),
    });
    plan = await planJson(repo);
    expectFlaggedFor(plan, "docs/config.md", {
      detail: "mentions cache-dir (config of Settings, renamed cache-dir → cache-path)",
      line: 7,
    });
  });

  it("reads the fields of a struct deriving serde's Deserialize under their serialized names", async () => {
    const config = (extra: string) =>
      [
        "use serde::Deserialize;",
        "",
        "/// The `[output.html]` table of book.toml.",
        "#[derive(Debug, Default, Deserialize)]",
        '#[serde(default, rename_all = "kebab-case")]',
        "pub(crate) struct HtmlConfig {",
        "    /// The theme to select by default.",
        "    pub default_theme: Option<String>,",
        "    /// Where the book is served.",
        "    site_url: Option<String>,",
        '    #[serde(rename = "git-repo")]',
        "    pub git_repository_url: Option<String>,",
        "    #[serde(skip)]",
        "    pub live_reload: bool,",
        extra,
        "}",
        "",
      ].join("\n");
    const repo = gitRepo({
      "impact.config.json": CONFIG,
      "src/config.rs": config(""),
      "docs/renderers.md":
        '# Renderers\n\n- **default-theme:** The theme to select.\n- **site-url:** Where the book is served.\n- **git-repo:** The repository\'s address.\n\n```toml\n[output.html]\ndefault-theme = "light"\nsite-url = "/book/"\n```\n',
      // A struct field of Rust code, not a key any page lists.
      "docs/internals.md":
        "# Internals\n\n- `live_reload` is set by `mdbook serve`.\n- `default_theme`: read at start.\n",
    });
    repo.commit({ "src/config.rs": config("    /// Add hashes to file names.\n    pub hash_files: bool,") });
    const plan = await planJson(repo);
    expectFlaggedFor(plan, "docs/renderers.md", {
      detail:
        "mentions hash-files (config of HtmlConfig, added); the article documents default-theme, site-url, git-repo",
      line: 3,
    });
    expect(details(plan, "docs/internals.md")).toEqual([]);
  });

  it("reads a JSON Schema's properties under the object they describe, and counts only keys a page lists as entries", async () => {
    const schema = (extra: Record<string, unknown>) =>
      JSON.stringify(
        {
          $schema: "http://json-schema.org/draft-07/schema#",
          definitions: {
            task: {
              type: "object",
              properties: {
                cmds: { type: "array", description: "Commands to run." },
                deps: { type: "array", description: "Tasks to run first." },
                sources: { type: "array", description: "Files whose change reruns the task." },
                ...extra,
              },
            },
          },
          properties: { version: { type: "string" }, tasks: { type: "object" } },
        },
        null,
        2,
      );
    const repo = gitRepo({
      "impact.config.json": CONFIG,
      "website/schema.json": schema({}),
      "docs/schema.md":
        "# Schema\n\n## Task\n\n| Attribute | Type | Description |\n|---|---|---|\n| `cmds` | `[]Command` | Commands to run. |\n| `deps` | `[]Dependency` | Tasks to run first. |\n",
      // Keys in the text of bullets, not what the bullets list.
      "docs/templating.md":
        "# Templating\n\n- **CHECKSUM**: the checksum of the files in `sources`.\n- **TIMESTAMP**: the newest of `sources`, or of `deps` when none.\n",
    });
    repo.commit({ "website/schema.json": schema({ if: { type: "string", description: "A condition." } }) });
    const plan = await planJson(repo);
    expectFlaggedFor(plan, "docs/schema.md", {
      detail: "mentions if (config of task, added); the article documents cmds, deps",
      line: 7,
    });
    expect(flagged(plan)).not.toContain("docs/templating.md");
  });
});
