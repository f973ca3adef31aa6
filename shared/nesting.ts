import { MAX_CODE_NESTING, MAX_CODE_OPERATOR_CHAIN } from "./limits.js";

/**
 * The lexical rules the scan needs of a language: its comments and strings. `javascript`
 * also bounds operator chains and reads template literals and regular expressions.
 */
export type NestingSyntax = "javascript" | "c" | "go" | "rust" | "php" | "hash";

/**
 * Text a parser is not given (or gave up on): nested past a bound, or a parser that threw.
 * Callers say so and go on (a code file's declarations are not read).
 */
export class UnparsableCode extends Error {
  /** Why, in words that follow the file's path: "nests 20000 levels deep (the limit is 1000)". */
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.name = "UnparsableCode";
    this.reason = reason;
  }
}

const OPENERS = new Set(["(", "[", "{"]);
const CLOSERS = new Set([")", "]", "}"]);
/**
 * TS/JS operators the parser reads by recursion when chained (`a => a => …`, `a ? b : a ? …`,
 * `!!!…x`, `A<A<…>>`, `<a><a>…`, `a = b = …`); `=>`, `?` and `=` are told apart below.
 */
const CHAIN_OPERATORS = new Set(["=", "?", "!", "~", "+", "-", "<"]);
/** After one of these (or at the start), a `/` in TS/JS starts a regular expression. */
const BEFORE_REGEX = new Set([
  "(",
  ",",
  "=",
  ":",
  "[",
  "!",
  "&",
  "|",
  "?",
  "{",
  "}",
  ";",
  "+",
  "-",
  "*",
  "%",
  "<",
  ">",
  "~",
  "^",
]);

/**
 * Why a code file is too deeply nested to parse, or undefined: a cheap scan, linear in the
 * text, of bracket depth outside strings and comments (every language), and for TS/JS of
 * the longest operator chain in one expression. Run before every parser: the native TS/JS
 * parser crashes the process on deep nesting, and the tree walks recurse per level.
 */
export function nestingProblem(
  text: string,
  syntax: NestingSyntax,
  limits: { depth: number } = { depth: MAX_CODE_NESTING },
): string | undefined {
  const cLike = syntax !== "hash";
  const hashComments = syntax === "hash" || syntax === "php";
  const javascript = syntax === "javascript";
  // Rust's `'a` is a lifetime, not a string.
  const singleQuoted = syntax !== "rust";
  let depth = 0;
  let deepest = 0;
  let chain = 0;
  let longestChain = 0;
  /** Bracket depths at which a `${` of a template literal was opened (TS/JS). */
  const templates: number[] = [];
  /** The chain of each enclosing bracket level, resumed when the bracket closes. */
  const outerChains: number[] = [];
  let previous = "";
  let index = 0;
  const length = text.length;
  const skipString = (quote: string, multiline: boolean): void => {
    for (index += 1; index < length; index += 1) {
      const char = text[index];
      if (char === "\\") index += 1;
      else if (char === quote) return;
      else if (char === "\n" && !multiline) return;
      else if (quote === "`" && javascript && char === "$" && text[index + 1] === "{") {
        templates.push(depth);
        depth += 1;
        if (depth > deepest) deepest = depth;
        index += 1;
        return;
      }
    }
  };
  for (; index < length; index += 1) {
    const char = text[index]!;
    if (char === " " || char === "\t" || char === "\n" || char === "\r") continue;
    const next = text[index + 1];
    if (cLike && char === "/" && next === "/") {
      const end = text.indexOf("\n", index);
      index = end < 0 ? length : end;
      continue;
    }
    if (cLike && char === "/" && next === "*") {
      const end = text.indexOf("*/", index + 2);
      index = end < 0 ? length : end + 1;
      continue;
    }
    if (hashComments && char === "#") {
      const end = text.indexOf("\n", index);
      index = end < 0 ? length : end;
      continue;
    }
    if (char === '"' || (char === "'" && singleQuoted)) {
      skipString(char, !cLike);
      previous = "a";
      continue;
    }
    if (char === "`" && (javascript || syntax === "go")) {
      skipString(char, true);
      previous = "a";
      continue;
    }
    if (javascript && char === "/" && (previous === "" || BEFORE_REGEX.has(previous))) {
      // A regular expression literal: its brackets are not code.
      for (index += 1; index < length && text[index] !== "/" && text[index] !== "\n"; index += 1) {
        if (text[index] === "\\") index += 1;
      }
      previous = "a";
      continue;
    }
    if (OPENERS.has(char)) {
      depth += 1;
      if (depth > deepest) deepest = depth;
      // A bracket does not end the chain around it: `(a) => (a) => …` recurses as deep.
      outerChains.push(chain);
      chain = 0;
    } else if (CLOSERS.has(char)) {
      if (char === "}" && templates.length > 0 && templates.at(-1) === depth - 1) {
        // The end of a template literal's `${…}`: the template goes on.
        templates.pop();
        depth -= 1;
        skipString("`", true);
        previous = "a";
        continue;
      }
      if (depth > 0) depth -= 1;
      chain = outerChains.pop() ?? 0;
    } else if (char === ";" || char === ",") {
      chain = 0;
    } else if (javascript && CHAIN_OPERATORS.has(char) && chainLink(char, next, previous)) {
      chain += 1;
      if (chain > longestChain) longestChain = chain;
    }
    previous = char;
  }
  if (deepest > limits.depth) return `nests ${deepest} levels deep (Impact parses up to ${limits.depth})`;
  if (longestChain > MAX_CODE_OPERATOR_CHAIN)
    return `chains ${longestChain} operators in one expression (Impact parses up to ${MAX_CODE_OPERATOR_CHAIN})`;
  return undefined;
}

/** Whether an operator character starts one link of a recursive chain (not `?.`, `??`, `==`, `<=`…). */
function chainLink(char: string, next: string | undefined, previous: string): boolean {
  if (char === "?") return next !== "." && next !== "?" && previous !== "?";
  if (char === "=") return next !== "=" && !"=!<>+-*/%&|^?".includes(previous);
  if (char === "+" || char === "-") return next !== char && previous !== char;
  return true;
}
