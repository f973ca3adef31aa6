import { blankName } from "../../cli/plan/symbols/declarations.js";
import type { SymbolKind } from "../../shared/changeset.js";

/**
 * The per-language regular expressions that read declarations before the parsers did, kept
 * here only as the symbol bench's baseline (the product no longer uses them). One line at a
 * time, no nesting, no ranges: fast, and blind to multi-line signatures, decorators and
 * members. Frozen copy; do not extend. A signature is blanked and normalised by the product's
 * own blankName, so the bench compares what the two readers find, not how they spell it.
 */
export type RegexLanguage = "python" | "go" | "rust" | "java";

interface RegexDeclaration {
  name: string;
  kind: SymbolKind;
  line: number;
  signature: string;
}

const JAVA_NOT_NAMES = new Set(["if", "for", "while", "switch", "catch", "return", "new", "else", "throw"]);

const REGEX_RULES: Record<
  RegexLanguage,
  { pattern: RegExp; kind: SymbolKind | ((match: RegExpExecArray) => SymbolKind) }[]
> = {
  python: [
    {
      pattern: /^(\s*)(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/,
      kind: (match) => (match[1] ? "method" : "function"),
    },
    { pattern: /^\s*class\s+([A-Za-z_]\w*)/, kind: "class" },
    { pattern: /^([A-Z][A-Z0-9_]*)\s*(?::[^=]+)?=/, kind: "constant" },
  ],
  go: [
    {
      pattern: /^func\s+(\([^)]*\)\s*)?([A-Za-z_]\w*)\s*[([]/,
      kind: (match) => (match[1] ? "method" : "function"),
    },
    { pattern: /^type\s+([A-Za-z_]\w*)\s+interface\b/, kind: "interface" },
    { pattern: /^type\s+([A-Za-z_]\w*)\s+struct\b/, kind: "class" },
    { pattern: /^type\s+([A-Za-z_]\w*)\b/, kind: "type" },
    {
      pattern: /^(const|var)\s+([A-Za-z_]\w*)\b/,
      kind: (match) => (match[1] === "const" ? "constant" : "variable"),
    },
  ],
  rust: [
    {
      pattern:
        /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+([A-Za-z_]\w*)/,
      kind: "function",
    },
    { pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?struct\s+([A-Za-z_]\w*)/, kind: "class" },
    { pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?enum\s+([A-Za-z_]\w*)/, kind: "enum" },
    { pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?trait\s+([A-Za-z_]\w*)/, kind: "interface" },
    { pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?type\s+([A-Za-z_]\w*)/, kind: "type" },
    { pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const|static)\s+([A-Za-z_]\w*)/, kind: "constant" },
  ],
  java: [
    {
      pattern:
        /^\s*(?:(?:public|protected|private|static|final|abstract|sealed)\s+)*(class|interface|enum|record)\s+([A-Za-z_]\w*)/,
      kind: (match) => (match[1] === "interface" ? "interface" : match[1] === "enum" ? "enum" : "class"),
    },
    {
      pattern:
        /^\s*(?:(?:public|protected|private|static|final|abstract|synchronized|native|default)\s+)+[\w<>[\],.? ]*?\s+([A-Za-z_]\w*)\s*\(/,
      kind: "method",
    },
    {
      pattern:
        /^\s*(?:(?:public|protected|private)\s+)?static\s+final\s+[\w<>[\], ]+\s+([A-Z][A-Z0-9_]*)\s*=/,
      kind: "constant",
    },
  ],
};

export function regexDeclarations(language: RegexLanguage, text: string): RegexDeclaration[] {
  const declarations: RegexDeclaration[] = [];
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    for (const rule of REGEX_RULES[language]) {
      const match = rule.pattern.exec(line);
      if (!match) continue;
      const name = match[match.length - 1]!;
      if (!name || JAVA_NOT_NAMES.has(name)) continue;
      const kind = typeof rule.kind === "function" ? rule.kind(match) : rule.kind;
      // The declaration line up to its body opener is its signature.
      const signature = blankName(line.split(/\{\s*$|:\s*$/)[0] ?? line, name);
      declarations.push({ name, kind, line: index + 1, signature });
      break;
    }
  }
  return declarations;
}
