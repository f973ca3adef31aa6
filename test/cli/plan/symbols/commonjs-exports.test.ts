import { describe, expect, it } from "vitest";
import { javascriptDeclarations, loadJavaScriptParser } from "../../../../cli/plan/symbols/javascript.js";
import { typescriptCompiler, typescriptDeclarations } from "../../../../cli/plan/symbols/typescript.js";
import { gitRepo } from "../../../helpers/git-repo.js";
import { expectFlaggedWith, flagged, planJson } from "../../../helpers/plan-json.js";

const index = (exports: string[]) =>
  [
    "const ansiStyles = require('ansi-styles');",
    "const styles = Object.create(null);",
    "function Chalk() {}",
    "module.exports = new Chalk();",
    ...exports,
    "",
  ].join("\n");

describe("CommonJS named exports", { timeout: 120_000 }, () => {
  it("are read as exports by both readers: `module.exports.name =` and `exports.name =`, not other assignments", async () => {
    const text = [
      "module.exports.styles = ansiStyles;",
      "exports.supportsColor = detect();",
      "module.exports = new Chalk();",
      "module.exports[computed] = 1;",
      "other.exports.nope = 2;",
      "module.exports.added += 1;",
      "",
    ].join("\n");
    const parse = await loadJavaScriptParser();
    const read = javascriptDeclarations(parse, text, "index.js") ?? [];
    expect(read.map((declaration) => `${declaration.kind} ${declaration.name} ${declaration.line}`)).toEqual([
      "export styles 1",
      "export supportsColor 2",
    ]);
    expect(typescriptDeclarations(typescriptCompiler(), text, "index.js")).toEqual(read);
  });

  it("flags the readme documenting an export the change removed, though the file keeps a constant of that name; a new value is no change", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["readme.md", "docs/**/*.md"] }),
      "index.js": index(["module.exports.styles = ansiStyles;", "module.exports.supportsColor = false;"]),
      "readme.md":
        "# chalk\n\n## API\n\n### chalk.styles\n\n```js\nconsole.log(chalk.styles.red);\n```\n\n### chalk.supportsColor\n",
    });
    repo.commit({ "index.js": index(["module.exports.supportsColor = true;"]) });
    expectFlaggedWith(await planJson(repo), "readme.md", ["mentions styles (export, removed)"]);
    repo.commit({ "index.js": index(["module.exports.supportsColor = process.stdout.isTTY;"]) });
    expect(flagged(await planJson(repo))).toEqual([]);
  });
});
