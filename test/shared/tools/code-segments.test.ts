import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { contentHash } from "../../../shared/hash.js";
import { gitRepo } from "../../helpers/git-repo.js";
import { testToolHost } from "../../helpers/tool-host.js";

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/symbols/${name}`, import.meta.url), "utf8");

const TYPESCRIPT = [
  "/** Runs one article. */",
  "export class Runner {",
  "  /** Starts the loop. */",
  "  run(articles: string[]): void {",
  "    console.log(articles);",
  "  }",
  "}",
  "",
].join("\n");

/** A real repository with one code file per language, and a tool host over it. */
function setup() {
  const repo = gitRepo({
    "docs/guide.md": "# Guide\n",
    "docs/setup.rst": "Setup\n=====\n\nIntro.\n\nOptions\n~~~~~~~\n\nUse ``--fast``.\n\nLater\n=====\n",
    "notes.txt": "plain notes\n",
    "src/client.py": fixture("before.py"),
    "src/server.go": fixture("before.go"),
    "src/index.rs": fixture("before.rs"),
    "src/App.java": fixture("Before.java"),
    "lib/billing.rb": fixture("before.rb"),
    "src/Orders.cs": fixture("before.cs"),
    "src/mailer.php": fixture("before.php"),
    "src/runner.ts": TYPESCRIPT,
  });
  const host = testToolHost(repo.dir);
  let id = 0;
  const one = async (name: string, args: unknown) =>
    (
      await host.execute(
        [{ id: `call_${++id}`, type: "function", function: { name, arguments: JSON.stringify(args) } }],
        new AbortController().signal,
      )
    )[0]!;
  return { repo, one };
}

/** Lines `from`-`to` (1-based) of a text, with their line endings. */
function lines(text: string, from: number, to: number): string {
  return text
    .split(/(?<=\n)/)
    .slice(from - 1, to)
    .join("");
}

describe("read_file {path, symbol}", () => {
  const cases: [string, string, string, number, number][] = [
    ["src/client.py", "before.py", "Client::fetch", 16, 19],
    ["src/server.go", "before.go", "Server::Start", 31, 33],
    ["src/index.rs", "before.rs", "IndexOptions", 6, 10],
    ["src/App.java", "Before.java", "App::Builder::port", 23, 25],
    ["lib/billing.rb", "before.rb", "Billing::Invoice::parse", 15, 17],
    ["src/Orders.cs", "before.cs", "OrderService::Place", 13, 16],
    ["src/mailer.php", "before.php", "InvoiceMailer::send", 16, 20],
  ];
  for (const [path, name, symbol, from, to] of cases) {
    it(`returns just ${symbol} of ${path}, doc comment and decorators included, headed like any read`, async () => {
      const { one } = setup();
      const text = fixture(name);
      const result = await one("read_file", { path, symbol });
      expect(result.ok).toBe(true);
      const total = text.split(/(?<=\n)/).length;
      const [header] = result.content.split("\n");
      expect(header).toContain(
        `${path} · lines ${from}-${to} of ${total} · hash ${contentHash(text)} · symbol `,
      );
      expect(header).toContain(`${symbol}, lines ${from}-${to}`);
      expect(result.content.slice(header!.length + 1)).toBe(lines(text, from, to));
    });
  }

  it("reads TS members with the compiler, by full path or by a unique bare name", async () => {
    const { one } = setup();
    const byPath = await one("read_file", { path: "src/runner.ts", symbol: "Runner::run" });
    expect(byPath.content).toBe(
      `src/runner.ts · lines 3-6 of 7 · hash ${contentHash(TYPESCRIPT)} · symbol method Runner::run, lines 3-6\n${lines(TYPESCRIPT, 3, 6)}`,
    );
    const byName = await one("read_file", { path: "src/runner.ts", symbol: "run" });
    expect(byName.content).toBe(byPath.content);
  });

  it("lists the closest names for an unknown symbol, and the candidates for an ambiguous one", async () => {
    const { one } = setup();
    const unknown = await one("read_file", { path: "src/client.py", symbol: "Client::fetchh" });
    expect(unknown.ok).toBe(false);
    expect(unknown.content).toMatchInlineSnapshot(
      `"Error: src/client.py declares no "Client::fetchh". Closest: Client::fetch, Client::Error, Client::BASE_URL, Client, Client::__init__. Call outline_article on src/client.py for all of them."`,
    );
    const { one: other } = setup();
    const ambiguous = await other("read_file", { path: "src/index.rs", symbol: "index" });
    expect(ambiguous.content).toMatchInlineSnapshot(
      `"Error: "index" names 2 declarations in src/index.rs: Indexer::index, Wrapper::index. Ask for one by its full path."`,
    );
  });

  it("reads one section of an article by its path, in the article's format", async () => {
    const { one } = setup();
    const section = await one("read_file", { path: "docs/setup.rst", symbol: "Setup::Options" });
    expect(section.ok).toBe(true);
    expect(section.content).toContain("section Setup::Options, lines 6-10");
    expect(section.content).toContain("Options\n~~~~~~~\n\nUse ``--fast``.\n");
    expect(section.content).not.toContain("Later");
    const outline = await one("outline_article", { path: "docs/setup.rst" });
    expect(outline.content.split("\n").slice(1)).toEqual([
      "format: reStructuredText",
      "Setup  (h1, lines 1-10)",
      "  Setup::Options  (h2, lines 6-10)",
      "Later  (h1, lines 11-12)",
    ]);
    const plain = await one("outline_article", { path: "notes.txt" });
    expect(plain.content.split("\n")[1]).toBe(
      "(plain text (.txt): Impact reads no sections in it; change it with replace edits)",
    );
  });

  it("refuses a symbol on a file that is neither code nor an article, and symbol together with offset", async () => {
    const { one } = setup();
    const prose = await one("read_file", { path: "notes.txt", symbol: "Guide" });
    expect(prose.content).toContain("is not a code file Impact can read declarations from");
    const both = await one("read_file", { path: "src/client.py", symbol: "connect", offset: 2 });
    expect(both.content).toContain("either symbol or offset/limit, not both");
  });
});

describe("outline_article on a code file", () => {
  it("lists declarations with Parent::child paths, kinds and line ranges", async () => {
    const { one } = setup();
    const result = await one("outline_article", { path: "lib/billing.rb" });
    expect(result.content.replace(/hash \w+/, "hash H")).toMatchInlineSnapshot(`
      "lib/billing.rb · 23 lines · hash H · code: read one declaration with read_file {path, symbol}
      Billing  (class, lines 1-19)
        Billing::VERSION  (constant, lines 3-3)
        Billing::Invoice  (class, lines 5-18)
          Billing::Invoice::initialize  (method, lines 7-9)
          Billing::Invoice::total_with_tax  (method, lines 11-13)
          Billing::Invoice::parse  (method, lines 15-17)
      legacy_export  (function, lines 21-23)"
    `);
  });

  it("still outlines Markdown by its headings", async () => {
    const { one } = setup();
    const result = await one("outline_article", { path: "docs/guide.md" });
    expect(result.content).toContain("Guide  (h1, lines 1-1)");
  });
});
