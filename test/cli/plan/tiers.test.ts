import { describe, expect, it } from "vitest";
import { pickCodeOnly } from "../../../bench/truth.js";
import { main } from "../../../cli/main.js";
import { articleSelector } from "../../../cli/plan/articles.js";
import { replayCommit } from "../../../cli/plan/backtest.js";
import { detectImpact } from "../../../cli/plan/detector.js";
import { isPrivateDeclaration } from "../../../cli/plan/symbols/privacy.js";
import type { ChangeSet } from "../../../shared/changeset.js";
import { ConfigSchema } from "../../../shared/config.js";
import { gitRepo } from "../../helpers/git-repo.js";
import { captureIo } from "../../helpers/io.js";
import { expectFlaggedFor, flagged, planJson, related } from "../../helpers/plan-json.js";

// Each test builds a real repository and runs the whole plan; slow on a loaded machine.
describe("stale or related", { timeout: 120_000 }, () => {
  it("flags the page quoting a public function whose signature changed, with its line and hunk; a private one's is not surface", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "src/lib/api.py": "def connect(host):\n    return host\n\n\ndef _retry_later(host):\n    return host\n",
      "docs/connect.md": "# Connect\n\nCall it like this:\n\n`connect(host)` opens a connection.\n",
      "docs/internals.md": "# Internals\n\n`_retry_later(host)` waits.\n",
    });
    repo.commit({
      "src/lib/api.py":
        "def connect(host, port):\n    return host\n\n\ndef _retry_later(host, delay):\n    return host\n",
    });
    const plan = await planJson(repo, ["--min-score", "0"]);
    expect(flagged(plan)).toEqual(["docs/connect.md"]);
    const reason = plan.articles[0]?.impact[0];
    expect([reason?.detail, reason?.stale, reason?.line, reason?.hunk]).toEqual([
      "mentions connect (function, changed)",
      true,
      5,
      "src/lib/api.py @@ -1,6 +1,6 @@",
    ]);
    expect(plan.articles[0]?.tier).toBe("stale");
    // _retry_later is private: the page about it is about the changed code, nothing more.
    expect(related(plan)).toEqual(["docs/internals.md"]);
    expect(plan.related[0]?.tier).toBe("related");
    // --explain says which tier and why.
    const io = captureIo(repo.dir);
    expect(await main(["plan", "--explain", "docs/internals.md", "--min-score", "0"], io)).toBe(0);
    expect(io.out).toContain("docs/internals.md is related (listed apart, not flagged)");
    expect(io.out).toContain(
      "Tier: related: it is about the changed code, but nothing it writes is contradicted",
    );
    expect(io.out).toMatch(/relevance\s+src\/lib\/api\.py\s+mentions _retry_later/);
  });

  it("flags the page writing a public name the change renamed to a private one", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md"] }),
      "src/files.py": "class LazyFile:\n    def close_intelligently(self):\n        return 1\n",
      "docs/files.md": "# Files\n\nA `LazyFile` opens on first use.\n",
    });
    repo.commit({
      "src/files.py": "class _LazyFile:\n    def close_intelligently(self):\n        return 1\n",
    });
    const plan = await planJson(repo);
    expect(flagged(plan)).toEqual(["docs/files.md"]);
    expect(plan.articles[0]?.impact[0]?.detail).toBe(
      "mentions LazyFile (class, renamed LazyFile → _LazyFile)",
    );
  });

  it("flags the README pinning a release the change bumped: a tag in a link, a release line", async () => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md", "*.md"] }),
      "Cargo.toml": '[package]\nname = "tool"\nversion = "0.3.2"\n',
      "src/version.py": '__version__ = "0.18.2"\n',
      "README.md": "# tool\n\n[License](https://example.com/blob/tool-v0.3.2/LICENSE)\n",
      "docs/install.md": "# Install\n\nPin your dependencies to `0.18.*`.\n",
      "docs/other.md": "# Other\n\nVersion 0.17 was the first.\n",
    });
    repo.commit({
      "Cargo.toml": '[package]\nname = "tool"\nversion = "0.3.3"\n',
      "src/version.py": '__version__ = "0.19.0"\n',
    });
    const plan = await planJson(repo);
    expect(flagged(plan).sort()).toEqual(["README.md", "docs/install.md"]);
    expect(plan.articles.find((article) => article.path === "README.md")?.impact[0]?.line).toBe(3);
  });

  it("flags every article writing a removed name, however many do", () => {
    const changeSet: ChangeSet = {
      base: "b",
      head: "h",
      files: [{ path: "src/a.ts", status: "modified", binary: false, hunks: [], patch: "" }],
      symbols: [{ name: "legacyRender", kind: "function", change: "removed", file: "src/a.ts", line: 1 }],
    };
    // Named by 9 of 40 articles: a share factor would put most of them under the bar.
    const articles = Array.from({ length: 40 }, (_, index) => ({
      path: `docs/a${String(index).padStart(2, "0")}.md`,
      content: index < 9 ? "# A\n\nCall `legacyRender()`.\n" : "# A\n\nNothing.\n",
    }));
    const plan = detectImpact({ changeSet, articles, config: ConfigSchema.parse({}) });
    expect(flagged(plan)).toHaveLength(9);
  });

  it("holds an attention tie to a file whose declarations are not read; a mapping to it is related", () => {
    const changeSet: ChangeSet = {
      base: "b",
      head: "h",
      files: [{ path: "config/port.txt", status: "modified", binary: false, hunks: [], patch: "" }],
      symbols: [],
    };
    const articles = [
      {
        path: "docs/watched.md",
        content: "---\nattention:\n  - op: file\n    path: config/port.txt\n---\n# Port\n",
      },
      { path: "docs/config/port.md", content: "# Port\n" },
    ];
    const plan = detectImpact({
      changeSet,
      articles,
      config: ConfigSchema.parse({ mappings: [{ code: "config/:name.txt", docs: "docs/config/:name.md" }] }),
    });
    expect(flagged(plan)).toEqual(["docs/watched.md"]);
    expect(related(plan)).toEqual(["docs/config/port.md"]);
  });

  // A mapped page whose code's public surface changed is flagged by its mapping.
  it.each([
    {
      // Read as a private function before (its signature had no `export`): the mapping was related.
      title: "flags the mapped page of a file whose exported arrow function took a new parameter",
      docs: "docs/**/*.md",
      mapping: { code: "src/:name.ts", docs: "docs/:name.md" },
      files: {
        "src/server.ts": "export const start = () => {\n  return listen();\n};\n",
        "docs/server.md": "# Server\n\nStart it and it listens.\n",
      },
      change: { "src/server.ts": "export const start = (log = false) => {\n  return listen(log);\n};\n" },
      page: "docs/server.md",
    },
    {
      title:
        "flags the mapped page of an example whose private declarations changed: an example is read whole",
      docs: "examples/**/*.md",
      mapping: { code: "examples/:name.rs", docs: "examples/:name.md" },
      files: {
        "examples/greet.rs": "struct Args {\n    name: String,\n}\n\nfn main() {}\n",
        "examples/greet.md": "# greet\n\n```console\n$ greet --help\n```\n",
      },
      change: {
        "examples/greet.rs":
          "enum Cli {\n    Hello(Hello),\n}\n\nstruct Hello {\n    name: String,\n}\n\nfn main() {}\n",
      },
      page: "examples/greet.md",
    },
  ])("$title", async ({ docs, mapping, files, change, page }) => {
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: [docs], mappings: [mapping] }),
      ...files,
    });
    repo.commit(change);
    expectFlaggedFor(await planJson(repo), page, { kind: "mapping" });
  });

  it("flags the README listing the dependencies when the manifest adds or removes one; a version bump is nothing", async () => {
    const setup = (requirements: string[]) =>
      `from setuptools import setup\n\nsetup(\n    name="tool",\n    install_requires=[\n${requirements.map((line) => `        "${line}",\n`).join("")}    ],\n)\n`;
    const repo = gitRepo({
      "impact.config.json": JSON.stringify({ docs: ["docs/**/*.md", "README.md"] }),
      "setup.py": setup(["certifi", "sniffio", "brotlipy==0.7.*", "idna>=2.0"]),
      "README.md":
        "# tool\n\nIt relies on:\n\n* `certifi` - certificates.\n* `sniffio` - async detection.\n* `brotlipy` - brotli decoding.\n* `idna` - domain names.\n",
      "docs/guide.md": "# Guide\n\nWe use certifi and sniffio, as everyone does.\n",
    });
    repo.commit({
      "setup.py": setup(["certifi", "sniffio", "charset_normalizer", "brotlipy==0.7.*", "idna>=2.0"]),
    });
    let plan = await planJson(repo);
    expectFlaggedFor(plan, "README.md", {
      detail: "charset_normalizer (dependency, added); the article lists certifi, sniffio, brotlipy",
      line: 5,
    });
    repo.commit({
      "setup.py": setup(["certifi", "sniffio", "charset_normalizer", "brotlicffi==1.*", "idna>=2.0"]),
    });
    plan = await planJson(repo);
    expectFlaggedFor(plan, "README.md", {
      detail: "writes brotlipy (dependency, removed)",
      line: 7,
    });
    repo.commit({
      "setup.py": setup(["certifi", "sniffio", "charset_normalizer", "brotlicffi==1.1.*", "idna>=3.0"]),
    });
    expect(flagged(await planJson(repo))).toEqual([]);
  });

  it("does not count pages of a migration-guide folder as articles by default", () => {
    const isArticle = articleSelector(ConfigSchema.parse({}));
    expect(isArticle("docs/migration-guide/v3.md")).toBe(false);
    expect(isArticle("docs/upgrade-guides/2.0.md")).toBe(false);
    expect(isArticle("docs/migrating/from-v1.md")).toBe(false);
    expect(isArticle("docs/guide.md")).toBe(true);
  });
});

describe("private declarations", () => {
  it("follows each language's rule", () => {
    const declaration = (name: string, signature = "", parent?: string) => ({
      name,
      kind: "function" as const,
      signature,
      parent,
    });
    const none = new Set<string>();
    expect(isPrivateDeclaration(declaration("_helper"), "python", none)).toBe(true);
    expect(isPrivateDeclaration(declaration("__init__"), "python", none)).toBe(false);
    expect(isPrivateDeclaration(declaration("helper"), "python", none)).toBe(false);
    expect(isPrivateDeclaration(declaration("run", "", "_Runner"), "python", none)).toBe(true);
    expect(isPrivateDeclaration(declaration("parseFlags"), "go", none)).toBe(true);
    expect(isPrivateDeclaration(declaration("ParseFlags"), "go", none)).toBe(false);
    expect(isPrivateDeclaration(declaration("build", "fn \u0000()"), "rust", none)).toBe(true);
    expect(isPrivateDeclaration(declaration("build", "pub fn \u0000()"), "rust", none)).toBe(false);
    expect(isPrivateDeclaration(declaration("helper", "function \u0000()"), "typescript", none)).toBe(true);
    expect(
      isPrivateDeclaration(declaration("helper", "function \u0000()"), "typescript", new Set(["helper"])),
    ).toBe(false);
    expect(isPrivateDeclaration(declaration("helper", "export function \u0000()"), "typescript", none)).toBe(
      false,
    );
    expect(isPrivateDeclaration(declaration("_transform", "\u0000()", "Request"), "typescript", none)).toBe(
      true,
    );
    expect(isPrivateDeclaration(declaration("transform", "\u0000()", "Request"), "typescript", none)).toBe(
      false,
    );
  });
});

describe("the truth bench's abstention half", { timeout: 120_000 }, () => {
  it("picks the newest commits that changed source and no article, and replays one as it is", async () => {
    const repo = gitRepo({
      "src/a.ts": "export const retries = 1;\n",
      "docs/a.md": "# A\n\nIt is `retries`.\n",
    });
    const codeOnly = repo.commit({ "src/a.ts": "export const retries = 2;\n" }, "code only");
    repo.commit(
      { "src/a.ts": "export const retries = 3;\n", "docs/a.md": "# A\n\nIt is `retries` (3).\n" },
      "with docs",
    );
    repo.commit({ "src/a.test.ts": "test();\n" }, "a test only");
    const config = ConfigSchema.parse({});
    const head = repo.git("rev-parse", "HEAD");
    expect(await pickCodeOnly(repo.dir, head, config, 5)).toEqual([codeOnly]);
    const { plan } = await replayCommit({ repoRoot: repo.dir, config, sha: codeOnly, genericNames: [] });
    // The value of `retries` changed and the page quotes it: the plan flags it, on a commit whose author did not.
    expect(flagged(plan)).toEqual(["docs/a.md"]);
  });
});
