import type { Parser } from "web-tree-sitter";
import type { ChangedFile, ChangedSymbol } from "../../../shared/changeset.js";
import { type NestingSyntax, nestingProblem, UnparsableCode } from "../../../shared/nesting.js";
import { compactDeclarations, compareDeclarations, type Declaration } from "./declarations.js";
import { type JavaScriptParser, javascriptDeclarations, loadJavaScriptParser } from "./javascript.js";
import { isSchemaPath, schemaDeclarations } from "./json-schema.js";
import { GRAMMARS, type GrammarLanguage, isProse, type Language, languageOf } from "./languages/index.js";
import { lineSymbols } from "./line-symbols.js";
import { privacyOf } from "./privacy.js";
import { loadGrammar, treeSitterDeclarations } from "./tree-sitter.js";
import {
  preloadTypeScript,
  type TypeScript,
  typescriptCompiler,
  typescriptDeclarations,
} from "./typescript.js";

export { UnparsableCode } from "../../../shared/nesting.js";
export { isProse, type Language, languageOf } from "./languages/index.js";

/** The parsers a batch of files needs, loaded before the (synchronous) extraction. */
export interface Parsers {
  /** oxc's parser for TS/JS; without it (a reference reading), the compiler reads everything. */
  javascript?: JavaScriptParser;
  /** The TypeScript compiler, for TS/JS text oxc does not parse cleanly; loaded on first such text when absent. */
  typescript?: TypeScript;
  grammars: Partial<Record<GrammarLanguage, Parser>>;
}

/** Loads the parsers of the given languages only: oxc's for TS/JS, a tree-sitter grammar for the others. */
export async function loadParsers(languages: Iterable<Language | undefined>): Promise<Parsers> {
  const parsers: Parsers = { grammars: {} };
  await Promise.all(
    [...new Set(languages)].map(async (language) => {
      if (!language) return;
      if (language === "typescript") {
        // The single executable (`bun build --compile`) cannot carry oxc's native addon; it
        // carries the compiler, which reads the same declarations.
        if (process.versions.bun) parsers.typescript = await preloadTypeScript();
        else parsers.javascript = await loadJavaScriptParser();
      } else {
        // A grammar that cannot load (a build without its .wasm file) costs that language its
        // declarations, not the plan: flags, env vars and config keys are still read.
        const grammar = await loadGrammar(GRAMMARS[language]).catch((error: unknown) => {
          warnOnce(language, error);
          return undefined;
        });
        if (grammar) parsers.grammars[language] = grammar;
      }
    }),
  );
  return parsers;
}

/** Whether declarations are read from the file: code in a language Impact reads, or a JSON Schema. */
export function declaresNames(path: string): boolean {
  return languageOf(path) !== undefined || isSchemaPath(path);
}

/** Each language's comments and strings, for the nesting scan. */
const NESTING_SYNTAX: Record<Language, NestingSyntax> = {
  typescript: "javascript",
  python: "hash",
  ruby: "hash",
  go: "go",
  rust: "rust",
  java: "c",
  csharp: "c",
  php: "php",
};

const warned = new Set<string>();

function warnOnce(language: string, error: unknown): void {
  if (warned.has(language)) return;
  warned.add(language);
  const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
  process.stderr.write(
    `warning: the ${language} grammar did not load (${why}); ${language} declarations are not read\n`,
  );
}

/**
 * The declarations of one file with loaded parsers (a JSON Schema's properties need none);
 * undefined when its language has no parser loaded. Throws UnparsableCode for text nested too deep to parse safely (checked
 * before any parser sees it) or that a parser failed on.
 */
export function declarationsWith(parsers: Parsers, path: string, text: string): Declaration[] | undefined {
  const language = languageOf(path);
  if (!language) return isSchemaPath(path) ? schemaDeclarations(path, text) : undefined;
  const tooDeep = nestingProblem(text, NESTING_SYNTAX[language]);
  if (tooDeep) throw new UnparsableCode(tooDeep);
  try {
    if (language === "typescript") {
      const read = parsers.javascript && javascriptDeclarations(parsers.javascript, text, path);
      return read ?? typescriptDeclarations(parsers.typescript ?? typescriptCompiler(), text, path);
    }
    const parser = parsers.grammars[language];
    return parser ? treeSitterDeclarations(parser, GRAMMARS[language], text) : undefined;
  } catch (error) {
    if (error instanceof UnparsableCode) throw error;
    // A parser's own limit (a stack overflow in a recursive reader): this file, not the plan.
    if (error instanceof RangeError) throw new UnparsableCode(`could not be parsed (${error.message})`);
    throw error;
  }
}

/**
 * The declarations of one code file (classes, functions, methods, constants, with
 * `Parent::child` paths and line ranges), loading its parser on first use; undefined when
 * the path is not in a language Impact reads.
 */
export async function readDeclarations(path: string, text: string): Promise<Declaration[] | undefined> {
  return declarationsWith(await loadParsers([languageOf(path)]), path, text);
}

/** The declarations of a file version read before, by side: a side given here is not parsed again. */
export interface KnownDeclarations {
  before?: Declaration[] | undefined;
  after?: Declaration[] | undefined;
}

/**
 * The symbols one changed file touched: declarations added, removed, renamed or changed
 * (read by a real parser from the whole file at base and head when given, else from the
 * hunks, which the parsers read as well as they can), plus CLI flags, environment variables
 * and config keys on the changed lines.
 */
export function extractSymbols(input: {
  file: ChangedFile;
  before?: string;
  after?: string;
  parsers: Parsers;
}): ChangedSymbol[] {
  return extractFileSymbols(input).symbols;
}

/**
 * extractSymbols, taking the (compact) declarations of a side from `known` instead of
 * parsing it, and returning the compact declarations of each whole side it parsed, for the
 * declaration cache. Declarations are compared in their compact form whichever way they
 * came, so a cached side and a parsed side compare as two parsed sides do.
 */
export function extractFileSymbols(input: {
  file: ChangedFile;
  before?: string;
  after?: string;
  parsers: Parsers;
  known?: KnownDeclarations | undefined;
}): { symbols: ChangedSymbol[]; parsed: KnownDeclarations; warning?: string | undefined } {
  const { file } = input;
  const parsed: KnownDeclarations = {};
  if (file.binary || file.status === "submodule" || isProse(file.path)) return { symbols: [], parsed };
  const symbols: ChangedSymbol[] = [];
  const whole = input.before !== undefined || input.after !== undefined;
  let warning: string | undefined;
  const side = (path: string, text: string | undefined, hunkSide: "-" | "+", known?: Declaration[]) => {
    if (known) return known;
    try {
      const read = declarationsWith(input.parsers, path, whole ? (text ?? "") : fragment(file, hunkSide));
      return read && compactDeclarations(read);
    } catch (error) {
      if (!(error instanceof UnparsableCode)) throw error;
      // The file's declarations are not compared; its flags, env vars and keys still are.
      warning ??= `${path} ${error.reason}; its declarations were not read`;
      return undefined;
    }
  };
  const oldDeclarations = side(file.oldPath ?? file.path, input.before, "-", input.known?.before);
  const newDeclarations = side(file.path, input.after, "+", input.known?.after);
  if (whole && !input.known?.before && oldDeclarations && input.before !== undefined)
    parsed.before = oldDeclarations;
  if (whole && !input.known?.after && newDeclarations && input.after !== undefined)
    parsed.after = newDeclarations;
  if (oldDeclarations && newDeclarations) {
    symbols.push(
      ...compareDeclarations(
        oldDeclarations,
        newDeclarations,
        file.path,
        privacyOf(file.path, oldDeclarations, newDeclarations),
      ),
    );
  }
  symbols.push(...lineSymbols(file, input.before, input.after));
  return { symbols: dedupe(symbols), parsed, warning };
}

/** The old (`-`) or new (`+`) side of a file as far as the hunks show it; hunks separated by blank lines. */
export function fragment(file: ChangedFile, side: "-" | "+"): string {
  const parts: string[] = [];
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line[0] === " " || line[0] === side) parts.push(line.slice(1));
    }
    parts.push("");
  }
  return parts.join("\n");
}

function dedupe(symbols: ChangedSymbol[]): ChangedSymbol[] {
  const seen = new Set<string>();
  return symbols.filter((symbol) => {
    const id = `${symbol.kind}\u0000${symbol.name}\u0000${symbol.change}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
