import { readFileSync } from "node:fs";
import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import {
  extractSymbols,
  languageOf,
  loadParsers,
  readDeclarations,
} from "../../../../cli/plan/symbols/extract-symbols.js";
import { parseUnifiedDiff } from "../../../../shared/diff/parse.js";

const fixture = (name: string) =>
  readFileSync(new URL(`../../../fixtures/symbols/${name}`, import.meta.url), "utf8");

async function changes(path: string, before: string, after: string): Promise<string[]> {
  const [file] = parseUnifiedDiff(createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after));
  if (!file) throw new Error("no file in the patch");
  const parsers = await loadParsers([languageOf(path)]);
  return extractSymbols({ file, before, after, parsers })
    .map(
      (symbol) =>
        `${symbol.change} ${symbol.kind} ${symbol.oldName ? `${symbol.oldName} → ` : ""}${symbol.name}`,
    )
    .sort();
}

async function outline(path: string, text: string): Promise<string[]> {
  const declarations = (await readDeclarations(path, text)) ?? [];
  return declarations.map(
    (declaration) =>
      `${declaration.startLine}-${declaration.endLine} ${declaration.kind} ${declaration.path}${declaration.hidden ? " (hidden)" : ""}`,
  );
}

/** `text` with each [old, new] edit made, in order; each old text stands in it exactly once. */
function edited(text: string, edits: readonly (readonly [string, string])[]): string {
  return edits.reduce((result, [old, replacement]) => {
    if (result.split(old).length !== 2) throw new Error(`not exactly once in the fixture: ${old}`);
    return result.replace(old, () => replacement);
  }, text);
}

/** Per language: a real-looking file at base, the edits that make its head, its outline at base, and what changed. */
const CORPUS: {
  language: string;
  file: string;
  edits: [string, string][];
  outline: string[];
  changes: string[];
}[] = [
  {
    language: "python (decorators, nested classes, async, UPPER_CASE constants)",
    file: "before.py",
    edits: [
      ["MAX_RETRIES = 3", "MAX_RETRIES = 5"],
      [
        "    def fetch(self, invoice_id: str) -> dict:",
        "    def fetch(self, invoice_id: str, expand: bool = False) -> dict:",
      ],
      ['            return "billing error"', '            return "billing error: " + str(self)'],
      ["def connect(host: str) -> Client:", "def open_connection(host: str) -> Client:"],
    ],
    outline: [
      "4-4 constant MAX_RETRIES",
      "8-23 class Client",
      "11-11 constant Client::BASE_URL",
      "13-14 method Client::__init__",
      "16-19 method Client::fetch",
      "21-23 class Client::Error",
      "22-23 method Client::Error::describe",
      "26-27 function connect",
      "30-31 function stream_events",
    ],
    changes: [
      "body method describe",
      "renamed function connect → open_connection",
      "signature constant MAX_RETRIES",
      "signature method fetch",
    ],
  },
  {
    language: "go (methods under their receiver, generics, grouped consts)",
    file: "before.go",
    edits: [
      [
        "// Server answers HTTP requests.\ntype Server struct {",
        "// HTTPServer answers HTTP requests.\ntype HTTPServer struct {",
      ],
      ["func Serve(addr string) error {", "func Serve(addr string, tls bool) error {"],
      ["func (s *Server) Start() error {", "func (s *HTTPServer) Start() error {"],
      [
        "\tvalue, ok := c.items[key]\n\treturn value, ok",
        "\tvalue, found := c.items[key]\n\treturn value, found",
      ],
    ],
    outline: [
      "5-6 constant DefaultPort",
      "9-9 constant ReadTimeout",
      "10-10 constant WriteTimeout",
      "13-16 class Server",
      "18-20 interface Handler",
      "22-24 class Cache",
      "26-29 function Serve",
      "31-33 method Server::Start",
      "35-38 method Cache::Get",
    ],
    changes: [
      "body method Get",
      "renamed class Server → HTTPServer",
      "signature function Serve",
      "signature method Start",
    ],
  },
  {
    language: "rust (doc comments and attributes, generic impl, traits, modules)",
    file: "before.rs",
    edits: [
      ["    pub deep: bool,", "    pub deep: bool,\n    pub follow_links: bool,"],
      [
        "pub fn build_index(root: &Path) -> usize {",
        "pub fn build_index(root: &Path, options: &IndexOptions) -> usize {",
      ],
      ["        1", "        2"],
    ],
    outline: [
      "4-4 constant MAX_DEPTH",
      "6-10 class IndexOptions",
      "12-14 interface Indexer",
      "13-13 method Indexer::index",
      "16-18 function build_index",
      "21-23 method Wrapper::index",
      "26-29 enum Mode",
      "32-34 method helpers::normalise",
    ],
    changes: ["body method index", "signature class IndexOptions", "signature function build_index"],
  },
  {
    language: "java (generics, annotations, nested static class, private members)",
    file: "Before.java",
    edits: [
      [
        "    public static final int DEFAULT_PORT = 8080;",
        "    public static final int DEFAULT_PORT = 9090;",
      ],
      [
        "    public static void launch(String name) {",
        "    public static void start(String name, int port) {",
      ],
      ["    private void secret() {", "    private void secret(int level) {"],
      ["        public Builder port(int port) {", "        public Builder port(int port, boolean tls) {"],
    ],
    outline: [
      "5-27 class App",
      "7-7 constant App::DEFAULT_PORT",
      "8-8 variable App::items (hidden)",
      "10-12 method App::App",
      "14-17 method App::launch",
      "19-20 method App::secret (hidden)",
      "22-26 class App::Builder",
      "23-25 method App::Builder::port",
      "29-31 interface Plugin",
      "30-30 method Plugin::install",
    ],
    changes: [
      "added method start",
      "removed method launch",
      "signature constant DEFAULT_PORT",
      "signature method port",
    ],
  },
  {
    language: "ruby (modules, nested classes, singleton methods, constants)",
    file: "before.rb",
    edits: [
      ['  VERSION = "1.2.0"', '  VERSION = "1.3.0"'],
      [
        "    def total_with_tax(rate)\n      @total * (1 + rate)",
        "    def total_with_tax(rate, rounding)\n      (@total * (1 + rate)).round(rounding)",
      ],
      ["def legacy_export(path)", "def export_csv(path)"],
    ],
    outline: [
      "1-19 class Billing",
      "3-3 constant Billing::VERSION",
      "5-18 class Billing::Invoice",
      "7-9 method Billing::Invoice::initialize",
      "11-13 method Billing::Invoice::total_with_tax",
      "15-17 method Billing::Invoice::parse",
      "21-23 function legacy_export",
    ],
    changes: [
      "renamed function legacy_export → export_csv",
      "signature constant VERSION",
      "signature method total_with_tax",
    ],
  },
  {
    language: "c# (namespaces, generics with constraints, attributes, properties, nested classes)",
    file: "before.cs",
    edits: [
      ["        public const int MaxItems = 50;", "        public const int MaxItems = 100;"],
      ["        public void Place(TOrder order)", "        public void Place(TOrder order, bool notify)"],
      [
        '            public string Print() => "receipt";',
        '            public string Print() => "receipt: " + DateTime.Now;',
      ],
      ["    public interface IOrderStore", "    public interface IOrderRepository"],
    ],
    outline: [
      "5-24 class OrderService",
      "8-8 constant OrderService::MaxItems",
      "9-9 variable OrderService::_connection (hidden)",
      "11-11 variable OrderService::Region",
      "13-16 method OrderService::Place",
      "18-18 method OrderService::Audit (hidden)",
      "20-23 class OrderService::Receipt",
      "22-22 method OrderService::Receipt::Print",
      "26-29 interface IOrderStore",
      "28-28 method IOrderStore::Save",
    ],
    changes: [
      "body method Print",
      "renamed interface IOrderStore → IOrderRepository",
      "signature constant MaxItems",
      "signature method Place",
    ],
  },
  {
    language: "php (namespaces, attributes, docblocks, properties, private methods)",
    file: "before.php",
    edits: [
      [
        "    public function send(Invoice $invoice): bool",
        "    public function send(Invoice $invoice, bool $copyToAdmin = false): bool",
      ],
      ["function format_amount(float $amount): string", "function format_money(float $amount): string"],
    ],
    outline: [
      "5-5 constant API_VERSION",
      "7-26 class InvoiceMailer",
      "12-12 constant InvoiceMailer::RETRIES",
      "13-13 variable InvoiceMailer::secret (hidden)",
      "14-14 variable InvoiceMailer::batchSize",
      "16-20 method InvoiceMailer::send",
      "22-25 method InvoiceMailer::sign (hidden)",
      "28-31 function format_amount",
    ],
    changes: ["renamed function format_amount → format_money", "signature method send"],
  },
];

describe("declarations per language (tree-sitter)", () => {
  for (const entry of CORPUS) {
    it(`${entry.language}: outline with segments, and what changed`, async () => {
      const path = `src/${entry.file}`;
      const before = fixture(entry.file);
      expect(await outline(path, before)).toEqual(entry.outline);
      expect(await changes(path, before, edited(before, entry.edits))).toEqual(entry.changes);
    });
  }

  it("reads declarations from the hunks alone when only a diff is given", async () => {
    const path = "src/after.py";
    const python = CORPUS[0]!;
    const before = fixture(python.file);
    const patch = createTwoFilesPatch(`a/${path}`, `b/${path}`, before, edited(before, python.edits));
    const [file] = parseUnifiedDiff(patch);
    if (!file) throw new Error("no file in the patch");
    const symbols = extractSymbols({ file, parsers: await loadParsers(["python"]) });
    expect(symbols.map((symbol) => `${symbol.change} ${symbol.name}`)).toContain("signature fetch");
  });

  it("slices segments by character, not byte, after non-ASCII text", async () => {
    const text = "# ünïcode ✓ 🚀\n\ndef greet(name):\n    return name\n";
    const [declaration] = (await readDeclarations("hello.py", text)) ?? [];
    expect(declaration).toMatchObject({
      name: "greet",
      startLine: 3,
      endLine: 4,
      signature: "def \u0000(name):",
      body: "return name",
    });
  });

  it("reads nothing from files in a language it does not know", async () => {
    expect(await readDeclarations("notes.kt", "fun main() {}\n")).toBeUndefined();
  });
});
