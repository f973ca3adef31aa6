import { describe, expect, it } from "vitest";
import { gitRepo, type TestRepo } from "../../helpers/git-repo.js";
import { flagged, planJson } from "../../helpers/plan-json.js";

/** The plan with no minimum score: these tests are about which names count, not the ranking. */
const planAtAnyScore = (repo: TestRepo) => planJson(repo, ["--min-score", "0"]);

/** An error class per file, each declaring `code` (got's errors, eslint's rules' `meta`). */
function errorClass(name: string, code: string, extra = ""): string {
  return `export class ${name}Error extends Error {\n\tcode = '${code}';\n${extra}}\n`;
}

describe("names many code files declare are boilerplate", { timeout: 120_000 }, () => {
  it("does not flag a page for a change to a name five code files declare; a rare name and a removed one still flag", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "src/errors/read.ts": errorClass("Read", "ERR_READ", "\tretryLimit = 2;\n"),
      "src/errors/write.ts": errorClass("Write", "ERR_WRITE"),
      "src/errors/parse.ts": errorClass("Parse", "ERR_PARSE"),
      "src/errors/timeout.ts": errorClass("Timeout", "ERR_TIMEOUT"),
      "src/errors/cancel.ts": errorClass("Cancel", "ERR_CANCEL", "\tlegacyCode = 'X';\n"),
      // Tests declare it too, but tests are no code that counts.
      "test/errors.test.ts": errorClass("Fake", "ERR_FAKE"),
      "docs/errors.md": "# Errors\n\nEvery error has a `code` property, like `ERR_READ`.\n",
      "docs/retry.md": "# Retry\n\nA read error sets `retryLimit` to the retries left.\n",
      "docs/legacy.md": "# Legacy\n\nA cancelled request sets `legacyCode`.\n",
    });
    repo.commit({
      "src/errors/read.ts": errorClass("Read", "ERR_READ_FAILED", "\tretryLimit = 3;\n"),
      "src/errors/cancel.ts": errorClass("Cancel", "ERR_CANCEL"),
    });
    const plan = await planAtAnyScore(repo);
    // `code` is declared by 5 code files: its new value in one of them is no evidence.
    expect(flagged(plan)).toEqual(["docs/legacy.md", "docs/retry.md"]);
    expect(plan.dropped).toContainEqual({ symbol: "code", why: "declared by 5 code files: boilerplate" });
  });

  it("keeps a name four code files declare as evidence", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "src/errors/read.ts": errorClass("Read", "ERR_READ"),
      "src/errors/write.ts": errorClass("Write", "ERR_WRITE"),
      "src/errors/parse.ts": errorClass("Parse", "ERR_PARSE"),
      "test/timeout.test.ts": errorClass("Timeout", "ERR_TIMEOUT"),
      "docs/errors.md": "# Errors\n\nEvery error has a `code` property, like `ERR_READ`.\n",
    });
    repo.commit({ "src/errors/read.ts": errorClass("Read", "ERR_READ_FAILED") });
    expect(flagged(await planAtAnyScore(repo))).toEqual(["docs/errors.md"]);
  });

  it("counts a type as declared once: the lines that start with its name elsewhere are its uses (keyed literals)", async () => {
    const uses = (name: string) => `export const ${name} = {\n\tHooks: {},\n};\n`;
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "src/hooks.ts": "export interface Hooks {\n\tbeforeRequest: string[];\n}\n",
      "src/a.ts": uses("a"),
      "src/b.ts": uses("b"),
      "src/c.ts": uses("c"),
      "src/d.ts": uses("d"),
      "src/e.ts": uses("e"),
      "docs/hooks.md": "# Hooks\n\nThe `Hooks` type holds every hook.\n",
    });
    repo.commit({ "src/hooks.ts": "export interface Hooks {\n\tbeforeRequest: number[];\n}\n" });
    expect(flagged(await planAtAnyScore(repo))).toEqual(["docs/hooks.md"]);
  });
});
