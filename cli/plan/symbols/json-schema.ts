import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import type { Declaration } from "./declarations.js";

/** A JSON file whose path names a schema (`schema.json`, `schema-taskrc.json`, `schemas/book.json`). */
const SCHEMA_PATH = /schema[^/]*\.json$|(?:^|\/)schemas?\/[^/]+\.json$/i;

/** Nesting past this is not read (no real schema nests so deep; a crafted one must not overflow the stack). */
const MAX_DEPTH = 128;

export function isSchemaPath(path: string): boolean {
  return SCHEMA_PATH.test(path);
}

/** A parsed JSON value with the lines it spans; an object's keys keep their own line. */
type Value =
  | { type: "object"; entries: { key: string; line: number; value: Value }[]; endLine: number }
  | { type: "array"; items: Value[]; endLine: number }
  | { type: "scalar"; value: unknown; endLine: number };

/**
 * The properties a JSON Schema declares, each a `config` declaration under the object it is
 * a property of: a definition by its name (`task`), a property's own object by its path
 * (`task.requires`), the root by the file's name (`schema-taskrc`). Alternatives (`oneOf`,
 * `anyOf`, `allOf`) and array `items` add to the object they describe. Undefined when the
 * text is not JSON, or holds no object.
 */
export function schemaDeclarations(path: string, text: string): Declaration[] | undefined {
  let root: Value | undefined;
  try {
    root = readJson(text);
  } catch {
    return undefined; // nesting past the parser's stack
  }
  if (root?.type !== "object") return undefined;
  const declarations: Declaration[] = [];
  const rootName = (path.split("/").pop() ?? path).replace(/\.json$/i, "");
  visit(root, rootName, declarations, 0);
  return declarations;
}

const DEFINITIONS = new Set(["definitions", "$defs"]);
const ALTERNATIVES = new Set(["oneOf", "anyOf", "allOf"]);
const SAME_OBJECT = new Set(["items", "additionalProperties", "then", "else", "not"]);

function visit(schema: Value, parent: string, into: Declaration[], depth: number): void {
  if (schema.type !== "object" || depth > MAX_DEPTH) return;
  for (const { key, value } of schema.entries) {
    if (key === "properties" && value.type === "object") {
      for (const property of value.entries) {
        const { line } = property;
        into.push({
          name: property.key,
          kind: "config",
          path: `${parent}::${property.key}`,
          line,
          startLine: line,
          endLine: property.value.endLine,
          signature: JSON.stringify(shape(property.value, 0)),
          body: "",
          parent,
        });
        visit(property.value, `${parent}.${property.key}`, into, depth + 1);
      }
    } else if (DEFINITIONS.has(key) && value.type === "object") {
      for (const definition of value.entries) visit(definition.value, definition.key, into, depth + 1);
    } else if (ALTERNATIVES.has(key) && value.type === "array") {
      for (const item of value.items) visit(item, parent, into, depth + 1);
    } else if (SAME_OBJECT.has(key)) {
      visit(value, parent, into, depth + 1);
    }
  }
}

/** What a property accepts: its type, reference, allowed values and format, and those of its items and alternatives; not its description or its own properties. */
function shape(schema: Value, depth: number): unknown {
  if (schema.type !== "object" || depth > 4) return null;
  const picked: Record<string, unknown> = {};
  for (const { key, value } of schema.entries) {
    if (key === "type" || key === "$ref" || key === "enum" || key === "const" || key === "format")
      picked[key] = plain(value);
    else if (key === "items") picked[key] = shape(value, depth + 1);
    else if (ALTERNATIVES.has(key) && value.type === "array")
      picked[key] = value.items.map((item) => shape(item, depth + 1));
  }
  return picked;
}

function plain(value: Value): unknown {
  if (value.type === "scalar") return value.value;
  if (value.type === "array") return value.items.map(plain);
  return null;
}

/**
 * The JSON text as values that keep their lines, read by the YAML parser the config already
 * uses (JSON is YAML's flow style): JSON.parse keeps no positions. A document that is not one
 * flow object (a block YAML file, a parse error) is none.
 */
function readJson(text: string): Value | undefined {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: false });
  if (document.errors.length > 0 || !isMap(document.contents) || !document.contents.flow) return undefined;
  const lineAt = (offset: number) => lineCounter.linePos(offset).line;
  const endLine = (node: Node) => lineAt(Math.max(0, (node.range?.[1] ?? 1) - 1));
  const convert = (node: unknown, depth: number): Value => {
    if (depth > MAX_DEPTH) return { type: "scalar", value: null, endLine: 0 };
    if (isMap(node)) {
      const entries: { key: string; line: number; value: Value }[] = [];
      for (const pair of node.items) {
        if (!isScalar(pair.key)) continue;
        entries.push({
          key: String(pair.key.value),
          line: lineAt(pair.key.range?.[0] ?? 0),
          value: convert(pair.value, depth + 1),
        });
      }
      return { type: "object", entries, endLine: endLine(node) };
    }
    if (isSeq(node))
      return {
        type: "array",
        items: node.items.map((item) => convert(item, depth + 1)),
        endLine: endLine(node),
      };
    if (isScalar(node)) return { type: "scalar", value: node.value, endLine: endLine(node) };
    return { type: "scalar", value: null, endLine: 0 };
  };
  return convert(document.contents, 0);
}
