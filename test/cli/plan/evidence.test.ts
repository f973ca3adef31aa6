import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { main } from "../../../cli/main.js";
import { combineScores } from "../../../cli/plan/score.js";
import { ConfigSchema } from "../../../shared/config.js";
import { ImpactPlanSchema } from "../../../shared/plan.js";
import { gitRepo, type TestRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";
import { flagged } from "../../helpers/plan-json.js";

async function plan(repo: TestRepo, args: string[] = []) {
  const io = captureIo(repo.dir);
  const code = await main(["plan", ...args], io);
  const out = io.out.replace(/\b[0-9a-f]{12}\b/g, "<sha>");
  return { code, out, err: io.err };
}

async function planJson(repo: TestRepo, args: string[] = []) {
  const result = await plan(repo, ["--json", ...args]);
  expect(result.code, result.err).toBe(0);
  return ImpactPlanSchema.parse(JSON.parse(result.out));
}

describe("combineScores", () => {
  it("combines reasons as independent evidence: more reasons, higher score, never above 1", () => {
    expect(combineScores([])).toBe(0);
    expect(combineScores([0.6])).toBe(0.6);
    expect(combineScores([0.5, 0.5])).toBe(0.75);
    expect(combineScores([1, 0.2])).toBe(1);
    expect(combineScores([0.9, 0.9, 0.9, 0.9])).toBeLessThanOrEqual(1);
  });
});

// Each test builds real repositories and runs the whole plan; slow on a loaded machine.
describe("evidence that matches how docs are written", { timeout: 120_000 }, () => {
  it("flags the README documenting an option whose type changed in index.d.ts, and one whose member was removed", async () => {
    const repo = gitRepo({
      "index.d.ts":
        "export interface Options {\n  verbose?: boolean;\n  encoding?: string;\n  tabWidth?: number;\n}\n",
      "readme.md": "# lib\n\n- `verbose`: log more.\n- `encoding`: the text encoding.\n",
      "docs/tabs.md": "# Tabs\n\nSet `tabWidth` to indent.\n",
      "docs/other.md": "# Other\n\nThe verbose mode of the encoding is prose here.\n",
    });
    repo.commit({
      "index.d.ts": "export interface Options {\n  verbose?: boolean | 'full';\n  encoding?: string;\n}\n",
    });
    // The removed member outweighs the changed type; the whole bar at 0.3 shows both.
    const result = await planJson(repo, ["--min-score", "0.3"]);
    expect(flagged(result)).toEqual(["docs/tabs.md", "readme.md"]);
    const readme = result.articles.find((article) => article.path === "readme.md")!;
    expect(readme.impact[0]?.detail).toBe("mentions verbose (member of Options, changed)");
    // A removed member scores above a changed one; articles are sorted by score.
    expect(result.articles[0]?.path).toBe("docs/tabs.md");
    expect(result.articles[0]!.score!).toBeGreaterThan(readme.score!);
  });

  it("flags the article that documents the siblings of an added option, not one naming a single sibling", async () => {
    const repo = gitRepo({
      "source/options.ts":
        "export type Options = {\n  retries?: number;\n  timeoutMs?: number;\n  followRedirects?: boolean;\n};\n",
      "readme.md": "# lib\n\n## Options\n\n### `retries`\n\n### `timeoutMs`\n\n### `followRedirects`\n",
      "docs/retry.md": "# Retrying\n\nSet `retries`.\n",
    });
    repo.commit({
      "source/options.ts":
        "export type Options = {\n  retries?: number;\n  timeoutMs?: number;\n  followRedirects?: boolean;\n  signal?: AbortSignal;\n};\n",
    });
    const result = await planJson(repo);
    expect(flagged(result)).toEqual(["readme.md"]);
    expect(result.articles[0]?.impact[0]?.detail).toMatch(
      /^mentions signal \(member of Options, added\); the article documents (retries|timeoutMs|followRedirects)/,
    );
  });

  it("flags the article listing a module's exports when one is added; one naming them in passing, or a member whose doc comment changed, is related", async () => {
    const repo = gitRepo({
      "source/index.d.ts":
        "export function paintRed(text: string): string;\nexport function paintBlue(text: string): string;\nexport type Hooks = {\n  /** Runs before each request. */\n  beforeRequest?: () => void;\n};\n",
      "readme.md": "# colors\n\n- `paintRed(text)`: red text.\n- `paintBlue(text)`: blue text.\n",
      "docs/intro.md": "# Intro\n\n`paintRed(text)` colours text red. For blue, call `paintBlue(text)`.\n",
      "docs/hooks.md": "# Hooks\n\n## `beforeRequest`\n\nRuns before each request.\n",
      "docs/unrelated.md": "# Unrelated\n\nThe red and blue team.\n",
    });
    repo.commit({
      "source/index.d.ts":
        "export function paintRed(text: string): string;\nexport function paintBlue(text: string): string;\nexport function paintGreen(text: string): string;\nexport type Hooks = {\n  /** Runs before each request, retries included. */\n  beforeRequest?: () => void;\n};\n",
    });
    const result = await planJson(repo);
    // The readme keeps a complete list of the exports, which the new one makes incomplete.
    expect(flagged(result)).toEqual(["readme.md"]);
    const reason = result.articles[0]?.impact[0];
    expect(reason?.detail).toMatch(/^mentions paintGreen \(function, added\); the article documents/);
    expect([reason?.stale, reason?.line, reason?.hunk]).toEqual([
      true,
      3,
      "source/index.d.ts @@ -1,6 +1,7 @@",
    ]);
    // Naming them in passing (two sentences, no enumeration: see inline-lists.test.ts) keeps no
    // list; a doc comment's wording contradicts nothing.
    expect(result.related.map((article) => article.path).sort()).toEqual(["docs/hooks.md", "docs/intro.md"]);
    const details = result.related.flatMap((article) => article.impact.map((each) => each.detail));
    expect(details).toContain("mentions beforeRequest (member of Hooks, doc comment changed)");
  });

  it("flags a changed default value and a removed message; a body change of a function quoted as code is related", async () => {
    const repo = gitRepo({
      "src/read.js":
        "export function readLines({ lines = 10, strict = false } = {}) {\n  return lines;\n}\nexport function parseHeader(text) {\n  return text.trim();\n}\nexport function check(value) {\n  if (!value) throw new Error('The input must not be empty');\n}\n",
      "docs/read.md": "# Reading\n\n`readLines({lines})` reads 10 lines by default.\n",
      "docs/header.md": "# Headers\n\nCall `parseHeader(text)`.\n",
      "docs/prose.md": "# Prose\n\nWe parseHeader values in prose only.\n",
      "docs/errors.md": "# Errors\n\nIt fails with: The input must not be empty\n",
    });
    repo.commit({
      "src/read.js":
        "export function readLines({ lines = 20, strict = false } = {}) {\n  return lines;\n}\nexport function parseHeader(text) {\n  return text.trim().toLowerCase();\n}\nexport function check(value) {\n  if (!value) throw new Error('Give a value');\n}\n",
    });
    // A body change alone (0.2) is under the default minimum score: weak, unless asked for.
    expect((await planJson(repo)).weak).toEqual([{ path: "docs/header.md", score: 0.2 }]);
    const result = await planJson(repo, ["--min-score", "0.2"]);
    expect(flagged(result).sort()).toEqual(["docs/errors.md", "docs/read.md"]);
    expect(result.related.map((article) => article.path)).toEqual(["docs/header.md"]);
    const details = result.articles.flatMap((article) => article.impact.map((reason) => reason.detail));
    expect(details).toContain('quotes "The input must not be empty" (message, removed)');
    expect(result.related[0]?.impact[0]?.detail).toBe("mentions parseHeader (function, body changed)");
    expect(details.some((detail) => detail.includes("lines (member of readLines, changed)"))).toBe(true);
  });

  it("weighs one change swept across many files as one", async () => {
    const files: Record<string, string> = {};
    const changed: Record<string, string> = {};
    const names = [
      "alpha",
      "beta",
      "gamma",
      "delta",
      "epsilon",
      "zeta",
      "eta",
      "theta",
      "iota",
      "kappa",
      "lambda",
      "mu",
    ];
    for (const name of names) {
      files[`src/rules/${name}.js`] =
        `import util from "old-util";\nexport default function ${name}Rule() {}\n`;
      changed[`src/rules/${name}.js`] =
        `import util from "new-util";\nexport default function ${name}Rule() {}\n`;
      files[`docs/rules/${name}.md`] = `# ${name}\n`;
    }
    files["impact.config.json"] = JSON.stringify({
      mappings: [{ code: "src/rules/:name.js", docs: "docs/rules/:name.md" }],
    });
    const repo = gitRepo(files);
    repo.commit(changed);
    const result = await planJson(repo);
    expect(flagged(result)).toEqual([]);
    expect(result.weak?.length).toBe(names.length);
    // The same rule without the sweep: one file changed, one article flagged.
    repo.commit({
      "src/rules/alpha.js": `import util from "newer-util";\nexport default function alphaRule(x) {}\n`,
    });
    expect(flagged(await planJson(repo))).toEqual(["docs/rules/alpha.md"]);
  });
});

describe("noise defaults", { timeout: 120_000 }, () => {
  it("never uses lockfiles, tests, fixtures, snapshots or CI config as evidence", async () => {
    const repo = gitRepo({
      "src/index.js": "export const a = 1;\n",
      "docs/dev.md":
        "# Dev\n\nSee `package-lock.json`, `tests/help.test.js`, `test/fixtures/input.txt`, `src/__snapshots__/a.snap` and `.github/workflows/ci.yml`.\n",
      "package-lock.json": "{}\n",
      "tests/help.test.js": "// --old-option\n",
      "test/fixtures/input.txt": "a\n",
      "src/__snapshots__/a.snap": "a\n",
      ".github/workflows/ci.yml": "on: push\n",
    });
    repo.commit({
      "package-lock.json": '{"lockfileVersion": 3}\n',
      "tests/help.test.js": 'run(["--old-option"]);\n',
      "test/fixtures/input.txt": "b\n",
      "src/__snapshots__/a.snap": "b\n",
      ".github/workflows/ci.yml": "on: [push]\n",
    });
    const result = await plan(repo, ["--explain", "docs/dev.md"]);
    expect(result.code).toBe(0);
    expect(result.out).toContain("docs/dev.md has no reason to change");
    expect(result.out).toContain("tests/help.test.js (evidence.ignore");
    expect(result.out).toContain(".github/workflows/ci.yml (evidence.ignore {.github,");
  });

  it("does not treat changelogs, release notes or migration guides as articles", async () => {
    const repo = gitRepo({
      "src/api.js": "export function removedHelper() {}\nexport function keptHelper() {}\n",
      "CHANGELOG.md": "# Changelog\n\n- added `removedHelper`\n",
      "docs/migration-guide.md": "# Migrating\n\n`removedHelper` replaces `oldHelper`.\n",
      "docs/releases/v2.md": "# v2\n\n`removedHelper`\n",
      "docs/api.md": "# API\n\n`removedHelper()` helps.\n",
      "docs/intro.md": "# Intro\n",
    });
    repo.commit({ "src/api.js": "export function keptHelper() {}\n" });
    const result = await planJson(repo);
    // A distinctive name in every article of a small repository still counts.
    expect(flagged(result)).toEqual(["docs/api.md"]);
  });

  it("drops the package's own name and lists it", async () => {
    const repo = gitRepo({
      "package.json": JSON.stringify({ name: "@acme/frobnicator" }),
      "src/index.ts": "export function frobnicator(input: string) {}\n",
      "readme.md": "# frobnicator\n\n`frobnicator(input)` frobs.\n",
    });
    repo.commit({ "src/index.ts": "export function frobnicator(input: string, level: number) {}\n" });
    const result = await planJson(repo);
    expect(flagged(result)).toEqual([]);
    expect(result.dropped).toContainEqual({
      symbol: "frobnicator",
      why: "the package's own name (package.json)",
    });
  });

  it("drops protocol names every class has (__init__), and still flags the class named beside them", async () => {
    const repo = gitRepo({
      "src/client.py":
        "class Client:\n    def __init__(self, url):\n        self.url = url\n\n    def fetch_page(self, path):\n        return path\n",
      "docs/client.md": "# Client\n\n`Client.__init__(url)` and `fetch_page(path)`.\n",
      "docs/other.md": "# Other\n\nAny class defines `__init__`.\n",
    });
    repo.commit({
      "src/client.py":
        "class Client:\n    def __init__(self, url, timeout):\n        self.url = url\n\n    def fetch_page(self, path, retries):\n        return path\n",
    });
    const result = await planJson(repo);
    expect(flagged(result)).toEqual(["docs/client.md"]);
    expect(result.dropped).toContainEqual({ symbol: "__init__", why: "a protocol name every class has" });
  });
});

describe("scores and the minimum score", { timeout: 120_000 }, () => {
  function twoArticles(): TestRepo {
    const repo = gitRepo({
      "src/api.ts": "export function configureClient(a: string) {}\n",
      "docs/strong.md":
        "---\nattention:\n  - op: file\n    path: src/api.ts\n---\n# Strong\n\n`configureClient(a)`\n",
      "docs/mild.md": "# Mild\n\n`configureClient(a)`\n",
    });
    repo.commit({ "src/api.ts": "export function configureClient(a: string, b: number) {}\n" });
    return repo;
  }

  it("shows each article's score in the table, strongest first; the bar rises with the strongest article, and --min-score alone sets it for --check", async () => {
    const repo = twoArticles();
    const result = await plan(repo);
    expect(result.out).toMatchInlineSnapshot(`
      "1 article impacted, 0 touched by the change (<sha>..<sha>)

      ARTICLE         STATUS    SCORE  REASON     FILE        DETAIL
      docs/strong.md  impacted  0.94   attention  src/api.ts  attention file src/api.ts (0.90)
                                       reference  src/api.ts  mentions configureClient (function, changed) (0.40)

      Below 0.59 (63% of this change's strongest article; the minimum 0.30): docs/mild.md (0.40)
      "
    `);
    // An explicit --min-score is the whole bar: 0.3 keeps the mild article, 0.7 leaves it out.
    expect(flagged(await planJson(repo, ["--min-score", "0.3"]))).toEqual(["docs/strong.md", "docs/mild.md"]);
    const strict = await plan(repo, ["--min-score", "0.7"]);
    expect(strict.out).toContain("Below the minimum 0.70: docs/mild.md (0.40)");
    const explained = await plan(repo, ["--explain", "docs/mild.md"]);
    expect(explained.out.split("\n")[0]).toBe(
      "docs/mild.md is left out: score 0.40 is below 0.59 (63% of this change's strongest article; the minimum 0.30)",
    );
    const check = await plan(repo, ["--check", "--min-score", "0.7", "--quiet"]);
    expect(check.code).toBe(3);
    expect(check.err).toContain(
      "1 article probably needs an update that this change did not make: docs/strong.md",
    );
    expect((await plan(repo, ["--check", "--min-score", "0.99", "--quiet"])).code).toBe(0);
  });

  it("reads minScore from the config, and refuses a --min-score outside 0 to 1", async () => {
    const repo = twoArticles();
    writeFileSync(`${repo.dir}/impact.config.json`, JSON.stringify({ minScore: 0.7 }));
    expect(flagged(await planJson(repo))).toEqual(["docs/strong.md"]);
    const bad = await plan(repo, ["--min-score", "7"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe('impact plan: --min-score takes a number from 0 to 1 (such as 0.3), got "7"\n');
  });

  it("explains one article: every signal with its score, kept or dropped, and why", async () => {
    const repo = twoArticles();
    repo.commit({
      "docs/mild.md": "# Mild\n\n`configureClient(a)` and the word configureClient.\n",
      "src/api.ts": "export function configureClient(a: string, c: boolean) {}\n",
    });
    const result = await plan(repo, ["--explain", "./docs/strong.md", "--min-score", "0.5"]);
    expect(result.out).toMatchInlineSnapshot(`
      "docs/strong.md is impacted: score 0.94 (the minimum 0.50)
      Tier: stale: it writes something the change made false (or keeps a list the change made incomplete), and scores 0.94 ≥ the bar 0.5

      Kept (combined: 1 - the product of (1 - score)):
        SCORE  REASON     EVIDENCE        FILE        DETAIL
        0.90   attention  stale (line 8)  src/api.ts  attention file src/api.ts
        0.40   reference  stale (line 8)  src/api.ts  mentions configureClient (function, changed)

      Changed files not used as evidence: docs/mild.md (an article)
      "
    `);
    // A path that names no file is a typo: said so, exit 2.
    const json = await plan(repo, ["--explain", "docs/nope.md", "--json"]);
    expect(json.code).toBe(2);
    expect(json.out).toBe("");
    expect(json.err).toContain("--explain docs/nope.md: no such file in the repository");
  });
});

describe("config mistakes are never silent", { timeout: 120_000 }, () => {
  it("warns about a docs glob that matches no file", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["doc/**/*.md", "README.md"] }),
      "README.md": "# x\n",
      "src/a.ts": "export const a = 1;\n",
    });
    repo.commit({ "src/a.ts": "export const a = 2;\n" });
    const result = await plan(repo);
    expect(result.code).toBe(0);
    expect(result.err).toBe(
      'warning: config docs glob "doc/**/*.md" matches no file; check its spelling (globs are relative to the repository root)\n',
    );
  });

  it("refuses a mapping whose docs side names a capture the code side lacks, and unknown keys; accepts $schema", async () => {
    const repo = gitRepo({ "README.md": "# x\n", "src/a.ts": "export const a = 1;\n" });
    repo.commit({ "src/a.ts": "export const a = 2;\n" });
    writeFileSync(
      `${repo.dir}/impact.config.json`,
      JSON.stringify({ mappings: [{ code: "src/:file.ts", docs: "docs/:name.md" }] }),
    );
    const mapping = await plan(repo);
    expect(mapping.code).toBe(2);
    expect(mapping.err).toBe(
      'impact plan: impact.config.json: mappings[0].docs: :name is not captured by the code side "src/:file.ts"; capture it there (e.g. src/:name.ts) or remove it from "docs/:name.md"\n',
    );
    writeFileSync(`${repo.dir}/impact.config.json`, JSON.stringify({ evidence: { ignored: [] } }));
    const unknown = await plan(repo);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toBe('impact plan: impact.config.json: evidence: unknown key "ignored"\n');
    writeFileSync(
      `${repo.dir}/impact.config.json`,
      JSON.stringify({ $schema: "./node_modules/impact-docs/schema/config.schema.json", minScore: 0.2 }),
    );
    expect((await plan(repo)).code).toBe(0);
  });
});

const CONFIG_SCHEMA_FILE = fileURLToPath(new URL("../../../schema/config.schema.json", import.meta.url));

/** The JSON Schema of impact.config.json as generated from shared/config.ts (what a user writes: defaults optional). */
function generatedConfigSchema(): string {
  const schema = z.toJSONSchema(ConfigSchema, { target: "draft-2020-12", io: "input" });
  return `${JSON.stringify({ ...schema, $id: "https://impact.invalid/schema/config.schema.json", title: "impact.config.json" }, null, 2)}\n`;
}

describe("schema/config.schema.json", () => {
  it("is the current JSON Schema of shared/config.ts (IMPACT_UPDATE_SCHEMA=1 regenerates it)", () => {
    if (process.env.IMPACT_UPDATE_SCHEMA === "1") writeFileSync(CONFIG_SCHEMA_FILE, generatedConfigSchema());
    expect(
      JSON.parse(readFileSync(CONFIG_SCHEMA_FILE, "utf8")),
      "schema/config.schema.json is stale",
    ).toEqual(JSON.parse(generatedConfigSchema()));
  });
});
