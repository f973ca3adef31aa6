import type { Declaration } from "../../plan/symbols/declarations.js";
import { readDeclarations, UnparsableCode } from "../../plan/symbols/extract-symbols.js";
import { fail, type ToolFailure } from "./define.js";

/**
 * A code file's declarations for the tools: undefined when it is no code Impact reads, a
 * failure (never a crash) when it is too deeply nested to parse.
 */
export async function readCodeDeclarations(
  path: string,
  text: string,
): Promise<Declaration[] | undefined | ToolFailure> {
  try {
    return await readDeclarations(path, text);
  } catch (error) {
    if (!(error instanceof UnparsableCode)) throw error;
    return fail(
      "unparsable",
      `${path} ${error.reason}, so its declarations cannot be listed. Read it with read_file (offset and limit), or find lines with search_repo.`,
    );
  }
}

/** How many near names an unknown symbol lists. */
const CLOSEST_NAMES = 5;

/** A code file's declarations for outline_article: `Parent::child` paths, kinds and line ranges. */
export function formatCodeOutline(
  path: string,
  lineCount: number,
  hash: string,
  declarations: Declaration[],
): string {
  const lines = [
    `${path} · ${lineCount} lines · hash ${hash} · code: read one declaration with read_file {path, symbol}`,
  ];
  if (declarations.length === 0) lines.push("(no declarations)");
  for (const declaration of declarations) {
    const depth = declaration.path.split("::").length - 1;
    lines.push(
      `${"  ".repeat(depth)}${declaration.path}  (${declaration.kind}, lines ${declaration.startLine}-${declaration.endLine})`,
    );
  }
  return lines.join("\n");
}

/**
 * The declaration a `read_file {symbol}` names: by its full path (`Client::fetch`), else by a
 * path suffix or bare name when that is unique. Otherwise the candidates: every declaration
 * the name fits, or the closest paths by spelling.
 */
export function findDeclaration(
  declarations: Declaration[],
  symbol: string,
): { ok: true; declaration: Declaration } | { ok: false; candidates: string[]; ambiguous: boolean } {
  const wanted = symbol.trim().replace(/\.|#|->/g, "::");
  const exact = declarations.filter((declaration) => declaration.path === wanted);
  if (exact.length >= 1) return { ok: true, declaration: exact[0]! };
  const bySuffix = declarations.filter(
    (declaration) => declaration.path.endsWith(`::${wanted}`) || declaration.name === wanted,
  );
  if (bySuffix.length === 1) return { ok: true, declaration: bySuffix[0]! };
  if (bySuffix.length > 1) {
    return { ok: false, ambiguous: true, candidates: bySuffix.map((declaration) => declaration.path) };
  }
  const lower = wanted.toLowerCase();
  const candidates = [...new Set(declarations.map((declaration) => declaration.path))]
    .map((path) => ({ path, distance: distance(lower, path.toLowerCase()) }))
    .sort((a, b) => a.distance - b.distance || a.path.localeCompare(b.path))
    .slice(0, CLOSEST_NAMES)
    .map((candidate) => candidate.path);
  return { ok: false, ambiguous: false, candidates };
}

/** Edit distance, with a path that contains the wanted text counted as near. */
function distance(wanted: string, path: string): number {
  if (path.includes(wanted)) return path.length - wanted.length;
  const previous = Array.from({ length: path.length + 1 }, (_, index) => index);
  for (let row = 1; row <= wanted.length; row += 1) {
    let diagonal = previous[0]!;
    previous[0] = row;
    for (let column = 1; column <= path.length; column += 1) {
      const above = previous[column]!;
      previous[column] = Math.min(
        above + 1,
        previous[column - 1]! + 1,
        diagonal + (wanted[row - 1] === path[column - 1] ? 0 : 1),
      );
      diagonal = above;
    }
  }
  return previous[path.length]!;
}
