import { createHash } from "node:crypto";
import type { ChangedSymbol, SymbolKind } from "../../../shared/changeset.js";
import { callShape } from "./call-shape.js";

/**
 * One declaration of a code file, as every language's reader reports it: what the detector
 * compares between base and head, and what `outline_article`/`read_file {symbol}` show.
 */
export interface Declaration {
  name: string;
  kind: SymbolKind;
  /** `Parent::child` for members (`Client::fetch`); the bare name at top level. */
  path: string;
  /** 1-based line where the declaration itself starts. */
  line: number;
  /** 1-based first line of its segment: leading doc comments and decorators included. */
  startLine: number;
  /** 1-based last line of its segment. */
  endLine: number;
  /** What callers see: parameters, types, modifiers; whitespace-normalised, name blanked. */
  signature: string;
  /** The implementation, whitespace-normalised ("" for declarations without one). */
  body: string;
  /** Not part of the file's interface (a private member): outlined, but never a changed symbol. */
  hidden?: boolean;
  /** For members and keys: the interface, type, object or function they belong to. */
  parent?: string | undefined;
  /** The doc comment before it, whitespace-normalised ("" or absent without one). */
  doc?: string;
}

/**
 * What changed between the declarations of a file at base and at head: added, removed,
 * renamed (a removed and an added declaration of the same kind and shape), a changed
 * signature, or a body-only change.
 */
export function compareDeclarations(
  beforeAll: Declaration[],
  afterAll: Declaration[],
  file: string,
  /**
   * Private by the file's language (privacy.ts): compared as the others, but marked, being no
   * part of the surface the docs may quote.
   */
  isPrivate: (declaration: Declaration) => boolean = () => false,
): ChangedSymbol[] {
  const oldByName = groupByName(beforeAll.filter((declaration) => !declaration.hidden));
  const newByName = groupByName(afterAll.filter((declaration) => !declaration.hidden));
  const removed: Declaration[] = [];
  const added: Declaration[] = [];
  const symbols: ChangedSymbol[] = [];
  // A name the file still declares under another parent moved within it (a method from a
  // base class to its subclasses): an article writing it is not made wrong.
  const stillDeclared = new Set(
    afterAll
      .filter((declaration) => !declaration.hidden)
      .map((declaration) => `${declaration.kind}\u0000${declaration.name}`),
  );
  for (const [name, olds] of oldByName) {
    const news = newByName.get(name);
    if (!news) {
      const old = olds[0]!;
      if (!stillDeclared.has(`${old.kind}\u0000${old.name}`)) removed.push(old);
      continue;
    }
    const first = news[0]!;
    if (shape(olds, "signature") !== shape(news, "signature")) {
      symbols.push({
        ...named(first, isPrivate),
        change: "signature",
        file,
        line: first.line,
        ...(typesOnly(olds, news) ? { typesOnly: true } : {}),
      });
    } else if (shape(olds, "body") !== shape(news, "body")) {
      symbols.push({ ...named(first, isPrivate), change: "body", file, line: first.line });
    } else if (shape(olds, "doc") !== shape(news, "doc")) {
      symbols.push({ ...named(first, isPrivate), change: "doc", file, line: first.line });
    }
  }
  for (const [name, news] of newByName) {
    if (oldByName.has(name)) continue;
    const first = news[0]!;
    // Moved under another parent (a method of a renamed type): changed only if its signature did.
    const before = beforeAll.filter(
      (declaration) =>
        !declaration.hidden && declaration.kind === first.kind && declaration.name === first.name,
    );
    if (before.length === 0) added.push(first);
    else if (!before.some((declaration) => declaration.signature === first.signature))
      symbols.push({ ...named(first, isPrivate), change: "signature", file, line: first.line });
  }
  // Siblings: the other members of the same parent, or the file's other top-level
  // declarations (its exports) for a top-level one, that the base declared there too: a
  // list the change made incomplete existed before it (the members of a new interface, or of
  // a file added whole, were documented nowhere yet).
  const membersBefore = membersByParent(beforeAll);
  const membersOf = new Map<string, string[]>();
  for (const [key, names] of membersByParent(afterAll)) {
    const before = membersBefore.get(key);
    membersOf.set(
      key,
      names.filter((name) => before?.includes(name)),
    );
  }
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
      symbols.push({
        // A public name renamed to a private one (`LazyFile` → `_LazyFile`) leaves the public surface.
        ...named(twin, (declaration) => isPrivate(declaration) && isPrivate(old)),
        oldName: old.name,
        change: "renamed",
        file,
        line: twin.line,
      });
    } else {
      symbols.push({ ...named(old, isPrivate), change: "removed", file, line: old.line });
    }
  }
  for (const declaration of unmatched) {
    const siblings = (membersOf.get(memberKey(declaration)) ?? []).filter(
      (name) => name !== declaration.name,
    );
    symbols.push({
      ...named(declaration, isPrivate),
      change: "added",
      file,
      line: declaration.line,
      ...(siblings.length > 0 ? { siblings } : {}),
    });
  }
  return symbols;
}

/**
 * Declarations as compareDeclarations needs them and the declaration cache keeps them: the
 * body and doc comment, which it only tests for equality, replaced by a digest of their
 * text (empty stays empty), so a cached file version costs a few bytes per declaration
 * instead of its whole text. Everything else is kept as it is.
 */
export function compactDeclarations(declarations: Declaration[]): Declaration[] {
  return declarations.map((declaration) => {
    const compact = { ...declaration, body: digest(declaration.body) };
    if (declaration.doc !== undefined) compact.doc = digest(declaration.doc);
    return compact;
  });
}

function digest(text: string): string {
  return text === "" ? "" : `#${createHash("sha256").update(text).digest("base64").slice(0, 22)}`;
}

function named(
  declaration: Declaration,
  isPrivate: (declaration: Declaration) => boolean,
): Pick<ChangedSymbol, "name" | "kind" | "parent" | "private"> {
  return {
    name: declaration.name,
    kind: declaration.kind,
    parent: declaration.parent,
    ...(isPrivate(declaration) ? { private: true } : {}),
  };
}

/** Kinds whose signature is a parameter list a call writes. */
const CALLABLE = new Set<SymbolKind>(["function", "method"]);

/**
 * Whether the changed signatures of a function or method (each overload) keep their call
 * shape: the same parameter names and defaults in order, only their types changed.
 */
function typesOnly(olds: readonly Declaration[], news: readonly Declaration[]): boolean {
  if (olds.length !== news.length || ![...olds, ...news].every((each) => CALLABLE.has(each.kind)))
    return false;
  const shapes = (declarations: readonly Declaration[]) =>
    declarations.map((declaration) => callShape(declaration.signature));
  const before = shapes(olds);
  const after = shapes(news);
  if ([...before, ...after].some((each) => each === undefined)) return false;
  return before.sort().join("\n") === after.sort().join("\n");
}

/** Top-level kinds that make one list: the types, the functions, the values of a module. */
const TOP_LEVEL_GROUP: Partial<Record<SymbolKind, string>> = {
  class: "type",
  interface: "type",
  type: "type",
  enum: "type",
  constant: "value",
  variable: "value",
};

/**
 * Whose sibling a declaration is: its parent's members, or at the top level the module's
 * declarations of its sort (a new constant is no sibling of the classes beside it).
 */
function memberKey(declaration: Declaration): string {
  return declaration.parent ?? `\u0000${TOP_LEVEL_GROUP[declaration.kind] ?? declaration.kind}`;
}

/** The names of the non-method declarations under each parent, and each sort of top-level one (memberKey). */
function membersByParent(declarations: readonly Declaration[]): Map<string, string[]> {
  const membersOf = new Map<string, string[]>();
  for (const declaration of declarations) {
    if (declaration.hidden || declaration.kind === "method") continue;
    const key = memberKey(declaration);
    const list = membersOf.get(key);
    if (list) {
      if (!list.includes(declaration.name)) list.push(declaration.name);
    } else membersOf.set(key, [declaration.name]);
  }
  return membersOf;
}

/** Declarations by name; members by `Parent.name`, so `A.verbose` and `B.verbose` stay apart. */
function groupByName(declarations: Declaration[]): Map<string, Declaration[]> {
  const map = new Map<string, Declaration[]>();
  for (const declaration of declarations) {
    // An export by name (`export { styles }`, `module.exports.styles = …`) is its own entry: the
    // file may keep a `const styles` while no longer exporting it.
    const key =
      declaration.kind === "export"
        ? `export ${declaration.name}`
        : declaration.parent === undefined
          ? declaration.name
          : `${declaration.parent}.${declaration.name}`;
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

export function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** `text` normalised, with the first whole-word occurrence of `name` blanked (a rename keeps the shape). */
export function blankName(text: string, name: string): string {
  // indexOf, since a RegExp per declaration adds up.
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    if (isWordChar(text.charCodeAt(at - 1)) || isWordChar(text.charCodeAt(at + name.length))) continue;
    return normalise(`${text.slice(0, at)}\u0000${text.slice(at + name.length)}`);
  }
  return normalise(text);
}

export function isWordChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 ||
    code === 36
  );
}
