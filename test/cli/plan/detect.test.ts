import { describe, expect, it } from "vitest";
import { listArticles, readArticles } from "../../../cli/plan/articles.js";
import { detectImpact } from "../../../cli/plan/detector.js";
import { compileMapping } from "../../../cli/plan/mapping.js";
import { ReferenceMatcher } from "../../../cli/plan/matcher.js";
import type { ChangedFile, ChangedSymbol, ChangeSet, SymbolChange } from "../../../shared/changeset.js";
import { ConfigSchema } from "../../../shared/config.js";
import { gitRepo } from "../../helpers/git-repo.js";

const file = (path: string, extra: Partial<ChangedFile> = {}): ChangedFile => ({
  path,
  status: "modified",
  binary: false,
  hunks: [],
  patch: "",
  ...extra,
});

/** A change set of these files and symbols (detection never reads the base and head names). */
const changeOf = (files: ChangedFile[], symbols: ChangedSymbol[] = []): ChangeSet => ({
  base: "b",
  head: "h",
  files,
  symbols,
});

/** A function of `path` that the change added, removed or changed. */
const fn = (name: string, change: SymbolChange, path: string): ChangedSymbol => ({
  name,
  kind: "function",
  change,
  file: path,
});

describe("ReferenceMatcher", () => {
  it("finds identifiers, flags, env vars, dotted names and path suffixes in one pass", () => {
    const matcher = new ReferenceMatcher([
      "parseConfig",
      "--dry-run",
      "IMPACT_MODEL",
      "cli/commands/plan.ts",
      "commands/plan.ts",
      "unused",
    ]);
    const text = [
      "Call `config.parseConfig()` with `--dry-run.`",
      "Set $IMPACT_MODEL or see https://example.com/o/r/blob/main/cli/commands/plan.ts#L3.",
      "The parseConfigs function is different.",
    ].join("\n");
    expect(matcher.scan(text).map((id) => matcher.terms[id])).toEqual([
      "parseConfig",
      "--dry-run",
      "IMPACT_MODEL",
      "cli/commands/plan.ts",
      "commands/plan.ts",
    ]);
    expect(matcher.scan("nothing here")).toEqual([]);
    // Bytes scan without decoding and find the same terms; non-ASCII text around them is fine.
    const bytes = Buffer.from(`Ünïcödé — ${text}`, "utf8");
    expect(matcher.scan(bytes)).toEqual(matcher.scan(text));
  });
});

describe("compileMapping", () => {
  it("binds named captures on the code side and substitutes them on the docs side", () => {
    const mapping = compileMapping({ code: "src/rules/:name.ts", docs: "docs/rules/:name.md" });
    const captures = mapping.match("src/rules/no-console.ts");
    expect(captures).toEqual({ name: "no-console" });
    expect(mapping.docs(captures!)("docs/rules/no-console.md")).toBe(true);
    expect(mapping.docs(captures!)("docs/rules/other.md")).toBe(false);
    expect(mapping.match("src/rules/deep/x.ts")).toBeUndefined();
    const globs = compileMapping({ code: "backend/**/*.{ts,js}", docs: "docs/backend/*.md" });
    expect(globs.match("backend/router/turn.ts")).toEqual({});
    expect(globs.docs({})("docs/backend/router.md")).toBe(true);
  });
});

describe("detectImpact", () => {
  const config = ConfigSchema.parse({
    mappings: [{ code: "src/rules/:name.ts", docs: "docs/rules/:name.md" }],
  });

  it("gives every reason kind, the files behind them, touched articles and dropped symbols", () => {
    const changeSet = changeOf(
      [
        file("src/rules/semi.ts"),
        file("src/auth.ts"),
        file("docs/edited.md"),
        file("vendor/lib", { status: "submodule" }),
      ],
      [
        fn("loginUser", "signature", "src/auth.ts"),
        fn("get", "removed", "src/auth.ts"),
        fn("render", "removed", "src/auth.ts"),
        fn("hashPassword", "body", "src/auth.ts"),
      ],
    );
    const articles = [
      { path: "docs/rules/semi.md", content: "# semi\n" },
      {
        path: "docs/auth.md",
        content: "---\nattention:\n  - op: file\n    path: src/auth.ts\n---\n# Auth\n",
      },
      { path: "docs/login.md", content: "Call `loginUser()`; get and render are words. hashPassword too.\n" },
      { path: "docs/glob.md", content: "---\nattention:\n  - op: glob\n    pattern: src/**\n---\n" },
      { path: "docs/edited.md", content: "edited\n" },
      { path: "docs/vendor.md", content: "see vendor/lib and src/other.ts\n" },
    ];
    // The configured bar rises with the strongest article; 0.4 keeps every reason kind in view.
    const plan = detectImpact({ changeSet, articles, config, minScore: 0.4 });
    expect(plan).toMatchInlineSnapshot(`
      {
        "articles": [
          {
            "files": [
              "src/auth.ts",
              "src/rules/semi.ts",
            ],
            "impact": [
              {
                "detail": "attention glob src/** matches src/auth.ts",
                "kind": "attention",
                "score": 0.7,
                "source": "src/auth.ts",
                "stale": true,
              },
              {
                "detail": "attention glob src/** matches src/rules/semi.ts",
                "kind": "attention",
                "score": 0.7,
                "source": "src/rules/semi.ts",
              },
            ],
            "path": "docs/glob.md",
            "score": 0.91,
            "status": "impacted",
            "tier": "stale",
          },
          {
            "files": [
              "src/auth.ts",
            ],
            "impact": [
              {
                "detail": "attention file src/auth.ts",
                "kind": "attention",
                "score": 0.9,
                "source": "src/auth.ts",
                "stale": true,
              },
            ],
            "path": "docs/auth.md",
            "score": 0.9,
            "status": "impacted",
            "tier": "stale",
          },
          {
            "files": [
              "src/auth.ts",
            ],
            "impact": [
              {
                "detail": "mentions loginUser (function, changed)",
                "kind": "reference",
                "line": 1,
                "score": 0.4,
                "source": "src/auth.ts",
                "stale": true,
              },
            ],
            "path": "docs/login.md",
            "score": 0.4,
            "status": "impacted",
            "tier": "stale",
          },
          {
            "files": [
              "docs/edited.md",
            ],
            "impact": [],
            "path": "docs/edited.md",
            "score": 0,
            "status": "touched",
            "tier": "related",
          },
        ],
        "base": "b",
        "dropped": [
          {
            "symbol": "get",
            "why": "too short",
          },
        ],
        "head": "h",
        "minScore": 0.4,
        "related": [
          {
            "files": [
              "src/rules/semi.ts",
            ],
            "impact": [
              {
                "detail": "mapping src/rules/:name.ts → docs/rules/:name.md (name=semi)",
                "kind": "mapping",
                "score": 0.8,
                "source": "src/rules/semi.ts",
              },
            ],
            "path": "docs/rules/semi.md",
            "score": 0.8,
            "status": "impacted",
            "tier": "related",
          },
        ],
        "skipped": [],
        "threshold": 0.4,
        "warnings": [],
        "weak": [],
      }
    `);
  });

  it("raises the configured bar to a share of the strongest article's score, and keeps the best when all are weak", () => {
    const changeSet = changeOf(
      [file("src/api.ts")],
      [fn("removedThing", "removed", "src/api.ts"), fn("changedThing", "signature", "src/api.ts")],
    );
    const strong = { path: "docs/strong.md", content: "`removedThing()`\n" };
    const mild = { path: "docs/mild.md", content: "`changedThing()`\n" };
    const config = ConfigSchema.parse({});
    const both = detectImpact({ changeSet, articles: [strong, mild], config });
    expect(both.articles.map((article) => [article.path, article.score])).toEqual([["docs/strong.md", 0.8]]);
    expect(both.threshold).toBe(0.5);
    expect(both.weak).toEqual([{ path: "docs/mild.md", score: 0.4 }]);
    // Alone, the mild article is the strongest: the bar is the minimum.
    const alone = detectImpact({ changeSet, articles: [mild], config });
    expect(alone.articles.map((article) => article.path)).toEqual(["docs/mild.md"]);
    expect(alone.threshold).toBe(config.minScore);
    // An explicit minimum is the whole bar.
    const explicit = detectImpact({ changeSet, articles: [strong, mild], config, minScore: 0.3 });
    expect(explicit.articles.map((article) => article.path)).toEqual(["docs/strong.md", "docs/mild.md"]);
  });

  it("applies a glob mapping to every changed file it matches", () => {
    const changeSet = changeOf([file("backend/a.ts"), file("backend/deep/b.ts"), file("cli/c.ts")]);
    const articles = ["docs/backend/one.md", "docs/backend/two.md", "docs/cli.md"].map((path) => ({
      path,
      content: "text\n",
    }));
    const plan = detectImpact({
      changeSet,
      articles,
      config: ConfigSchema.parse({ mappings: [{ code: "backend/**", docs: "docs/backend/*.md" }] }),
    });
    // No public surface changed (no symbol): the mapped articles are related, not flagged.
    expect(plan.articles).toEqual([]);
    expect(plan.related.map((article) => `${article.path}: ${article.files.join(", ")}`)).toEqual([
      "docs/backend/one.md: backend/a.ts, backend/deep/b.ts",
      "docs/backend/two.md: backend/a.ts, backend/deep/b.ts",
    ]);
    // A changed signature of an exported function is surface: the mapped articles are stale.
    const surface = detectImpact({
      changeSet: {
        ...changeSet,
        symbols: [{ name: "serve", kind: "function", change: "signature", file: "backend/a.ts", line: 1 }],
      },
      articles,
      config: ConfigSchema.parse({ mappings: [{ code: "backend/**", docs: "docs/backend/*.md" }] }),
    });
    expect(surface.articles.map((article) => [article.path, article.tier])).toEqual([
      ["docs/backend/one.md", "stale"],
      ["docs/backend/two.md", "stale"],
    ]);
    // A private one is not.
    const internal = detectImpact({
      changeSet: {
        ...changeSet,
        symbols: [
          {
            name: "serve",
            kind: "function",
            change: "signature",
            file: "backend/a.ts",
            line: 1,
            private: true,
          },
        ],
      },
      articles,
      config: ConfigSchema.parse({ mappings: [{ code: "backend/**", docs: "docs/backend/*.md" }] }),
    });
    expect(internal.articles).toEqual([]);
  });

  it("drops names found in most articles (of 20 or more) and names ignored by config", () => {
    const changeSet = changeOf(
      [file("src/a.ts")],
      [
        fn("everywhereThing", "removed", "src/a.ts"),
        fn("rareThing", "removed", "src/a.ts"),
        fn("skipThing", "removed", "src/a.ts"),
      ],
    );
    const articles = Array.from({ length: 24 }, (_, index) => `${String.fromCharCode(97 + index)}`).map(
      (name) => ({
        path: `docs/${name}.md`,
        content: `everywhereThing skipThing${name === "c" ? " rareThing" : ""}\n`,
      }),
    );
    const plan = detectImpact({
      changeSet,
      articles,
      config: ConfigSchema.parse({ ignoreSymbols: ["skipThing"] }),
    });
    expect(plan.articles.map((article) => article.path)).toEqual(["docs/c.md"]);
    expect(plan.dropped).toEqual([
      { symbol: "everywhereThing", why: "found in 24 of 24 articles" },
      { symbol: "skipThing", why: "ignored by config (ignoreSymbols)" },
    ]);
  });

  it("reads attention from articles given as bytes, BOM included, and skips the frontmatter when scanning", () => {
    const changeSet = changeOf([file("src/watched.ts")], [fn("watchedThing", "removed", "src/watched.ts")]);
    const content =
      "\uFEFF---\nattention:\n  - op: file\n    path: src/watched.ts\n---\nUses watchedThing.\n";
    const plan = detectImpact({
      changeSet,
      articles: [{ path: "docs/w.md", content: Buffer.from(content, "utf8") }],
      config: ConfigSchema.parse({}),
    });
    expect(plan.articles[0]?.impact.map((reason) => reason.detail)).toEqual([
      "attention file src/watched.ts",
      "mentions watchedThing (function, removed)",
    ]);
  });

  it("counts single-word names only in code formatting, and never counts added names", () => {
    const changeSet = changeOf(
      [file("src/a.ts")],
      [fn("frobnicate", "removed", "src/a.ts"), fn("brandNewThing", "added", "src/a.ts")],
    );
    const articles = [
      { path: "docs/prose.md", content: "We frobnicate the data. Also brandNewThing.\n" },
      { path: "docs/code.md", content: "Call `frobnicate()` first.\n" },
      { path: "docs/dotted.md", content: "Use lib.frobnicate here.\n" },
      { path: "docs/block.md", content: '```json\n{"frobnicate": true}\n```\n' },
      ...["x", "y", "z"].map((name) => ({ path: `docs/${name}.md`, content: "Unrelated.\n" })),
    ];
    const plan = detectImpact({ changeSet, articles, config: ConfigSchema.parse({}) });
    expect(plan.articles.map((article) => article.path)).toEqual([
      "docs/block.md",
      "docs/code.md",
      "docs/dotted.md",
    ]);
  });

  it("warns about broken frontmatter with file and line, and still finds references", () => {
    const changeSet = changeOf([file("src/a.ts")], [fn("fancyThing", "removed", "src/a.ts")]);
    const articles = [
      { path: "docs/broken.md", content: "---\ntitle: x\nattention: [unclosed\n---\nUses fancyThing.\n" },
      { path: "docs/odd.md", content: "---\nattention:\n  - op: regex\n    pattern: x\n---\n" },
    ];
    const plan = detectImpact({ changeSet, articles, config: ConfigSchema.parse({}) });
    expect(plan.articles.map((article) => `${article.path} ${article.impact[0]?.kind}`)).toEqual([
      "docs/broken.md reference",
    ]);
    expect(plan.warnings).toMatchInlineSnapshot(`
      [
        "docs/broken.md:3: frontmatter is not valid YAML (Flow sequence in block collection must be sufficiently indented and end with a ]); its attention list is ignored, references still count",
        "docs/odd.md: attention[0] is not {op: file, path} or {op: glob, pattern}; it is ignored",
      ]
    `);
  });
});

describe("readArticles", () => {
  it("returns every article's exact bytes, across arena boundaries and for large files", async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 10; index += 1)
      files[`docs/part-${index}.md`] = `${index}`.repeat(1_000_000 + index);
    files["docs/big.md"] = "b".repeat(5_000_000);
    files["docs/empty.md"] = "";
    const repo = gitRepo(files);
    const paths = await listArticles(repo.dir, ConfigSchema.parse({}));
    expect(paths).toHaveLength(12);
    const articles = await readArticles(repo.dir, [...paths, "docs/missing.md"]);
    expect(articles.map((article) => article.path)).toEqual(paths);
    for (const article of articles) {
      expect(Buffer.from(article.content).toString("utf8")).toBe(files[article.path]);
    }
  });
});
