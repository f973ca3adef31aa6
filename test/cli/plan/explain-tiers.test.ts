import { describe, expect, it } from "vitest";
import { main } from "../../../cli/main.js";
import { gitRepo, type TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";

async function explain(repo: TestRepo, path: string, json = true) {
  const io = captureIo(repo.dir);
  const code = await main(["plan", "--explain", path, ...(json ? ["--json"] : [])], io);
  expect(code, io.err).toBe(0);
  return json ? (JSON.parse(io.out) as { tier?: string; why: string; isArticle: boolean }) : io.out;
}

/** One change (a public function removed, a file's internals changed) and an article of every kind. */
function everyKind(): TestRepo {
  const repo = gitRepo({
    "impact.config.json": JSON.stringify({
      mappings: [{ code: "src/:name.ts", docs: "docs/:name.md" }],
      dismissed: [{ article: "docs/dismissed.md", reason: "it only lists what existed in 2019" }],
    }),
    ".gitignore": "docs/private.md\n",
    "src/api.ts": "export function fetchWidget(id: string) {\n  return id;\n}\n",
    "src/util.ts": "export function helper(a: number) {\n  return a;\n}\n",
    "docs/v2/api.md": "# API\n\nCall `fetchWidget(id)`.\n",
    "docs/v1/api.md": "# API (v1)\n\nCall `fetchWidget(id)`.\n",
    "docs/util.md": "# Util\n\nHelpers.\n",
    "docs/dismissed.md": "# Old list\n\n- `fetchWidget()`\n",
    "docs/migration-guide/v2.md": "# Moving to v2\n\n`fetchWidget()` is gone.\n",
    "CHANGELOG.md": "# Changes\n\n- `fetchWidget()` added.\n",
    "docs/unrelated.md": "# Unrelated\n\nNothing here.\n",
    "notes/draft.md": "`fetchWidget()`\n",
    "README.md": "# Project\n",
  });
  repo.commit({
    "src/api.ts": null,
    "src/util.ts": "export function helper(a: number) {\n  return a + 0;\n}\n",
    "README.md": "# Project\n\nNo more widgets.\n",
  });
  repo.write({ "docs/private.md": "`fetchWidget()`\n" });
  return repo;
}

describe("plan --explain says for every article which tier it is in and why", () => {
  it("names the tier, or why it is not listed, for stale, related, older-version, touched, dismissed, records, ignored and unmatched files", async () => {
    const repo = everyKind();
    const cases: [string, string | undefined, RegExp][] = [
      ["docs/v2/api.md", "stale", /^stale: it writes something the change made false/],
      [
        "docs/util.md",
        "related",
        /^related: it is about the changed code, but nothing it writes is contradicted/,
      ],
      [
        "docs/v1/api.md",
        "related",
        /^related: docs\/v1 is an older version than docs\/v2 \(config versions\); listed apart, not flagged/,
      ],
      ["README.md", "related", /^touched: the change edits it already/],
      [
        "docs/dismissed.md",
        undefined,
        /^not listed: every reason the change gives was dismissed in the config \(it only lists what existed in 2019\)$/,
      ],
      [
        "docs/migration-guide/v2.md",
        undefined,
        /^not listed: it matches the default ignore glob ".*migration-guide.*": records of the past .* are not fixed forward/,
      ],
      ["CHANGELOG.md", undefined, /^not listed: it matches the default ignore glob ".*changelog.*"/],
      ["notes/draft.md", undefined, /^not listed: no docs glob matches it \(docs: docs\/\*\*\/\*/],
      ["docs/private.md", undefined, /^not listed: git ignores it/],
      ["docs/unrelated.md", undefined, /^no reason: nothing in the change concerns this article$/],
    ];
    for (const [path, tier, why] of cases) {
      const explained = (await explain(repo, path)) as { tier?: string; why: string };
      expect(explained.why, path).toMatch(why);
      expect(explained.tier, path).toBe(tier);
    }
  });

  it("prints the Tier line for a file that is not an article too", async () => {
    const repo = everyKind();
    const out = (await explain(repo, "docs/migration-guide/v2.md", false)) as string;
    expect(out.split("\n").slice(0, 2)).toEqual([
      "docs/migration-guide/v2.md is not an article",
      expect.stringMatching(/^Tier: not listed: it matches the default ignore glob /),
    ]);
  });
});
