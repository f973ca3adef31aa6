import { describe, expect, it } from "vitest";
import { readDeclarations } from "../../../../cli/plan/symbols/extract-symbols.js";

/** The config keys a file declares, as `parent::key`. */
async function keysOf(path: string, text: string): Promise<string[] | undefined> {
  const declarations = await readDeclarations(path, text);
  return declarations?.filter((declaration) => declaration.kind === "config").map((key) => key.path);
}

describe("configuration keys, named as the file writes them", () => {
  it.each([
    {
      title: "Go: the first key tag names a field; `-`, `,inline`, untagged and unexported fields are none",
      path: "config.go",
      text: [
        "package config",
        "",
        "type Remote struct {",
        '\tCacheDir string `yaml:"cache-dir,omitempty" json:"cacheDir"`',
        '\tTimeout  int    `json:"timeout"`',
        '\tOffline  bool   `yaml:",omitempty"`',
        '\tSecret   string `yaml:"-"`',
        '\tBase     `yaml:",inline"`',
        "\tUntagged string",
        '\tprivate  string `yaml:"private"`',
        "}",
      ].join("\n"),
      keys: ["Remote::cache-dir", "Remote::timeout", "Remote::offline"],
    },
    {
      title: "Rust: fields of a struct deriving Deserialize, by rename or rename_all; skip and flatten aside",
      path: "src/config.rs",
      text: [
        "#[derive(Deserialize)]",
        '#[serde(default, rename_all = "camelCase")]',
        "struct Build {",
        "    /// Where to build.",
        "    build_dir: PathBuf,",
        '    #[serde(rename = "create")]',
        "    create_missing: bool,",
        "    #[serde(skip)]",
        "    cache: Cache,",
        "    #[serde(flatten)]",
        "    rest: Table,",
        "}",
        "",
        "struct Plain {",
        "    not_a_key: bool,",
        "}",
      ].join("\n"),
      keys: ["Build::buildDir", "Build::create"],
    },
    {
      title:
        "JSON Schema: properties under their definition, nested objects by path, alternatives and items merged",
      path: "website/schema.json",
      text: JSON.stringify({
        definitions: {
          task: {
            properties: {
              cmds: { type: "array" },
              requires: {
                type: "object",
                properties: {
                  vars: { items: { oneOf: [{ type: "string" }, { properties: { name: {} } }] } },
                },
              },
            },
          },
        },
        properties: { version: { type: "string" } },
      }),
      keys: [
        "task::cmds",
        "task::requires",
        "task.requires::vars",
        "task.requires.vars::name",
        "schema::version",
      ],
    },
  ])("$title", async ({ path, text, keys }) => {
    expect(await keysOf(path, text)).toEqual(keys);
  });

  it("reads no keys from a schema that is not JSON, or a JSON file that is no schema", async () => {
    expect(await keysOf("schema.json", '{"properties": {"a": ')).toBeUndefined();
    expect(await keysOf("package.json", '{"properties": {"a": {}}}')).toBeUndefined();
  });
});
