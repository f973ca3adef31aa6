import type { Node } from "web-tree-sitter";
import { type GrammarSpec, hasPrivateModifier } from "../tree-sitter.js";

/** PHP: classes, interfaces, traits and enums with their methods, properties and constants; functions; namespaces are see-through. */
export const php: GrammarSpec = {
  wasm: "tree-sitter-php.wasm",
  rules: {
    class_declaration: { kind: "class", container: true },
    interface_declaration: { kind: "interface", container: true },
    trait_declaration: { kind: "class", container: true },
    enum_declaration: { kind: "enum", container: true },
    function_definition: { kind: "function" },
    method_declaration: { kind: "method" },
    const_declaration: { kind: "constant", names: constNames, body: false },
    property_declaration: { kind: "variable", names: propertyNames, body: false },
  },
  leading: ["comment", "attribute_list"],
  hidden: (node) => hasPrivateModifier(node, ["visibility_modifier"]),
};

function constNames(node: Node): (Node | null | undefined)[] {
  return node
    .descendantsOfType("const_element")
    .map((element) => element?.namedChildren.find((child) => child?.type === "name"));
}

function propertyNames(node: Node): (Node | null | undefined)[] {
  return node.descendantsOfType("property_element").map((element) => element?.descendantsOfType("name")[0]);
}
