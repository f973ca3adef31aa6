import picomatch from "picomatch";
import type { Mapping } from "../../shared/config.js";

const CAPTURE = /(?<!\\):([A-Za-z_][A-Za-z0-9_]*)/g;
const GLOB_CHARS = /[*?[\]{}()!\\]/;

/**
 * A file or folder name as a glob that matches exactly that name: picomatch's special
 * characters (`* ? [ ] { } ( ) ! + @ |`, a backslash, and `:` which starts a mapping capture)
 * behind a backslash. `impact init` writes folder names into globs with it: a folder named
 * `{x,.github}` must not make `.github/**` match.
 */
export function escapeGlob(name: string): string {
  return name.replace(/[*?[\]{}()!+@|\\:]/g, "\\$&");
}

export interface CompiledMapping {
  rule: Mapping;
  /** The captures when `path` matches the code side, else undefined. */
  match: (path: string) => Record<string, string> | undefined;
  /** The article predicate for one set of captures. */
  docs: (captures: Record<string, string>) => (articlePath: string) => boolean;
  /** The docs side with the captures substituted (a path or a glob). */
  target: (captures: Record<string, string>) => string;
}

/**
 * Compiles a mapping rule. `:name` captures one path segment (or part of one) on the code
 * side and is substituted on the docs side; `*`, `**` and `?` work as globs on both sides.
 * A rule without captures is a pair of globs (picomatch, braces included).
 */
export function compileMapping(rule: Mapping): CompiledMapping {
  const names = captureNames(rule.code);
  let match: CompiledMapping["match"];
  if (names.length === 0) {
    const isMatch = picomatch(rule.code, { dot: true });
    match = (path) => (isMatch(path) ? {} : undefined);
  } else {
    const regex = captureRegex(rule.code);
    match = (path) => {
      const result = regex.exec(path);
      return result ? { ...result.groups } : undefined;
    };
  }
  const target = (captures: Record<string, string>) =>
    rule.docs.replace(CAPTURE, (whole, name: string) => captures[name] ?? whole);
  const docs = (captures: Record<string, string>) => {
    const path = target(captures);
    if (!GLOB_CHARS.test(path)) return (articlePath: string) => articlePath === path;
    return picomatch(path, { dot: true });
  };
  return { rule, match, docs, target };
}

/** The `:name` captures a side of a mapping names, in order. */
export function captureNames(pattern: string): string[] {
  return [...pattern.matchAll(CAPTURE)].map((match) => match[1]!);
}

function captureRegex(pattern: string): RegExp {
  let source = "";
  const seen = new Set<string>();
  for (let index = 0; index < pattern.length; ) {
    const rest = pattern.slice(index);
    const capture = /^:([A-Za-z_][A-Za-z0-9_]*)/.exec(rest);
    if (capture) {
      const name = capture[1]!;
      // A name used twice must match the same text twice.
      source += seen.has(name) ? `\\k<${name}>` : `(?<${name}>[^/]+?)`;
      seen.add(name);
      index += capture[0].length;
    } else if (rest.startsWith("**/")) {
      source += "(?:.*/)?";
      index += 3;
    } else if (rest.startsWith("**")) {
      source += ".*";
      index += 2;
    } else if (rest[0] === "\\" && rest.length > 1) {
      // An escaped character (escapeGlob) stands for itself.
      source += rest[1]!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      index += 2;
    } else if (rest[0] === "*") {
      source += "[^/]*";
      index += 1;
    } else if (rest[0] === "?") {
      source += "[^/]";
      index += 1;
    } else {
      source += rest[0]!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      index += 1;
    }
  }
  return new RegExp(`^${source}$`);
}
