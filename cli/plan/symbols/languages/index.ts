import type { GrammarSpec } from "../tree-sitter.js";
import { csharp } from "./csharp.js";
import { go } from "./go.js";
import { java } from "./java.js";
import { php } from "./php.js";
import { python } from "./python.js";
import { ruby } from "./ruby.js";
import { rust } from "./rust.js";

/** The languages whose declarations Impact reads: TS/JS with the compiler API, the rest with tree-sitter. */
export type Language = "typescript" | "python" | "go" | "rust" | "java" | "ruby" | "csharp" | "php";

export type GrammarLanguage = Exclude<Language, "typescript">;

export const GRAMMARS: Record<GrammarLanguage, GrammarSpec> = { python, go, rust, java, ruby, csharp, php };

const EXTENSIONS: [RegExp, Language][] = [
  [/\.(?:[cm]?[jt]sx?)$/i, "typescript"],
  [/\.pyi?$/i, "python"],
  [/\.go$/i, "go"],
  [/\.rs$/i, "rust"],
  [/\.java$/i, "java"],
  [/(?:\.(?:rb|rake|gemspec)|(?:^|\/)(?:Rakefile|Gemfile))$/, "ruby"],
  [/\.cs$/i, "csharp"],
  [/\.php$/i, "php"],
];

/** Files whose text is prose or data, never code: no flags, env vars or declarations come from them. */
const PROSE = /\.(?:md|mdx|markdown|txt|rst|adoc|html?|svg|lock|csv)$/i;

export function languageOf(path: string): Language | undefined {
  for (const [pattern, language] of EXTENSIONS) if (pattern.test(path)) return language;
  return undefined;
}

export function isProse(path: string): boolean {
  return PROSE.test(path);
}
