import type { Node } from "web-tree-sitter";
import { type GrammarSpec, hasPrivateModifier } from "../tree-sitter.js";

/** C#: classes, structs, records, interfaces and enums with their methods, constructors, properties and fields; namespaces are see-through. */
export const csharp: GrammarSpec = {
  wasm: "tree-sitter-c-sharp.wasm",
  rules: {
    class_declaration: { kind: "class", container: true },
    struct_declaration: { kind: "class", container: true },
    record_declaration: { kind: "class", container: true },
    interface_declaration: { kind: "interface", container: true },
    enum_declaration: { kind: "enum", body: false },
    delegate_declaration: { kind: "type", body: false },
    method_declaration: { kind: "method" },
    constructor_declaration: { kind: "method" },
    property_declaration: { kind: "variable", body: false },
    field_declaration: { kind: fieldKind, names: variableNames, body: false },
  },
  leading: ["comment", "attribute_list"],
  hidden: (node) => hasPrivateModifier(node, ["modifier"]),
};

function fieldKind(node: Node): "constant" | "variable" {
  const modifiers = node.namedChildren
    .filter((child) => child?.type === "modifier")
    .map((child) => child?.text)
    .join(" ");
  return /\bconst\b/.test(modifiers) || /\bstatic readonly\b|\breadonly static\b/.test(modifiers)
    ? "constant"
    : "variable";
}

function variableNames(node: Node): (Node | null | undefined)[] {
  return node
    .descendantsOfType("variable_declarator")
    .map((declarator) => declarator?.childForFieldName("name") ?? declarator?.namedChildren[0]);
}
