import { readFileSync } from "node:fs";
import { declarationsWith, type Language, loadParsers } from "../cli/plan/symbols/extract-symbols.js";
import { typescriptCompiler, typescriptDeclarations } from "../cli/plan/symbols/typescript.js";
import { type RegexLanguage, regexDeclarations } from "./baseline/regex-declarations.js";
import { measure } from "./edit-engine.bench.js";

/** Copies of the corpus file per benched file: about 500 to 1,000 lines, a typical source file. */
const COPIES = 25;
const FILES_PER_RUN = 20;

const CORPUS: { language: Language; file: string; path: string }[] = [
  { language: "python", file: "before.py", path: "a.py" },
  { language: "go", file: "before.go", path: "a.go" },
  { language: "rust", file: "before.rs", path: "a.rs" },
  { language: "java", file: "Before.java", path: "A.java" },
  { language: "ruby", file: "before.rb", path: "a.rb" },
  { language: "csharp", file: "before.cs", path: "a.cs" },
  { language: "php", file: "before.php", path: "a.php" },
];

const REGEX_LANGUAGES = new Set<string>(["python", "go", "rust", "java"]);

/**
 * Symbol extraction per language, in files per second: the parsers that read declarations
 * now (tree-sitter, oxc for TS/JS) beside the line regexes they replaced (kept under
 * bench/baseline/ only for this comparison). The regexes are faster and always will be;
 * what the parsers buy is correctness: multi-line signatures, decorators, members under
 * their class, line ranges for `read_file {symbol}`, no false hits in strings and comments.
 * For TS/JS the baseline is the TypeScript compiler API that read them before oxc (and
 * still reads what oxc does not parse): its first load and its files per second.
 */
export async function run(): Promise<void> {
  const fixture = (name: string) =>
    readFileSync(new URL(`../../test/fixtures/symbols/${name}`, import.meta.url), "utf8");
  const typescriptText = readFileSync(new URL("../../cli/run/runner.ts", import.meta.url), "utf8");
  const rows: {
    language: string;
    lines: number;
    load: number;
    parser: number;
    regex?: number;
    compiler?: { load: number; parser: number };
  }[] = [];
  for (const entry of [...CORPUS, { language: "typescript" as const, file: "", path: "runner.ts" }]) {
    const text =
      entry.language === "typescript"
        ? typescriptText
        : Array.from({ length: COPIES }, () => fixture(entry.file)).join("\n");
    const loadStart = performance.now();
    const parsers = await loadParsers([entry.language]);
    const load = performance.now() - loadStart;
    const perFile = (task: () => unknown) =>
      measure(5, () => {
        for (let index = 0; index < FILES_PER_RUN; index += 1) task();
      }) / FILES_PER_RUN;
    const parser = perFile(() => declarationsWith(parsers, entry.path, text));
    const regex = REGEX_LANGUAGES.has(entry.language)
      ? perFile(() => regexDeclarations(entry.language as RegexLanguage, text))
      : undefined;
    let compiler: { load: number; parser: number } | undefined;
    if (entry.language === "typescript") {
      const compilerStart = performance.now();
      const ts = typescriptCompiler();
      const compilerLoad = performance.now() - compilerStart;
      compiler = {
        load: compilerLoad,
        parser: perFile(() => typescriptDeclarations(ts, text, entry.path)),
      };
    }
    rows.push({
      language: entry.language,
      lines: text.split("\n").length,
      load,
      parser,
      ...(regex === undefined ? {} : { regex }),
      ...(compiler ? { compiler } : {}),
    });
  }
  console.log("language    lines  first load  parser files/s  regex files/s (baseline)  ratio");
  for (const row of rows) {
    const parserRate = 1000 / row.parser;
    const regexRate = row.regex ? 1000 / row.regex : undefined;
    if (row.compiler) {
      const compilerRate = 1000 / row.compiler.parser;
      console.log(
        `${row.language.padEnd(10)} ${String(row.lines).padStart(6)} ${row.load.toFixed(0).padStart(8)} ms ${parserRate.toFixed(0).padStart(15)} ${`compiler: ${row.compiler.load.toFixed(0)} ms load, ${compilerRate.toFixed(0)}/s`.padStart(25)} ${(parserRate / compilerRate).toFixed(1)}× faster`,
      );
      continue;
    }
    const baseline = regexRate ? regexRate.toFixed(0) : "none";
    console.log(
      `${row.language.padEnd(10)} ${String(row.lines).padStart(6)} ${row.load.toFixed(0).padStart(8)} ms ${parserRate.toFixed(0).padStart(15)} ${baseline.padStart(25)} ${regexRate ? `${(regexRate / parserRate).toFixed(1)}× slower` : ""}`,
    );
  }
}
