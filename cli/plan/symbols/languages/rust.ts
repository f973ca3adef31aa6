import type { Node } from "web-tree-sitter";
import { rustConfigKeys } from "../config-keys.js";
import type { GrammarSpec } from "../tree-sitter.js";

/** Rust: functions, methods of `impl` and `trait` blocks (under the type or trait), structs, enums, traits, types, consts, modules, serde keys. */
export const rust: GrammarSpec = {
  wasm: "tree-sitter-rust.wasm",
  rules: {
    function_item: { kind: (_node, inType) => (inType ? "method" : "function") },
    function_signature_item: { kind: "method", body: false },
    struct_item: { kind: "class", body: false },
    union_item: { kind: "class", body: false },
    enum_item: { kind: "enum", body: false },
    trait_item: { kind: "interface", container: true },
    impl_item: { kind: "class", container: true, containerOnly: true, names: (node) => [implType(node)] },
    mod_item: { kind: "class", container: true, containerOnly: true },
    type_item: { kind: "type", body: false },
    const_item: { kind: "constant", body: false },
    static_item: { kind: "constant", body: false },
  },
  leading: ["line_comment", "block_comment", "attribute_item"],
  keys: rustConfigKeys,
};

/** `impl<T> Display for Wrapper<T>` adds members to `Wrapper`. */
function implType(node: Node): Node | null {
  const type = node.childForFieldName("type");
  return type?.type === "generic_type" ? type.childForFieldName("type") : type;
}
