import type { Node } from "web-tree-sitter";
import { type GrammarSpec, hasPrivateModifier } from "../tree-sitter.js";

/** Java: classes, interfaces, enums and records with their methods, constructors and fields (nested types under their parent). */
export const java: GrammarSpec = {
  wasm: "tree-sitter-java.wasm",
  rules: {
    class_declaration: { kind: "class", container: true },
    record_declaration: { kind: "class", container: true },
    interface_declaration: { kind: "interface", container: true },
    annotation_type_declaration: { kind: "interface", container: true },
    enum_declaration: { kind: "enum", container: true },
    method_declaration: { kind: "method" },
    constructor_declaration: { kind: "method" },
    field_declaration: { kind: fieldKind, names: declaratorNames, body: false },
    constant_declaration: { kind: "constant", names: declaratorNames, body: false },
  },
  leading: ["line_comment", "block_comment"],
  hidden: (node) => hasPrivateModifier(node, ["modifiers"]),
};

function fieldKind(node: Node): "constant" | "variable" {
  const modifiers = node.namedChildren.find((child) => child?.type === "modifiers")?.text ?? "";
  return /\bstatic\b/.test(modifiers) && /\bfinal\b/.test(modifiers) ? "constant" : "variable";
}

function declaratorNames(node: Node): (Node | null | undefined)[] {
  return node.childrenForFieldName("declarator").map((declarator) => declarator?.childForFieldName("name"));
}
