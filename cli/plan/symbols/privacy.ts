import type { Declaration } from "./declarations.js";
import { type Language, languageOf } from "./languages/index.js";

/**
 * Whether a declaration of `file` is private by its language's rule, given the file's
 * declarations on both sides (a TS/JS name exported by `export { name }` is public).
 */
export function privacyOf(
  file: string,
  before: readonly Declaration[],
  after: readonly Declaration[],
): (declaration: Declaration) => boolean {
  const language = languageOf(file);
  const exported = new Set(
    [...before, ...after]
      .filter((declaration) => declaration.kind === "export")
      .map((declaration) => declaration.name),
  );
  if (language !== "rust") return (declaration) => isPrivateDeclaration(declaration, language, exported);
  // Rust: the members of a type this file declares without plain `pub` are private with it,
  // and so is a method without `pub` outside a trait (a trait's methods are its interface).
  const all = [...before, ...after];
  const privateTypes = new Set(
    all
      .filter((declaration) => declaration.parent === undefined && !isRustPublic(declaration.signature))
      .map((declaration) => declaration.name),
  );
  const traits = new Set(
    all.filter((declaration) => declaration.kind === "interface").map((declaration) => declaration.name),
  );
  return (declaration) => {
    if (isPrivateDeclaration(declaration, language, exported)) return true;
    const { parent } = declaration;
    // A serde key is the file's, whatever the struct's visibility in the crate.
    if (parent === undefined || declaration.kind === "config") return false;
    if (privateTypes.has(parent)) return true;
    return declaration.kind === "method" && !traits.has(parent) && !isRustPublic(declaration.signature);
  };
}

/** Plain `pub`: `pub(crate)`, `pub(super)` and `pub(in path)` keep an item inside its crate. */
function isRustPublic(signature: string): boolean {
  return /^pub\b(?!\s*\()/.test(signature.trimStart());
}

/** Python dunders (`__init__`) are protocol, not private. */
const PYTHON_PRIVATE = /^_(?!_\w*__$)/;
/** TS/JS declarations whose signature shows whether they are exported. */
const TS_EXPORTABLE = new Set<Declaration["kind"]>(["function", "class", "interface", "type", "enum"]);

/**
 * Whether a declaration is private by its language's rule, so no part of the surface the
 * docs describe: Python `_name` (or a member of `_Class`), a Go name starting lowercase (or a
 * method of a lowercase type), a top-level Rust item without plain `pub` (`pub(crate)` is
 * the crate's own), a top-level TS/JS
 * function, class, interface, type or enum neither declared with `export` nor exported by
 * name, and a TS/JS name starting with `_` (a member too) not exported by name.
 */
export function isPrivateDeclaration(
  declaration: Pick<Declaration, "name" | "kind" | "parent" | "signature">,
  language: Language | undefined,
  exported: ReadonlySet<string>,
): boolean {
  const { name, parent, kind } = declaration;
  if (kind === "flag" || kind === "env" || kind === "config" || kind === "message") return false;
  switch (language) {
    case "python":
      return PYTHON_PRIVATE.test(name) || (parent !== undefined && PYTHON_PRIVATE.test(parent));
    case "go":
      return /^[a-z_]/.test(name) || (parent !== undefined && /^[a-z_]/.test(parent));
    case "rust":
      return parent === undefined && !isRustPublic(declaration.signature);
    case "typescript":
      // `_options`, `_transform`: underscored names are internal by convention, members too.
      if (name.startsWith("_") && !exported.has(name)) return true;
      return (
        parent === undefined &&
        TS_EXPORTABLE.has(kind) &&
        !/\bexport\b/.test(declaration.signature) &&
        !exported.has(name)
      );
    default:
      return false;
  }
}
