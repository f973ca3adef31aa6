import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, parseConfig } from "../../cli/config.js";
import { UsageError } from "../../shared/errors.js";
import { gitRepo } from "../helpers/git-repo.js";

function messageOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error("expected a UsageError");
}

describe("loadConfig", () => {
  it("gives the defaults without a config file, and reads one at the root", async () => {
    const repo = gitRepo({ "README.md": "# r\n" });
    const defaults = await loadConfig(repo.dir);
    expect(defaults.docs).toEqual(["docs/**/*.{md,mdx,rst,adoc}", "*.{md,rst,adoc}"]);
    expect(defaults.mappings).toEqual([]);
    repo.write({
      "impact.config.json": JSON.stringify({ docs: ["guide/**/*.md"], ignore: ["guide/old/**"] }),
    });
    const config = await loadConfig(repo.dir);
    expect([config.docs, config.ignore]).toEqual([["guide/**/*.md"], ["guide/old/**"]]);
  });

  it("reports a bad key with its path, an unknown key, bad JSON and a missing --config file in one line", async () => {
    expect(
      messageOf(() =>
        parseConfig(
          JSON.stringify({
            mappings: [
              { code: "a", docs: "b" },
              { code: "c", docs: "d" },
              { code: "e", docs: 3 },
            ],
          }),
        ),
      ),
    ).toMatchInlineSnapshot(`"impact.config.json: mappings[2].docs: expected string, received number"`);
    expect(messageOf(() => parseConfig('{"doc": []}'))).toMatchInlineSnapshot(
      `"impact.config.json: unknown key "doc""`,
    );
    expect(messageOf(() => parseConfig("{ nope"))).toMatch(/^impact\.config\.json: not valid JSON \(/);
    const repo = gitRepo({ "README.md": "# r\n" });
    const error = await loadConfig(repo.dir, join(repo.dir, "other.json")).catch((caught: Error) => caught);
    expect((error as Error).message).toMatchInlineSnapshot(
      `"other.json: cannot read the config file (ENOENT); check the --config path"`,
    );
  });
});
