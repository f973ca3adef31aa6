import { createRequire } from "node:module";
import type { ChangedFile, ChangedSymbol, SymbolChange, SymbolKind } from "../../../shared/changeset.js";

type TypeScript = typeof import("typescript");

let typescriptModule: TypeScript | undefined;

/**
 * Loads the TypeScript compiler API once, only when a TS/JS file changed. `require` rather
 * than `import`: importing the 9 MB CommonJS bundle from ESM costs most of a second of
 * export detection on top of compiling it.
 */
export async function loadTypeScript(): Promise<TypeScript> {
  // Under Bun the import is cheap, and its literal name is what lets `bun build --compile`
  // put the compiler into the single executable.
  typescriptModule ??= process.versions.bun
    ? ((await import("typescript")) as { default: TypeScript }).default
    : (createRequire(import.meta.url)("typescript") as TypeScript);
  return typescriptModule;
}

export type Language = "typescript" | "python" | "go" | "rust" | "java";

const LANGUAGES: [RegExp, Language][] = [
  [/\.(?:[cm]?[jt]sx?)$/i, "typescript"],
  [/\.pyi?$/i, "python"],
  [/\.go$/i, "go"],
  [/\.rs$/i, "rust"],
  [/\.(?:java|kt)$/i, "java"],
];

/** Files whose text is prose or data, never code: no flags, env vars or declarations come from them. */
const PROSE = /\.(?:md|mdx|markdown|txt|rst|adoc|html?|svg|lock|csv)$/i;
/** Paths where changed keys are configuration keys (a schema or defaults object). */
const CONFIG_PATH =
  /(?:^|[/._-])(?:config|configuration|schema|defaults?|settings|options)(?:[/._-]|s?\.|$)/i;
const CONFIG_VARIABLE = /(?:config|schema|defaults?|settings|options)$/i;

export function languageOf(path: string): Language | undefined {
  for (const [pattern, language] of LANGUAGES) if (pattern.test(path)) return language;
  return undefined;
}

export function isProse(path: string): boolean {
  return PROSE.test(path);
}

interface Declaration {
  name: string;
  kind: SymbolKind;
  line: number;
  /** What callers see: parameters, types, modifiers; whitespace-normalised, name blanked. */
  signature: string;
  /** The implementation, whitespace-normalised ("" when the language extraction has none). */
  body: string;
  /** For members and keys: the interface, type, object or function they belong to. */
  parent?: string;
  /** The doc comment before it, whitespace-normalised ("" without one). */
  doc?: string;
}

/**
 * The symbols one changed file touched: declarations added, removed, renamed or changed
 * (TypeScript compiler API for TS/JS when both sides are given, regexes for Python, Go, Rust,
 * Java and for diff-only input), plus CLI flags, environment variables and config keys on
 * the changed lines. `before`/`after` are the whole file at base and head when known.
 */
export function extractSymbols(input: {
  file: ChangedFile;
  before?: string;
  after?: string;
  typescript?: TypeScript;
}): ChangedSymbol[] {
  const { file } = input;
  if (file.binary || file.status === "submodule" || isProse(file.path)) return [];
  const symbols: ChangedSymbol[] = [];
  const language = languageOf(file.path);
  if (language) {
    const whole = input.before !== undefined || input.after !== undefined;
    const before = whole ? (input.before ?? "") : fragment(file, "-");
    const after = whole ? (input.after ?? "") : fragment(file, "+");
    const oldPath = file.oldPath ?? file.path;
    const declare = (text: string, path: string) =>
      language === "typescript" && input.typescript && whole
        ? typescriptDeclarations(input.typescript, text, path)
        : regexDeclarations(language, text);
    symbols.push(...compareDeclarations(declare(before, oldPath), declare(after, file.path), file.path));
  }
  symbols.push(...lineSymbols(file, input.before, input.after));
  return dedupe(symbols);
}

// ---------- declarations ----------

function compareDeclarations(before: Declaration[], after: Declaration[], file: string): ChangedSymbol[] {
  const oldByName = groupByName(before);
  const newByName = groupByName(after);
  const removed: Declaration[] = [];
  const added: Declaration[] = [];
  const symbols: ChangedSymbol[] = [];
  for (const [name, olds] of oldByName) {
    const news = newByName.get(name);
    if (!news) {
      removed.push(olds[0]!);
      continue;
    }
    const first = news[0]!;
    if (shape(olds, "signature") !== shape(news, "signature")) {
      symbols.push({ ...named(first), change: "signature", file, line: first.line });
    } else if (shape(olds, "body") !== shape(news, "body")) {
      symbols.push({ ...named(first), change: "body", file, line: first.line });
    } else if (shape(olds, "doc") !== shape(news, "doc")) {
      symbols.push({ ...named(first), change: "doc", file, line: first.line });
    }
  }
  for (const [name, news] of newByName) if (!oldByName.has(name)) added.push(news[0]!);
  // Siblings: the other members of the same parent, or the file's other top-level
  // declarations (its exports) for a top-level one.
  const membersOf = new Map<string, string[]>();
  for (const declaration of after) {
    if (declaration.kind === "method") continue;
    const key = declaration.parent ?? "";
    const list = membersOf.get(key);
    if (list) {
      if (!list.includes(declaration.name)) list.push(declaration.name);
    } else membersOf.set(key, [declaration.name]);
  }
  // A removed and an added declaration of the same kind and shape is a rename.
  const unmatched = new Set(added);
  for (const old of removed) {
    const twin = [...unmatched].find(
      (candidate) =>
        candidate.kind === old.kind &&
        candidate.parent === old.parent &&
        candidate.signature === old.signature &&
        (candidate.body === old.body || candidate.signature.length > 12),
    );
    if (twin) {
      unmatched.delete(twin);
      symbols.push({ ...named(twin), oldName: old.name, change: "renamed", file, line: twin.line });
    } else {
      symbols.push({ ...named(old), change: "removed", file, line: old.line });
    }
  }
  for (const declaration of unmatched) {
    const siblings = (membersOf.get(declaration.parent ?? "") ?? []).filter(
      (name) => name !== declaration.name,
    );
    symbols.push({
      ...named(declaration),
      change: "added",
      file,
      line: declaration.line,
      ...(siblings.length > 0 ? { siblings } : {}),
    });
  }
  return symbols;
}

function named(declaration: Declaration): Pick<ChangedSymbol, "name" | "kind" | "parent"> {
  return declaration.parent === undefined
    ? { name: declaration.name, kind: declaration.kind }
    : { name: declaration.name, kind: declaration.kind, parent: declaration.parent };
}

/** Declarations by name; members by `Parent.name`, so `A.verbose` and `B.verbose` stay apart. */
function groupByName(declarations: Declaration[]): Map<string, Declaration[]> {
  const map = new Map<string, Declaration[]>();
  for (const declaration of declarations) {
    const key =
      declaration.parent === undefined ? declaration.name : `${declaration.parent}.${declaration.name}`;
    const list = map.get(key);
    if (list) list.push(declaration);
    else map.set(key, [declaration]);
  }
  return map;
}

function shape(declarations: Declaration[], field: "signature" | "body" | "doc"): string {
  return declarations
    .map((declaration) => `${declaration.kind}:${declaration[field] ?? ""}`)
    .sort()
    .join("\n");
}

function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function blankName(text: string, name: string): string {
  // The first whole-word occurrence of the name; indexOf, since a RegExp per declaration adds up.
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    if (isWordChar(text.charCodeAt(at - 1)) || isWordChar(text.charCodeAt(at + name.length))) continue;
    return normalise(`${text.slice(0, at)}\u0000${text.slice(at + name.length)}`);
  }
  return normalise(text);
}

function isWordChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 ||
    code === 36
  );
}

function typescriptDeclarations(ts: TypeScript, text: string, path: string): Declaration[] {
  if (text === "") return [];
  const kind = /\.[cm]?jsx?$/i.test(path)
    ? ts.ScriptKind.JSX
    : /x$/i.test(path)
      ? ts.ScriptKind.TSX
      : ts.ScriptKind.TS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, kind);
  const declarations: Declaration[] = [];
  const lineOf = (node: import("typescript").Node) =>
    source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const split = (
    node: import("typescript").Node,
    name: string,
    body: import("typescript").Node | undefined,
  ) => {
    const start = node.getStart(source);
    const bodyStart = body ? body.getStart(source) : node.end;
    return {
      signature: blankName(text.slice(start, bodyStart), name),
      body: body ? normalise(text.slice(bodyStart, body.end)) : "",
    };
  };
  const add = (
    node: import("typescript").Node,
    name: string,
    symbolKind: SymbolKind,
    body?: import("typescript").Node,
  ) => {
    declarations.push({
      name,
      kind: symbolKind,
      line: lineOf(node),
      ...split(node, name, body),
      doc: docOf(node),
    });
  };
  /** The comments right before a node (its JSDoc, mostly). */
  const docOf = (node: import("typescript").Node) =>
    normalise(text.slice(node.getFullStart(), node.getStart(source)));
  const isPrivate = (node: import("typescript").Node) =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.PrivateKeyword);

  /** Members of an interface or type literal: `verbose?: boolean` is what option docs list. */
  const addMembers = (
    parent: string,
    members: import("typescript").NodeArray<import("typescript").TypeElement>,
  ) => {
    for (const member of members) {
      if (!member.name || !(ts.isIdentifier(member.name) || ts.isStringLiteral(member.name))) continue;
      declarations.push({
        name: member.name.text,
        kind: "member",
        line: lineOf(member),
        signature: normalise(member.getText(source).slice(member.name.getText(source).length)),
        body: "",
        parent,
        doc: docOf(member),
      });
    }
  };
  /** Destructured options with defaults (`{ lines = 10 } = {}`): each key is a member, its default in its signature. */
  const addParameterMembers = (
    parent: string,
    parameters: import("typescript").NodeArray<import("typescript").ParameterDeclaration>,
  ) => {
    for (const parameter of parameters) {
      if (!ts.isObjectBindingPattern(parameter.name)) continue;
      for (const element of parameter.name.elements) {
        const key = element.propertyName ?? element.name;
        if (!ts.isIdentifier(key)) continue;
        declarations.push({
          name: key.text,
          kind: "member",
          line: lineOf(element),
          signature: element.initializer ? normalise(element.initializer.getText(source)) : "",
          body: "",
          parent,
        });
      }
    }
  };

  const visit = (statements: readonly import("typescript").Statement[]): void => {
    for (const statement of statements) {
      if (ts.isModuleDeclaration(statement)) {
        // `declare namespace got { interface Options {…} }`: what a `.d.ts` file documents.
        let body = statement.body;
        while (body && ts.isModuleDeclaration(body)) body = body.body;
        if (body && ts.isModuleBlock(body)) visit(body.statements);
      } else if (ts.isFunctionDeclaration(statement) && statement.name) {
        add(statement, statement.name.text, "function", statement.body);
        addParameterMembers(statement.name.text, statement.parameters);
      } else if (ts.isClassDeclaration(statement) && statement.name) {
        const open = statement.members.pos;
        declarations.push({
          name: statement.name.text,
          kind: "class",
          line: lineOf(statement),
          signature: blankName(text.slice(statement.getStart(source), open), statement.name.text),
          body: "",
        });
        for (const member of statement.members) {
          if (isPrivate(member) || !member.name || !ts.isIdentifier(member.name)) continue;
          const name = member.name.text;
          if (ts.isMethodDeclaration(member) || ts.isGetAccessor(member) || ts.isSetAccessor(member)) {
            add(member, name, "method", member.body);
          } else if (ts.isPropertyDeclaration(member)) {
            add(member, name, "variable");
          }
        }
      } else if (ts.isInterfaceDeclaration(statement)) {
        add(statement, statement.name.text, "interface");
        addMembers(statement.name.text, statement.members);
      } else if (ts.isTypeAliasDeclaration(statement)) {
        add(statement, statement.name.text, "type");
        if (ts.isTypeLiteralNode(statement.type)) addMembers(statement.name.text, statement.type.members);
      } else if (ts.isEnumDeclaration(statement)) {
        add(statement, statement.name.text, "enum");
      } else if (ts.isVariableStatement(statement)) {
        const constant = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
        for (const declaration of statement.declarationList.declarations) {
          if (!ts.isIdentifier(declaration.name)) continue;
          const name = declaration.name.text;
          const initializer = declaration.initializer;
          if (initializer && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer))) {
            const node = declaration;
            declarations.push({
              name,
              kind: "function",
              line: lineOf(statement),
              signature: blankName(
                text.slice(node.getStart(source), initializer.body.getStart(source)),
                name,
              ),
              body: normalise(text.slice(initializer.body.getStart(source), initializer.body.end)),
            });
            addParameterMembers(name, initializer.parameters);
          } else {
            add(declaration, name, constant ? "constant" : "variable");
          }
          if (initializer && CONFIG_VARIABLE.test(name))
            declarations.push(...configKeys(ts, source, initializer, name));
        }
      } else if (
        ts.isExportDeclaration(statement) &&
        statement.exportClause &&
        ts.isNamedExports(statement.exportClause)
      ) {
        for (const element of statement.exportClause.elements) {
          declarations.push({
            name: element.name.text,
            kind: "export",
            line: lineOf(element),
            signature: normalise(element.getText(source)).replace(element.name.text, "\u0000"),
            body: "",
          });
        }
      }
    }
  };
  visit(source.statements);
  return declarations;
}

/** Keys of the object literals inside a config/schema/defaults initializer, with their values. */
function configKeys(
  ts: TypeScript,
  source: import("typescript").SourceFile,
  root: import("typescript").Node,
  parent: string,
): Declaration[] {
  const keys: Declaration[] = [];
  const visit = (node: import("typescript").Node) => {
    if (ts.isObjectLiteralExpression(node)) {
      for (const property of node.properties) {
        const name = property.name;
        if (!name || !(ts.isIdentifier(name) || ts.isStringLiteral(name))) continue;
        keys.push({
          name: name.text,
          kind: "config",
          line: source.getLineAndCharacterOfPosition(property.getStart(source)).line + 1,
          signature: ts.isPropertyAssignment(property) ? normalise(property.initializer.getText(source)) : "",
          body: "",
          parent,
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(root);
  return keys;
}

const JAVA_NOT_NAMES = new Set(["if", "for", "while", "switch", "catch", "return", "new", "else", "throw"]);

const REGEX_RULES: Record<
  Language,
  { pattern: RegExp; kind: SymbolKind | ((match: RegExpExecArray) => SymbolKind) }[]
> = {
  typescript: [
    {
      pattern: /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/,
      kind: "function",
    },
    { pattern: /^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/, kind: "class" },
    { pattern: /^\s*(?:export\s+)?(?:declare\s+)?interface\s+([A-Za-z_$][\w$]*)/, kind: "interface" },
    { pattern: /^\s*(?:export\s+)?(?:declare\s+)?type\s+([A-Za-z_$][\w$]*)\s*[<=]/, kind: "type" },
    { pattern: /^\s*(?:export\s+)?(?:declare\s+)?(?:const\s+)?enum\s+([A-Za-z_$][\w$]*)/, kind: "enum" },
    {
      pattern: /^(?:export\s+)?(const|let|var)\s+([A-Za-z_$][\w$]*)\s*[:=]/,
      kind: (match) => (match[1] === "const" ? "constant" : "variable"),
    },
  ],
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

function regexDeclarations(language: Language, text: string): Declaration[] {
  const declarations: Declaration[] = [];
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
      declarations.push({ name, kind, line: index + 1, signature, body: "" });
      break;
    }
  }
  return declarations;
}

/** The old (`-`) or new (`+`) side of a file as far as the hunks show it; hunks separated by blank lines. */
function fragment(file: ChangedFile, side: "-" | "+"): string {
  const parts: string[] = [];
  for (const hunk of file.hunks) {
    for (const line of hunk.lines) {
      if (line[0] === " " || line[0] === side) parts.push(line.slice(1));
    }
    parts.push("");
  }
  return parts.join("\n");
}

// ---------- flags, environment variables, config keys (from the changed lines) ----------

const STRING_LITERAL = /(["'`])((?:\\.|(?!\1).)*)\1/g;
const FLAG = /(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?![\w-])/g;
/** node:util parseArgs / yargs style option tables: `"dry-run": { type: "boolean" }`. */
const OPTION_TABLE =
  /["']?([a-z][a-z0-9]*(?:-[a-z0-9]+)*)["']?\s*:\s*\{\s*type\s*:\s*["'](?:string|boolean|number|array)["']/g;
const ENV_PATTERNS = [
  /process\.env\.([A-Za-z_][A-Za-z0-9_]*)/g,
  /process\.env\[\s*["'`]([A-Za-z_][A-Za-z0-9_]*)["'`]\s*\]/g,
  /import\.meta\.env\.([A-Za-z_][A-Za-z0-9_]*)/g,
  /os\.environ(?:\.get)?[[(]\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/g,
  /os\.getenv\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/g,
  /os\.(?:Getenv|LookupEnv)\(\s*"([A-Za-z_][A-Za-z0-9_]*)"/g,
  /env::var(?:_os)?\(\s*"([A-Za-z_][A-Za-z0-9_]*)"/g,
  /System\.getenv\(\s*"([A-Za-z_][A-Za-z0-9_]*)"/g,
  /\bENV\[\s*["']([A-Za-z_][A-Za-z0-9_]*)["']\s*\]/g,
];
const CONFIG_LINE = /^\s*["']?([A-Za-z_][\w-]*)["']?\s*[:=](?!=)/;
const NOT_CONFIG_KEYS = new Set([
  "const",
  "let",
  "var",
  "return",
  "case",
  "default",
  "type",
  "export",
  "import",
]);

interface LineFinding {
  name: string;
  kind: SymbolKind;
  line: number;
}

/**
 * Flags, env vars and config keys on the changed lines. With the whole files at hand, a
 * name on removed lines that is still elsewhere in the new file (or on added lines that was
 * already in the old one) is a usage that moved, not a change, and is left out.
 */
function lineSymbols(file: ChangedFile, before?: string, after?: string): ChangedSymbol[] {
  const removed: LineFinding[] = [];
  const added: LineFinding[] = [];
  const configPath = CONFIG_PATH.test(file.path);
  for (const hunk of file.hunks) {
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    for (const line of hunk.lines) {
      const marker = line[0];
      if (marker === "-" || marker === "+") {
        const target = marker === "-" ? removed : added;
        const number = marker === "-" ? oldLine : newLine;
        findOnLine(line.slice(1), number, configPath, target);
      }
      if (marker === " " || marker === "-") oldLine += 1;
      if (marker === " " || marker === "+") newLine += 1;
    }
  }
  const key = (finding: LineFinding) => `${finding.kind}\u0000${finding.name}`;
  const removedKeys = new Map(removed.map((finding) => [key(finding), finding]));
  const addedKeys = new Map(added.map((finding) => [key(finding), finding]));
  const symbols: ChangedSymbol[] = [];
  const make = (finding: LineFinding, change: SymbolChange): ChangedSymbol => ({
    name: finding.name,
    kind: finding.kind,
    change,
    file: file.path,
    line: finding.line,
  });
  for (const [id, finding] of addedKeys) {
    // A new message is nothing an existing article can quote; a removed one is.
    if (finding.kind === "message") continue;
    if (removedKeys.has(id)) symbols.push(make(finding, "signature"));
    else if (!(before !== undefined && containsName(before, finding.name)))
      symbols.push(make(finding, "added"));
  }
  for (const [id, finding] of removedKeys) {
    if (!addedKeys.has(id) && !(after !== undefined && containsName(after, finding.name))) {
      symbols.push(make(finding, "removed"));
    }
  }
  return symbols;
}

/** Whether `name` occurs in `text` as a whole name (`IMPACT_MODEL` is not in `IMPACT_MODEL_NAME`). */
function containsName(text: string, name: string): boolean {
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const before = text.charCodeAt(at - 1);
    const after = text.charCodeAt(at + name.length);
    if (!isWordChar(before) && before !== 45 && !isWordChar(after) && after !== 45) return true;
  }
  return false;
}

function findOnLine(text: string, line: number, configPath: boolean, into: LineFinding[]): void {
  for (const literal of text.matchAll(STRING_LITERAL)) {
    for (const flag of (literal[2] ?? "").matchAll(FLAG)) into.push({ name: flag[0], kind: "flag", line });
    const message = messageOf(literal[2] ?? "");
    if (message) into.push({ name: message, kind: "message", line });
  }
  for (const option of text.matchAll(OPTION_TABLE)) into.push({ name: `--${option[1]}`, kind: "flag", line });
  for (const pattern of ENV_PATTERNS) {
    for (const match of text.matchAll(pattern)) into.push({ name: match[1]!, kind: "env", line });
  }
  if (configPath) {
    const match = CONFIG_LINE.exec(text);
    const name = match?.[1];
    if (name && name.length > 1 && !NOT_CONFIG_KEYS.has(name)) into.push({ name, kind: "config", line });
  }
}

/** Words of a sentence: what an error or log message is made of, and what docs quote. */
const MESSAGE = /^[A-Za-z`][\w'’,:;()`-]*(?: [\w'’,.:;()"`-]+){3,}$/;
const MAX_MESSAGE_LENGTH = 200;

/**
 * The quotable part of a string literal that reads as a message (four words or more): the
 * longest stretch between `${…}` and `%s`-style placeholders, trimmed. Undefined otherwise.
 */
function messageOf(literal: string): string | undefined {
  let best = "";
  for (const part of literal.split(/\$\{[^}]*\}|%[sdifjo]|\{\d*\}|\\[nt]/)) {
    const trimmed = part.trim();
    if (trimmed.length > best.length) best = trimmed;
  }
  return best.length <= MAX_MESSAGE_LENGTH && MESSAGE.test(best) ? best : undefined;
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
