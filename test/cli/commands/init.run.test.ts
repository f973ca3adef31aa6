import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, parseConfig } from "../../../cli/config.js";
import { main } from "../../../cli/main.js";
import { articleSelector } from "../../../cli/plan/articles.js";
import { compileMapping, escapeGlob } from "../../../cli/plan/mapping.js";
import { gitRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";

// Whole `impact init` runs, each backtesting its proposal and the defaults with a plan of every
// commit of the history; the proposal's rules alone (proposeConfig) are tested in init.test.ts.

/** Rules documented one article each, a guide, a changelog, and a history that couples them. */
function rulesRepo() {
  const repo = gitRepo({
    "README.md": "# Tool\n\nSee docs.\n",
    "CHANGELOG.md": "# Changelog\n",
    "src/rules/indent.ts": "export const indent = 1;\n",
    "src/rules/quotes.ts": "export const quotes = 1;\n",
    "src/rules/semi.ts": "export const semi = 1;\n",
    "src/cli.ts": "export const cli = 1;\n",
    "docs/rules/indent.md": "# indent\n",
    "docs/rules/quotes.md": "# quotes\n",
    "docs/rules/semi.md": "# semi\n",
    "docs/guide.md": "# Guide\n",
    "test/fixtures/sample.md": "# not an article\n",
  });
  for (const [rule, step] of [
    ["indent", 2],
    ["quotes", 2],
    ["semi", 2],
  ] as const) {
    repo.commit(
      {
        [`src/rules/${rule}.ts`]: `export const ${rule} = ${step};\n`,
        [`docs/rules/${rule}.md`]: `# ${rule}\n\nNow ${step}.\n`,
        "CHANGELOG.md": `# Changelog\n\n- ${rule}\n`,
      },
      `${rule} ${step}`,
    );
  }
  return repo;
}

// Each test builds a real repository and backtests the proposal over its history; slow on a loaded machine.
describe("impact init", { timeout: 300_000 }, () => {
  it("proposes docs, ignores and mappings with their evidence and backtest score, writing nothing", async () => {
    const repo = rulesRepo();
    const io = captureIo(repo.dir);
    expect(await main(["init"], io)).toBe(0);
    expect(io.out).toMatchInlineSnapshot(`
      "Proposed impact.config.json (from the layout and 4 commits of history)

      docs      *.md
                1 article at the root: README.md
      docs      docs/**/*.md
                4 articles (a documentation folder): docs/guide.md, docs/rules/indent.md, docs/rules/quotes.md, …
      mappings  src/rules/:name.ts → docs/rules/:name.md
                3 files with a namesake article (indent, quotes, semi); changed together in 3 commits
      minScore  0.1
                the lowest minimum reaching precision 0.6 over 3 commits: precision 100% (3/3), recall 100% (3/3)

      {
        "docs": [
          "*.md",
          "docs/**/*.md"
        ],
        "mappings": [
          {
            "code": "src/rules/:name.ts",
            "docs": "docs/rules/:name.md"
          }
        ],
        "minScore": 0.1
      }

      Backtest over the last 3 commits that changed code and the proposal's articles (both rows: the same commits and answers):
                RECALL      PRECISION   FLAGGED/COMMIT
      proposal  100% (3/3)  100% (3/3)  1.0
      defaults  0% (0/3)    n/a         0.0
      "
    `);
    expect(repo.git("status", "--porcelain")).toBe("");
  });

  it("--write writes the proposal atomically, and never over an existing config", async () => {
    const repo = rulesRepo();
    const io = captureIo(repo.dir);
    expect(await main(["init", "--write", "--json"], io)).toBe(0);
    const written = readFileSync(join(repo.dir, "impact.config.json"), "utf8");
    expect(parseConfig(written).mappings).toEqual([
      { code: "src/rules/:name.ts", docs: "docs/rules/:name.md" },
    ]);
    const printed = JSON.parse(io.out);
    expect(printed.config).toEqual(JSON.parse(written));
    expect(printed.score.recall.rate).toBe(1);
    const again = captureIo(repo.dir);
    expect(await main(["init", "--write"], again)).toBe(2);
    expect(again.err).toBe(
      "impact init: impact.config.json already exists; edit it, or move it away and run impact init --write again\n",
    );
    expect(again.out).toBe("");
    expect(readFileSync(join(repo.dir, "impact.config.json"), "utf8")).toBe(written);
  });

  it("scores the proposal and the defaults over the same commits and answers", async () => {
    const watch = (path: string) => `---\nattention:\n  - op: file\n    path: ${path}\n---\n`;
    const repo = gitRepo({
      "README.md": `${watch("src/cli.ts")}# Tool\n`,
      "src/cli.ts": "export const cli = 1;\n",
      "src/a.ts": "export const a = 1;\n",
      "src/b.ts": "export const b = 1;\n",
      "manual/a.md": `${watch("src/a.ts")}# A\n`,
      "manual/b.md": `${watch("src/b.ts")}# B\n`,
    });
    repo.commit(
      { "src/a.ts": "export const a = 2;\n", "manual/a.md": `${watch("src/a.ts")}# A\n\n2\n` },
      "a 2",
    );
    repo.commit(
      { "src/b.ts": "export const b = 2;\n", "manual/b.md": `${watch("src/b.ts")}# B\n\n2\n` },
      "b 2",
    );
    repo.commit(
      { "src/cli.ts": "export const cli = 2;\n", "README.md": `${watch("src/cli.ts")}# Tool\n\n2\n` },
      "cli 2",
    );
    const io = captureIo(repo.dir);
    expect(await main(["init", "--json"], io)).toBe(0);
    const printed = JSON.parse(io.out);
    expect(printed.config.docs).toEqual(["*.md", "manual/**/*.md"]);
    // The defaults' own window would be the one commit that changed README.md.
    expect([printed.score.commits, printed.defaults.commits]).toEqual([3, 3]);
    expect([printed.score.recall, printed.defaults.recall]).toEqual([
      { hits: 3, of: 3, rate: 1 },
      { hits: 1, of: 3, rate: 1 / 3 },
    ]);
    expect(printed.worseThanDefaults).toBe(false);
  });

  it("says plainly when its proposal scores worse than the defaults, and picks minScore toward --target-precision", async () => {
    const guide = "---\nattention:\n  - op: glob\n    pattern: src/rules/**\n---\n# Guide\n";
    const repo = gitRepo({
      "README.md": "# Tool\n",
      "src/rules/indent.ts": "export const indent = 1;\n",
      "src/rules/quotes.ts": "export const quotes = 1;\n",
      "src/rules/semi.ts": "export const semi = 1;\n",
      "docs/rules/indent.md": "# indent\n",
      "docs/rules/quotes.md": "# quotes\n",
      "docs/rules/semi.md": "# semi\n",
      "docs/guide.md": guide,
    });
    // Each rule change is documented in the guide, never in the rule's own page: the mapping only adds noise.
    for (const rule of ["indent", "quotes", "semi"])
      repo.commit(
        { [`src/rules/${rule}.ts`]: `export const ${rule} = 2;\n`, "docs/guide.md": `${guide}\n${rule}\n` },
        rule,
      );
    const io = captureIo(repo.dir);
    expect(await main(["init", "--target-precision", "0.9"], io)).toBe(0);
    expect(io.out).toContain(
      "minScore  0.1\n          no minimum reaches precision 0.9 over 3 commits; the most precise: precision 50% (3/6), recall 100% (3/3)\n",
    );
    expect(io.out).toContain(
      [
        "proposal  100% (3/3)  50% (3/6)   2.0",
        "defaults  100% (3/3)  100% (3/3)  1.0",
        "",
        "The proposal scores worse than the defaults on these commits: keep the defaults (no impact.config.json), or edit the proposal before writing it.",
      ].join("\n"),
    );
    const bad = captureIo(repo.dir);
    expect(await main(["init", "--target-precision", "1.5"], bad)).toBe(2);
    expect(bad.err).toBe(
      'impact init: --target-precision takes a number above 0, at most 1 (such as 0.6), got "1.5"\n',
    );
  });

  it("proposes no minScore when the backtest flags nothing at any minimum", async () => {
    const repo = gitRepo({ "src/x.ts": "export const x = 1;\n", "docs/a.md": "# A\n" });
    repo.commit({ "src/x.ts": "export const x = 2;\n", "docs/a.md": "# A\n\nNew.\n" }, "x 2");
    const io = captureIo(repo.dir);
    expect(await main(["init", "--json"], io)).toBe(0);
    const printed = JSON.parse(io.out);
    expect(printed.config.minScore).toBeUndefined();
    expect(printed.proposals.map((entry: { key: string }) => entry.key)).not.toContain("minScore");
    expect(printed.score).toEqual({
      commits: 1,
      recall: { hits: 0, of: 1, rate: 0 },
      precision: { hits: 0, of: 0, rate: null },
      flaggedPerCommit: 0,
    });
  });

  it("--write escapes folder names in globs: a folder named {x,.github} makes only itself editable", async () => {
    const repo = gitRepo({
      "{x,.github}/a.md": "# A\n",
      "{x,.github}/b.md": "# B\n",
      ".github/copilot-instructions.md": "# Copilot\n",
      "src/app.ts": "export const a = 1;\n",
    });
    const io = captureIo(repo.dir);
    expect(await main(["init", "--write", "--json"], io)).toBe(0);
    const config = await loadConfig(repo.dir);
    expect(config.docs).toContain("\\{x,.github\\}/**/*.md");
    const isArticle = articleSelector(config);
    expect(isArticle("{x,.github}/a.md")).toBe(true);
    expect(isArticle(".github/copilot-instructions.md")).toBe(false);
    expect(isArticle("x/a.md")).toBe(false);
    // A mapping written with escaped names matches those names only, captures included.
    const mapping = compileMapping({
      code: `src/${escapeGlob("{a,b}")}/:name.ts`,
      docs: `docs/${escapeGlob("{a,b}")}/:name.md`,
    });
    expect(mapping.match("src/{a,b}/x.ts")).toEqual({ name: "x" });
    expect(mapping.match("src/a/x.ts")).toBeUndefined();
    expect(mapping.docs({ name: "x" })("docs/{a,b}/x.md")).toBe(true);
    expect(mapping.docs({ name: "x" })("docs/a/x.md")).toBe(false);
    repo.cleanup();
  });
});
