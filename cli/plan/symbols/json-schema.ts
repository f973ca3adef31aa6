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
  let root: Value;
  try {
    root = new JsonReader(text).document();
  } catch {
    return undefined;
  }
  if (root.type !== "object") return undefined;
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

const LITERAL = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
const STRING = /"(?:[^"\\\n]|\\.)*"/y;

/** A strict JSON reader that keeps line numbers (JSON.parse does not). */
class JsonReader {
  private at = 0;
  private line = 1;

  constructor(private readonly text: string) {}

  document(): Value {
    const value = this.value(0);
    this.space();
    if (this.at < this.text.length) throw new SyntaxError("trailing text");
    return value;
  }

  private value(depth: number): Value {
    if (depth > MAX_DEPTH) throw new SyntaxError("nested too deep");
    this.space();
    const char = this.text[this.at];
    if (char === "{") return this.object(depth);
    if (char === "[") return this.array(depth);
    if (char === '"') return { type: "scalar", value: this.string(), endLine: this.line };
    LITERAL.lastIndex = this.at;
    const literal = LITERAL.exec(this.text);
    if (!literal) throw new SyntaxError(`unexpected ${char ?? "end"}`);
    this.at += literal[0].length;
    return { type: "scalar", value: JSON.parse(literal[0]), endLine: this.line };
  }

  private object(depth: number): Value {
    const entries: { key: string; line: number; value: Value }[] = [];
    const endLine = this.sequence("}", () => {
      this.space();
      const line = this.line;
      const key = this.string();
      this.space();
      this.expect(":");
      entries.push({ key, line, value: this.value(depth + 1) });
    });
    return { type: "object", entries, endLine };
  }

  private array(depth: number): Value {
    const items: Value[] = [];
    const endLine = this.sequence("]", () => items.push(this.value(depth + 1)));
    return { type: "array", items, endLine };
  }

  /** The items of an object or array from its opening bracket to `close`, separated by commas; returns the closing line. */
  private sequence(close: string, item: () => void): number {
    this.at += 1;
    this.space();
    if (this.text[this.at] === close) {
      this.at += 1;
      return this.line;
    }
    for (;;) {
      item();
      this.space();
      if (this.text[this.at] !== ",") break;
      this.at += 1;
    }
    this.expect(close);
    return this.line;
  }

  private string(): string {
    if (this.text[this.at] !== '"') throw new SyntaxError("expected a string");
    STRING.lastIndex = this.at;
    const end = STRING.exec(this.text);
    if (!end) throw new SyntaxError("unterminated string");
    this.at += end[0].length;
    return JSON.parse(end[0]) as string;
  }

  private space(): void {
    for (;;) {
      const char = this.text[this.at];
      if (char === "\n") this.line += 1;
      else if (char !== " " && char !== "\t" && char !== "\r") return;
      this.at += 1;
    }
  }

  private expect(char: string): void {
    if (this.text[this.at] !== char) throw new SyntaxError(`expected ${char}`);
    this.at += 1;
  }
}
