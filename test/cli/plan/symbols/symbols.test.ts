import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { extractSymbols, languageOf, loadParsers } from "../../../../cli/plan/symbols/extract-symbols.js";
import { parseUnifiedDiff } from "../../../../shared/diff/parse.js";

/** The symbols of a change from `before` to `after` of one file, as "change kind name" lines. */
async function symbolsOf(path: string, before: string, after: string, options: { whole?: boolean } = {}) {
  const patch = createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after);
  const [file] = parseUnifiedDiff(patch);
  if (!file) throw new Error("no file in the patch");
  const whole = options.whole ?? true;
  const symbols = extractSymbols({
    file,
    parsers: await loadParsers([languageOf(path)]),
    ...(whole ? { before, after } : {}),
  });
  return symbols
    .map(
      (symbol) =>
        `${symbol.change} ${symbol.kind} ${symbol.oldName ? `${symbol.oldName} → ` : ""}${symbol.name}`,
    )
    .sort();
}

describe("TypeScript declarations", () => {
  it("tells a signature change from a body-only change, and finds renames", async () => {
    const before = [
      "export function parseConfig(text: string): Config {",
      "  return JSON.parse(text);",
      "}",
      "export function renderTable(rows: string[]): string {",
      "  return rows.join('\\n');",
      "}",
      "export function legacyLoader(path: string, strict: boolean): void {}",
      "function helper(a: number) { return a; }",
      "export interface Options { verbose: boolean }",
      "export type Mode = 'fast' | 'slow';",
      "export enum Level { Low, High }",
      "export class Runner {",
      "  run(articles: string[]): void {}",
      "  private secret(): void {}",
      "}",
      "",
    ].join("\n");
    const after = [
      "export function parseConfig(text: string, path?: string): Config {",
      "  return JSON.parse(text);",
      "}",
      "export function renderTable(rows: string[]): string {",
      "  return rows.join('\\r\\n');",
      "}",
      "export function modernLoader(path: string, strict: boolean): void {}",
      "export interface Options { verbose: boolean; quiet: boolean }",
      "export type Mode = 'fast' | 'slow';",
      "export enum Level { Low, High }",
      "export class Runner {",
      "  run(articles: string[], signal: AbortSignal): void {}",
      "  private secret(x: number): void {}",
      "}",
      "",
    ].join("\n");
    expect(await symbolsOf("src/config.ts", before, after)).toEqual([
      "added member quiet",
      "body function renderTable",
      "removed function helper",
      "renamed function legacyLoader → modernLoader",
      "signature function parseConfig",
      "signature interface Options",
      "signature member verbose",
      "signature method run",
    ]);
  });

  it("finds keys added to, removed from and changed in a defaults or schema object", async () => {
    const before = "export const DEFAULTS = { concurrency: 4, maxTurns: 8, legacyMode: false };\n";
    const after = "export const DEFAULTS = { concurrency: 8, maxTurns: 8, tokenBudget: 1000 };\n";
    expect(await symbolsOf("src/run.ts", before, after)).toEqual([
      "added config tokenBudget",
      "removed config legacyMode",
      "signature config concurrency",
      "signature constant DEFAULTS",
    ]);
  });

  it("reads the hunks when only a diff is given", async () => {
    const before = "export function oldApi(a: string) {\n  return a;\n}\n";
    const after = "export function newApi(a: string) {\n  return a;\n}\n";
    expect(await symbolsOf("src/api.ts", before, after, { whole: false })).toEqual([
      "renamed function oldApi → newApi",
    ]);
  });
});

describe("tree-sitter declarations", () => {
  it("reads Python functions, methods, classes and constants", async () => {
    const before =
      "MAX_RETRIES = 3\n\nclass Client:\n    def fetch(self, url):\n        pass\n\ndef connect(host):\n    pass\n";
    const after =
      "MAX_RETRIES = 5\n\nclass Client:\n    def fetch(self, url, timeout):\n        pass\n\ndef open_connection(host, port):\n    pass\n";
    expect(await symbolsOf("lib/client.py", before, after)).toEqual([
      "added function open_connection",
      "removed function connect",
      "signature constant MAX_RETRIES",
      "signature method fetch",
    ]);
  });

  it("reads Go, Rust and Java declarations", async () => {
    expect(
      await symbolsOf(
        "main.go",
        "func Serve(addr string) error {\n}\ntype Server struct {\n}\n",
        "func Serve(addr string, tls bool) error {\n}\ntype HTTPServer struct {\n}\n",
      ),
    ).toEqual(["renamed class Server → HTTPServer", "signature function Serve"]);
    expect(
      await symbolsOf(
        "src/lib.rs",
        "pub fn build_index(root: &Path) {\n}\n",
        "pub fn build_index(root: &Path, deep: bool) {\n}\npub struct Index {\n}\n",
      ),
    ).toEqual(["added class Index", "signature function build_index"]);
    expect(
      await symbolsOf(
        "src/App.java",
        "public class App {\n  public static void launch(String name) {\n  }\n}\n",
        "public class App {\n  public static void start(String name, int port) {\n  }\n}\n",
      ),
    ).toEqual(["added method start", "removed method launch"]);
  });
});

describe("flags, environment variables and config keys on changed lines", () => {
  it("finds CLI flags in strings and option tables, and env vars in every listed form", async () => {
    const before = [
      'program.option("--dry-run", "only print");',
      "const key = process.env.OPENAI_API_KEY;",
      "",
    ].join("\n");
    const after = [
      'program.option("--preview", "only print");',
      'const options = { "max-turns": { type: "string" } };',
      'const key = process.env["IMPACT_KEY"];',
      "",
    ].join("\n");
    // The compiler reads the hunks too: `options` is an options object, so its keys count as config keys.
    expect(await symbolsOf("cli/main.ts", before, after, { whole: false })).toEqual([
      "added config max-turns",
      "added config type",
      "added constant options",
      "added env IMPACT_KEY",
      "added flag --max-turns",
      "added flag --preview",
      "removed env OPENAI_API_KEY",
      "removed flag --dry-run",
      "signature constant key",
    ]);
    const python = await symbolsOf("app.py", 'x = os.environ["OLD_HOME"]\n', 'x = os.getenv("APP_HOME")\n', {
      whole: false,
    });
    expect(python).toEqual(["added env APP_HOME", "removed env OLD_HOME"]);
    const go = await symbolsOf("env.go", "var a = 1\n", 'var a = os.Getenv("GO_TOKEN_PATH")\n', {
      whole: false,
    });
    expect(go).toContain("added env GO_TOKEN_PATH");
    const rust = await symbolsOf("env.rs", "let a = 1;\n", 'let a = std::env::var("RUST_LOG_DIR");\n', {
      whole: false,
    });
    expect(rust).toContain("added env RUST_LOG_DIR");
  });

  it("reads past an unclosed literal full of backslashes (once a backtracking hang), and through escaped quotes", async () => {
    // 40 escaped backslashes and no closing backtick: a pattern whose escape and plain-character
    // branches overlap tries 2^40 ways to split them before giving up.
    const unclosed = `const pattern = \`${"\\\\x".repeat(40)}\\`;
    const after = [unclosed, 'program.option("--kept", "say \\"--quoted-flag\\" here");', ""].join("\n");
    expect(await symbolsOf("cli/flags.js", "", after, { whole: false })).toEqual([
      "added constant pattern",
      "added flag --kept",
      "added flag --quoted-flag",
    ]);
  });

  it("reads config keys from a changed config or schema file, and nothing from prose", async () => {
    expect(
      await symbolsOf("config/defaults.yaml", "timeout: 30\nretries: 2\n", "timeout: 60\nbackoff: 2\n", {
        whole: false,
      }),
    ).toEqual(["added config backoff", "removed config retries", "signature config timeout"]);
    expect(await symbolsOf("docs/guide.md", "Use --old.\n", "Use --new and process.env.X.\n")).toEqual([]);
  });
});
