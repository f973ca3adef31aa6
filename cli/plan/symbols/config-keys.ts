import type { Node } from "web-tree-sitter";
import { type Declaration, normalise } from "./declarations.js";

/**
 * The keys of a configuration file as the code that reads it declares them: each a `config`
 * declaration under its struct, named as the file writes it (the serialized name, not the
 * field's), so a key added beside keys a reference page lists is a sibling of theirs, and a
 * key removed or renamed is a name the page may still write. Its signature is its type.
 */

/** Struct tags naming a configuration key, in the order a field's tag is read (the first found names it). */
const KEY_TAGS = ["yaml", "toml", "json", "mapstructure", "koanf"];
const TAG = /(\w+):"([^"]*)"/g;
/**
 * Go: the exported fields of a top-level struct that a struct tag names (`yaml:"cache-dir"`,
 * `json:"name,omitempty"`). An untagged field is none: a struct decoded by hand (its own
 * `UnmarshalYAML`) holds fields no file writes. `-`, `,inline` and embedded fields are none.
 */
export function goConfigKeys(root: Node): Declaration[] {
  const keys: Declaration[] = [];
  for (const declaration of root.namedChildren) {
    if (declaration?.type !== "type_declaration") continue;
    for (const spec of declaration.namedChildren) {
      const struct = spec?.type === "type_spec" ? spec.childForFieldName("type") : null;
      const parent = spec?.childForFieldName("name")?.text;
      if (struct?.type !== "struct_type" || !parent) continue;
      const fields = struct.namedChildren.find((child) => child?.type === "field_declaration_list");
      for (const field of fields?.namedChildren ?? []) {
        if (field?.type !== "field_declaration") continue;
        const tag = field.childForFieldName("tag")?.text;
        const type = normalise(field.childForFieldName("type")?.text ?? "");
        for (const name of field.childrenForFieldName("name")) {
          if (!name || !/^[A-Z]/.test(name.text)) continue;
          const key = goKey(name.text, tag);
          if (key) keys.push(keyDeclaration(key, parent, type, field));
        }
      }
    }
  }
  return keys;
}

/** The key a Go field is written as, or undefined when it is none. */
function goKey(field: string, tag: string | undefined): string | undefined {
  const tags = new Map([...(tag ?? "").matchAll(TAG)].map((match) => [match[1]!, match[2]!]));
  const library = KEY_TAGS.find((name) => tags.has(name));
  if (library === undefined) return undefined;
  const [name = "", ...options] = tags.get(library)!.split(",");
  if (name === "-" || options.includes("inline") || options.includes("squash")) return undefined;
  if (name !== "") return name;
  // `yaml:",omitempty"`: the decoder's own name for the field.
  return library === "yaml" ? field.toLowerCase() : field;
}

/** serde's `rename_all` cases, from a snake_case field name. */
const CASES: Record<string, (words: string[]) => string> = {
  lowercase: (words) => words.join(""),
  UPPERCASE: (words) => words.join("").toUpperCase(),
  PascalCase: (words) => words.map(capitalise).join(""),
  camelCase: (words) => words.map((word, index) => (index === 0 ? word : capitalise(word))).join(""),
  snake_case: (words) => words.join("_"),
  SCREAMING_SNAKE_CASE: (words) => words.join("_").toUpperCase(),
  "kebab-case": (words) => words.join("-"),
  "SCREAMING-KEBAB-CASE": (words) => words.join("-").toUpperCase(),
};

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/**
 * Rust: the fields of a struct deriving serde's `Deserialize`, named as serde reads them
 * (`rename = "…"`, else the struct's `rename_all` case); `skip`, `skip_deserializing` and
 * `flatten` fields are no keys of their own. Privacy does not matter: a private field of such
 * a struct is still a key of the file.
 */
export function rustConfigKeys(root: Node): Declaration[] {
  const keys: Declaration[] = [];
  for (const struct of root.descendantsOfType("struct_item")) {
    const parent = struct?.childForFieldName("name")?.text;
    const fields = struct?.childForFieldName("body");
    if (!struct || !parent || fields?.type !== "field_declaration_list") continue;
    const attributes = attributesBefore(struct);
    if (!attributes.some((attribute) => /\bDeserialize\b/.test(attribute))) continue;
    const renameAll = serdeValue(attributes, "rename_all");
    const rename = renameAll === undefined ? undefined : CASES[renameAll];
    for (const field of fields.namedChildren) {
      if (field?.type !== "field_declaration") continue;
      const name = field.childForFieldName("name")?.text;
      if (!name) continue;
      const own = attributesBefore(field);
      if (own.some((attribute) => /^#\[serde\(.*\b(?:skip|skip_deserializing|flatten)\b/s.test(attribute)))
        continue;
      const key = serdeValue(own, "rename") ?? (rename ? rename(name.replace(/^r#/, "").split("_")) : name);
      keys.push(keyDeclaration(key, parent, normalise(field.childForFieldName("type")?.text ?? ""), field));
    }
  }
  return keys;
}

/** The attributes directly above a node (doc comments between them skipped), as written. */
function attributesBefore(node: Node): string[] {
  const attributes: string[] = [];
  for (let sibling = node.previousNamedSibling; sibling; sibling = sibling.previousNamedSibling) {
    if (sibling.type === "attribute_item") attributes.push(sibling.text);
    else if (sibling.type !== "line_comment" && sibling.type !== "block_comment") break;
  }
  return attributes;
}

/** A `#[serde(name = "value")]` setting among attributes (`rename = "x"`, not `rename_all` for `rename`). */
function serdeValue(attributes: readonly string[], name: string): string | undefined {
  const pattern = new RegExp(String.raw`\b${name}\s*=\s*"([^"]*)"`);
  for (const attribute of attributes) {
    if (!attribute.startsWith("#[serde")) continue;
    const value = pattern.exec(attribute)?.[1];
    if (value !== undefined) return value;
  }
  return undefined;
}

function keyDeclaration(name: string, parent: string, signature: string, node: Node): Declaration {
  const line = node.startPosition.row + 1;
  return {
    name,
    kind: "config",
    path: `${parent}::${name}`,
    line,
    startLine: line,
    endLine: node.endPosition.row + 1,
    signature,
    body: "",
    parent,
  };
}
