import type { ChangedFile, ChangedSymbol, SymbolChange, SymbolKind } from "../../../shared/changeset.js";
import { isWordChar } from "./declarations.js";

/** Paths where changed keys are configuration keys (a schema or defaults object). */
const CONFIG_PATH =
  /(?:^|[/._-])(?:config|configuration|schema|defaults?|settings|options)(?:[/._-]|s?\.|$)/i;

/**
 * A quoted literal, escapes included. A backslash is only ever consumed with the character it
 * escapes, so the two branches never overlap: an unclosed literal full of backslashes fails after
 * one pass instead of backtracking through every way of splitting them (2^n tries).
 */
const STRING_LITERAL = /(["'`])((?:\\.|(?!\1)[^\\])*)\1/g;
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
  /\bENV\.fetch\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/g,
  /Environment\.GetEnvironmentVariable\(\s*"([A-Za-z_][A-Za-z0-9_]*)"/g,
  /(?<![\w.$>])getenv\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/g,
  /\$_(?:ENV|SERVER)\[\s*["']([A-Za-z_][A-Za-z0-9_]*)["']\s*\]/g,
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
export function lineSymbols(file: ChangedFile, before?: string, after?: string): ChangedSymbol[] {
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
